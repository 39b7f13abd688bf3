import { ancestorsOf, findCycle } from './workflow-graph.js';
import { referencesIn, referenceText } from './substitute.js';
import type { Workflow, WorkflowStep } from './workflow-schema.js';

/** A mistake in a workflow that its schema cannot see, at the path of the field it is in. */
export interface WorkflowProblem {
  readonly path: readonly PropertyKey[];
  readonly problem: string;
}

export interface WorkflowCheckOptions {
  /** Names of params given when the workflow is run (`--param NAME=VALUE`): defined besides the file's `params`. */
  readonly params?: readonly string[];
  /** How many positional params (`$1`…`$9`) the run is given. Default 0. */
  readonly args?: number;
  /** The remote workers a step may name; any name when omitted. */
  readonly workers?: readonly string[];
}

/**
 * The first problem of a schema-valid workflow, in the order a reader would fix them:
 * names, depends, cycles, worker fields, workers, then variables. Undefined when there is none.
 */
export function checkWorkflow(workflow: Workflow, options: WorkflowCheckOptions = {}): WorkflowProblem | undefined {
  const { steps } = workflow;
  const index = new Map<string, number>();
  const producer = new Map<string, number>();
  for (const [i, step] of steps.entries()) {
    const first = index.get(step.name);
    if (first !== undefined) return { path: ['steps', i, 'name'], problem: `step ${step.name} is already defined by steps[${first}]` };
    index.set(step.name, i);
    if (step.output === undefined) continue;
    const other = producer.get(step.output);
    if (other !== undefined) return { path: ['steps', i, 'output'], problem: `${step.output} is already the output of step ${steps[other]!.name}` };
    if (Object.hasOwn(workflow.params, step.output)) return { path: ['steps', i, 'output'], problem: `${step.output} is already a param` };
    producer.set(step.output, i);
  }
  for (const [i, step] of steps.entries()) {
    for (const [k, dependency] of (step.depends ?? []).entries()) {
      if (!index.has(dependency)) return { path: ['steps', i, 'depends', k], problem: `unknown step ${dependency}; the steps are ${[...index.keys()].join(', ')}` };
    }
  }
  const cycle = findCycle(steps);
  if (cycle) {
    const [from, to] = cycle as [string, string];
    const i = index.get(from)!;
    return { path: ['steps', i, 'depends', steps[i]!.depends!.indexOf(to)], problem: `cycle: ${cycle.join(' → ')}` };
  }
  for (const [i, step] of steps.entries()) {
    if (step.type !== 'agent' || step.worker !== undefined) continue;
    // Both name something on a worker: without one they would be silently ignored.
    for (const field of ['agentId', 'capability'] as const) {
      if (step[field] !== undefined) return { path: ['steps', i, field], problem: `${field} names what a worker runs: only a step with worker has one` };
    }
  }
  if (options.workers) {
    for (const [i, step] of steps.entries()) {
      if (step.type === 'agent' && step.worker !== undefined && !options.workers.includes(step.worker)) {
        const known = options.workers.length === 0 ? 'no workers are configured' : `the workers are ${options.workers.join(', ')}`;
        return { path: ['steps', i, 'worker'], problem: `unknown worker ${step.worker}; ${known}` };
      }
    }
  }
  const ancestors = ancestorsOf(steps);
  const given = new Set(options.params ?? []);
  const args = options.args ?? 0;
  for (const [i, step] of steps.entries()) {
    for (const { path, text } of substitutedStrings(step)) {
      for (const name of referencesIn(text)) {
        if (/^[1-9]$/.test(name)) {
          if (Number(name) > args) return { path: ['steps', i, ...path], problem: `${referenceText(name)} is not given: the run has ${args} positional param${args === 1 ? '' : 's'}` };
          continue;
        }
        if (Object.hasOwn(workflow.params, name) || given.has(name)) continue;
        const from = producer.get(name);
        if (from === undefined) return { path: ['steps', i, ...path], problem: `undefined variable ${referenceText(name)}: not a param and no step's output` };
        const source = steps[from]!.name;
        if (source === step.name) return { path: ['steps', i, ...path], problem: `${referenceText(name)} is this step's own output` };
        if (!ancestors.get(step.name)!.has(source)) {
          return { path: ['steps', i, ...path], problem: `${referenceText(name)} is the output of step ${source}, which this step does not depend on: add it to depends` };
        }
      }
    }
  }
  return undefined;
}

/** Every string of a step that variables are substituted into, with its path inside the step. */
export function substitutedStrings(step: WorkflowStep): Array<{ path: PropertyKey[]; text: string }> {
  if (step.type === 'agent') return step.messages.map((message, m) => ({ path: ['messages', m, 'content'], text: message.content }));
  const out: Array<{ path: PropertyKey[]; text: string }> = [];
  const walk = (value: unknown, path: PropertyKey[]): void => {
    if (typeof value === 'string') out.push({ path, text: value });
    else if (Array.isArray(value)) value.forEach((item, k) => walk(item, [...path, k]));
    else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(step.payload, ['payload']);
  return out;
}
