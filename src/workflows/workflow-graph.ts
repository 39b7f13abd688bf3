/** The `depends` graph of a workflow: cycles, ancestors and an order to run in. */

export interface GraphStep {
  readonly name: string;
  readonly depends?: readonly string[] | undefined;
}

/**
 * A cycle of `depends`, as the step names along it with the first repeated at the end
 * (`a → b → a`), or undefined. Unknown names are ignored: they are reported on their own.
 * Steps are visited in file order, so the cycle reported is the same on every load.
 */
export function findCycle(steps: readonly GraphStep[]): string[] | undefined {
  const byName = new Map(steps.map((step) => [step.name, step]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const seen = state.get(name);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...path.slice(path.indexOf(name)), name];
    state.set(name, 'visiting');
    path.push(name);
    for (const dependency of byName.get(name)?.depends ?? []) {
      if (!byName.has(dependency)) continue;
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.name);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The steps in an order where every step comes after all it depends on, otherwise in file
 * order. The graph must be acyclic and its names known (checkWorkflow sees to both).
 */
export function runOrder<S extends GraphStep>(steps: readonly S[]): S[] {
  const byName = new Map(steps.map((step) => [step.name, step]));
  const placed = new Set<string>();
  const order: S[] = [];
  const place = (step: S): void => {
    if (placed.has(step.name)) return;
    placed.add(step.name);
    for (const dependency of step.depends ?? []) {
      const before = byName.get(dependency);
      if (before) place(before);
    }
    order.push(step);
  };
  for (const step of steps) place(step);
  return order;
}

/** For each step, every step it depends on directly or through others. The graph must be acyclic. */
export function ancestorsOf(steps: readonly GraphStep[]): Map<string, ReadonlySet<string>> {
  const ancestors = new Map<string, Set<string>>();
  for (const step of runOrder(steps)) {
    const all = new Set<string>();
    for (const dependency of step.depends ?? []) {
      all.add(dependency);
      for (const further of ancestors.get(dependency) ?? []) all.add(further);
    }
    ancestors.set(step.name, all);
  }
  return ancestors;
}
