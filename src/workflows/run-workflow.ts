import type { ModelMessage } from '../model-agents/index.js';
import { newMessageId } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import { addUsage, NO_USAGE, type Usage } from '../flow-usage.js';
import { checkWorkflow } from './check-workflow.js';
import { fieldPath } from '../yaml/index.js';
import type { StepRecord, WorkflowRunRecord } from './run-record.js';
import { substitute, substituteJson, variableText, type Variables } from './substitute.js';
import { ancestorsOf, runOrder } from './workflow-graph.js';
import type { Workflow, WorkflowStep } from './workflow-schema.js';

/** What a step gives back: its output, and for agent steps the messages it added and what it spent. */
export interface StepResult {
  /** A string becomes the output variable as it is; any other JSON value as JSON text. */
  readonly output: unknown;
  /** The messages this step added to the conversation (its own and the model's), without those it was given. */
  readonly messages?: readonly ModelMessage[];
  readonly usage?: Usage;
}

/**
 * A step's failure with what the step spent before it failed: a RunStep rejects with it so
 * that the failed step's record, and the run's total, count that usage too.
 */
export class StepFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly usage: Usage,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = 'StepFailure';
  }
}

export interface RunStepContext {
  /** Every variable the step may use: params, run-time params, `1`…`9`, and its ancestors' outputs. */
  readonly variables: Variables;
  /** For an agent step: the transcripts of the agent steps it depends on, directly or not, ancestors first. Empty for call steps. */
  readonly messages: readonly ModelMessage[];
  /** Aborted when the step times out (reason: EAGENTRPC_WORKFLOW_STEP_TIMEOUT) or the run is cancelled (reason: the run signal's). */
  readonly signal: AbortSignal;
}

/** Runs one step: a model agent or a call. `step` comes with its variables already substituted. */
export type RunStep = (step: WorkflowStep, context: RunStepContext) => Promise<StepResult>;

export type WorkflowEvent =
  | { readonly type: 'step-started'; readonly runId: string; readonly step: { readonly name: string; readonly type: WorkflowStep['type']; readonly startedAt: string } }
  | { readonly type: 'step-finished'; readonly runId: string; readonly step: StepRecord }
  | { readonly type: 'run-finished'; readonly runId: string; readonly record: WorkflowRunRecord };

export interface RunWorkflowOptions {
  /** Named params for this run; they override the file's `params`. */
  readonly params?: Readonly<Record<string, string>>;
  /** Positional params, `$1`…`$9`. */
  readonly args?: readonly string[];
  readonly runStep: RunStep;
  /** Hears every step start and end and the run's end. Must not throw: an exception from it is ignored. */
  readonly onEvent?: (event: WorkflowEvent) => void;
  /** Cancels the run: running steps are aborted, steps not started never start. */
  readonly signal?: AbortSignal;
  /** Milliseconds since the epoch; `Date.now` by default. */
  readonly now?: () => number;
}

interface StepState {
  readonly step: WorkflowStep;
  record: StepRecord | undefined;
  started: number | undefined;
  controller: AbortController | undefined;
  timer: NodeJS.Timeout | undefined;
  /** For a step that did not succeed: the step whose failure it comes from. */
  rootFailure: string | undefined;
  transcript: readonly ModelMessage[];
}

/**
 * Runs a workflow's steps as a DAG: each starts as soon as everything it depends on has
 * succeeded, steps that do not depend on each other run at the same time. A step that fails
 * skips its dependants (`dependency <name> failed`) and fails the run; steps on other
 * branches still run. Resolves with the run record once every step has ended; never rejects
 * for a step's failure. Rejects with a TypeError, before anything runs, for a workflow that does not
 * check or params that leave a variable undefined.
 */
