/**
 * The effective call stack of a flow: walk the raw chain of agents hop by hop; an agent
 * already on the stack pops the stack back to it (the call returned there), a new one is
 * pushed. `[1,2,1]` is `[1]`: agent 1 calling back into 2 and 2 into 1 is a conversation,
 * not a deepening. The collapsed length is the effective depth.
 */
export function collapseChain<T>(rawChain: readonly T[]): T[] {
  const stack: T[] = [];
  for (const agent of rawChain) {
    const at = stack.indexOf(agent);
    if (at >= 0) stack.length = at + 1;
    else stack.push(agent);
  }
  return stack;
}
