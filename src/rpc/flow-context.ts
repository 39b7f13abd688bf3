import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { ApprovalAsker } from './approval-chain.js';

/**
 * The request a handler is serving, visible to every call the handler makes (however deep
 * in its own code), so child calls join the flow without the handler passing anything:
 * same correlationId, `causedBy` = this request, deadline no later than this one's.
 */
export interface DispatchContext {
  readonly agentUri: string;
  readonly request: AgentRpcEnvelope;
  /** The handler's own approval path: a question from a peer it calls is asked on up through it. */
  readonly askApproval?: ApprovalAsker;
}

const storage = new AsyncLocalStorage<DispatchContext>();

export function runInDispatch<T>(context: DispatchContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentDispatch(): DispatchContext | undefined {
  return storage.getStore();
}

/** Runs `fn` outside any handler's flow: calls it makes start flows of their own (a background lookup, not part of the request). */
export function outsideDispatch<T>(fn: () => T): T {
  return storage.exit(fn);
}