export async function runWorkflow(workflow: Workflow, options: RunWorkflowOptions): Promise<WorkflowRunRecord> {
  const runParams = options.params ?? {};
  const args = options.args ?? [];
  const problem = checkWorkflow(workflow, { params: Object.keys(runParams), args: args.length });
  if (problem) throw new TypeError(`runWorkflow: workflow ${workflow.name}: ${fieldPath(problem.path)}: ${problem.problem}`);
  const outputs = new Set(workflow.steps.flatMap((step) => (step.output === undefined ? [] : [step.output])));
  for (const name of Object.keys(runParams)) {
    if (outputs.has(name)) throw new TypeError(`runWorkflow: param ${name} is the output variable of a step`);
  }

  const now = options.now ?? Date.now;
  const iso = (ms: number): string => new Date(ms).toISOString();
  const runId = newMessageId();
  const startedAt = now();
  const params: Record<string, string> = { ...workflow.params, ...runParams };
  const base: Record<string, string> = { ...params };
  args.slice(0, 9).forEach((value, i) => (base[String(i + 1)] = value));

  const order = runOrder(workflow.steps);
  const ancestors = ancestorsOf(workflow.steps);
  const states = new Map<string, StepState>(workflow.steps.map((step) => [step.name, { step, record: undefined, started: undefined, controller: undefined, timer: undefined, rootFailure: undefined, transcript: [] }]));
  const variables = new Map<string, string>();
  let firstFailure: { step: string; code: string } | undefined;
  let cancelled = false;

  const emit = (event: WorkflowEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's bug must not leave steps unfinished or the run unresolved.
    }
  };

  let finish!: (record: WorkflowRunRecord) => void;
  const done = new Promise<WorkflowRunRecord>((resolve) => (finish = resolve));

  const end = (state: StepState, record: StepRecord): void => {
    if (state.record) return;
    state.record = record;
    if (state.timer) clearTimeout(state.timer);
    if (record.status === 'failed' && firstFailure === undefined) firstFailure = { step: record.name, code: record.error!.code };
    emit({ type: 'step-finished', runId, step: record });
  };

  const timesOf = (state: StepState): Pick<StepRecord, 'startedAt' | 'finishedAt' | 'durationMs'> => {
    if (state.started === undefined) return {};
    const finished = now();
    return { startedAt: iso(state.started), finishedAt: iso(finished), durationMs: finished - state.started };
  };

  const start = (state: StepState): void => {
    const { step } = state;
    const visible: Record<string, string> = { ...base };
    const transcript: ModelMessage[] = [];
    for (const other of order) {
      if (!ancestors.get(step.name)!.has(other.name)) continue;
      if (other.output !== undefined) visible[other.output] = variables.get(other.output)!;
      if (step.type === 'agent') transcript.push(...states.get(other.name)!.transcript);
    }
    const controller = new AbortController();
    state.controller = controller;
    state.started = now();
    emit({ type: 'step-started', runId, step: { name: step.name, type: step.type, startedAt: iso(state.started) } });
    if (step.timeoutMs !== undefined) {
      const timeoutMs = step.timeoutMs;
      state.timer = setTimeout(() => {
        const error = new RpcError('EAGENTRPC_WORKFLOW_STEP_TIMEOUT', `step ${step.name} did not finish within ${timeoutMs} ms`, { details: { step: step.name, timeoutMs } });
        controller.abort(error);
        fail(state, error);
      }, timeoutMs);
    }
    let resolved: WorkflowStep;
    try {
      resolved = step.type === 'agent' ? { ...step, messages: step.messages.map((message) => ({ ...message, content: substitute(message.content, visible) })) } : { ...step, payload: substituteJson(step.payload, visible) as typeof step.payload };
    } catch (error) {
      fail(state, error);
      return;
    }
    // Settled on whatever comes first: the step's answer, its timeout or the run's cancellation; a late answer is dropped.
    void Promise.resolve()
      .then(() => options.runStep(resolved, { variables: visible, messages: transcript, signal: controller.signal }))
      .then(
        (result) => {
          if (state.record) return;
          let text: string;
          try {
            text = variableText(result.output);
          } catch (error) {
            fail(state, error);
            return;
          }
          if (step.output !== undefined) variables.set(step.output, text);
          state.transcript = result.messages ?? [];
          end(state, { name: step.name, type: step.type, status: 'succeeded', ...timesOf(state), ...(result.output === undefined ? {} : { output: result.output }), ...(result.usage ? { usage: result.usage } : {}) });
          schedule();
        },
        (error: unknown) => fail(state, error),
      );
  };

  const fail = (state: StepState, thrown: unknown): void => {
    if (state.record) return;
    const { name, type } = state.step;
    if (cancelled) {
      end(state, { name, type, status: 'cancelled', ...timesOf(state), reason: 'run cancelled' });
    } else {
      const spent = thrown instanceof StepFailure ? thrown.usage : undefined;
      const error = toRpcError(thrown instanceof StepFailure ? thrown.error : thrown);
      state.rootFailure = name;
      end(state, { name, type, status: 'failed', ...timesOf(state), ...(spent ? { usage: spent } : {}), error: { code: error.code, message: error.message } });
    }
    schedule();
  };

  // Starts every step whose depends all succeeded and skips every step one of whose depends did not; ends the run when nothing is left.
  const schedule = (): void => {
    for (const step of order) {
      const state = states.get(step.name)!;
      if (state.record || state.controller) continue;
      if (cancelled) {
        end(state, { name: step.name, type: step.type, status: 'cancelled', reason: 'run cancelled' });
        continue;
      }
      const depends = (step.depends ?? []).map((name) => states.get(name)!);
      const broken = depends.find((dependency) => dependency.record !== undefined && dependency.record.status !== 'succeeded');
      if (broken) {
        state.rootFailure = broken.rootFailure ?? broken.step.name;
        end(state, { name: step.name, type: step.type, status: 'skipped', reason: `dependency ${state.rootFailure} failed` });
        continue;
      }
      if (depends.every((dependency) => dependency.record?.status === 'succeeded')) start(state);
    }
    if ([...states.values()].every((state) => state.record)) complete();
  };

  let completed = false;
  const complete = (): void => {
    if (completed) return;
    completed = true;
    options.signal?.removeEventListener('abort', onAbort);
    const finishedAt = now();
    const steps = workflow.steps.map((step) => states.get(step.name)!.record!);
    const usage = steps.reduce((sum, step) => (step.usage ? addUsage(sum, step.usage) : sum), NO_USAGE);
    const status = cancelled ? 'cancelled' : steps.every((step) => step.status === 'succeeded') ? 'succeeded' : 'failed';
    const error =
      status === 'failed' && firstFailure
        ? { code: 'EAGENTRPC_WORKFLOW_STEP_FAILED', message: `step ${firstFailure.step} failed (${firstFailure.code})`, details: { step: firstFailure.step, cause: firstFailure.code } }
        : undefined;
    const record: WorkflowRunRecord = { version: 1, workflow: workflow.name, runId, status, startedAt: iso(startedAt), finishedAt: iso(finishedAt), durationMs: finishedAt - startedAt, params, args: [...args], steps, usage, ...(error ? { error } : {}) };
    emit({ type: 'run-finished', runId, record });
    finish(record);
  };

  const onAbort = (): void => {
    if (completed || cancelled) return;
    cancelled = true;
    const reason: unknown = options.signal?.reason;
    for (const state of states.values()) {
      if (state.record || !state.controller) continue;
      state.controller.abort(reason);
      fail(state, reason);
    }
    schedule();
  };

  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  schedule();
  return done;
}
