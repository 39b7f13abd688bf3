import { z } from 'zod';
import type { ModelMessage } from '../model-agents/index.js';
import { RpcError, toRpcError } from '../errors.js';
import { addUsage, NO_USAGE, type Usage } from '../flow-usage.js';
import { derivedContext, reportUsage, tapUsage, MAX_TIMEOUT_MS, type Handler, type HandlerContext } from '../rpc/index.js';
import {
  writeRunRecord,
  runWorkflow,
  StepFailure,
  type WorkflowRunRecord,
  type RunStep,
  type AgentStep,
  type Workflow,
} from '../workflows/index.js';
import type { WorkerStepRunner } from './worker-step.js';

/**
 * Runs an agent step's model agent in the flow of `ctx`, from the messages it was `given`
 * (its dependencies' transcripts) followed by its own; resolves with its final text and its
 * whole transcript, the given messages first.
 */
export type AgentStepRunner = (step: AgentStep, given: readonly ModelMessage[], ctx: HandlerContext) => Promise<{ readonly text: string; readonly transcript: readonly ModelMessage[] }>;

export interface WorkflowHandlerOptions {
  readonly workflow: Workflow;
  /** The agent's data directory: run records go under `runs/<workflow>/`. */
  readonly dataDir: string;
  readonly runAgentStep: AgentStepRunner;
  /** Runs agent steps with `worker:`; without it such a step fails (the agent has no remote nodes). */
  readonly runWorkerStep?: WorkerStepRunner;
  /** Hears where each run's record was written. */
  readonly onRecord?: (path: string, record: WorkflowRunRecord) => void;
}

/** What a workflow capability takes: params overriding the file's, and positional params `$1`…`$9`. */
const inputSchema = z.strictObject({
  params: z.record(z.string(), z.string()).optional(),
  args: z.array(z.string()).max(9).optional(),
});

/**
 * A capability that runs a workflow. Every step runs in the request's flow: call steps are
 * `ctx.requestAgent` calls (permissions, guard, usage roll-up), agent steps are model agents
 * with the request's tools, approvals, budget and cancellation, or with `worker:` run on that
 * remote worker through the remote execution protocol. Each step's start and end is
 * a progress response; the answer is the run record, or for a failed run
 * EAGENTRPC_WORKFLOW_STEP_FAILED with the record in `details.record`. The record is written
 * under the data directory either way.
 */
export function workflowHandler(options: WorkflowHandlerOptions): Handler {
  const { workflow } = options;
  return async (input, ctx) => {
    const parsed = inputSchema.safeParse(input ?? {});
    if (!parsed.success) throw new RpcError('EAGENTRPC_SCHEMA_VIOLATION', `workflow ${workflow.name} takes {params?: {NAME: text}, args?: [text]}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const runStep: RunStep = (step, context) => {
      const usage = { total: NO_USAGE };
      const stepCtx = stepContext(ctx, step.name, context.signal, (spent) => (usage.total = addUsage(usage.total, spent)));
      // What a failed step spent (a worker's usage sent with its failure, a model's before it failed) counts in its record.
      const failed = (error: unknown): never => {
        throw usage.total === NO_USAGE ? error : new StepFailure(error, usage.total);
      };
      return runOneStep(step, context, stepCtx, usage).catch(failed);
    };
    const runOneStep = (step: Parameters<RunStep>[0], context: Parameters<RunStep>[1], stepCtx: HandlerContext, usage: { total: Usage }): ReturnType<RunStep> => {
      if (step.type === 'call') {
        return stepCtx
          .requestAgent({ to: step.to, capability: step.capability, payload: step.payload, ...(step.timeoutMs === undefined ? {} : { timeoutMs: Math.min(step.timeoutMs, MAX_TIMEOUT_MS) }) })
          .then((result) => {
            if (result.status !== 'ok') throw result.error ?? new RpcError('EAGENTRPC_HANDLER_FAILED', `${step.to}/${step.capability} answered ${result.status}`);
            return { output: result.response ?? null, usage: usage.total };
          });
      }
      const given = context.messages;
      if (step.worker !== undefined) {
        // Never run here instead: the step was written to run elsewhere.
        if (!options.runWorkerStep) return Promise.reject(new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `step ${step.name} runs on worker ${step.worker}, and this agent has no remote nodes`, { details: { step: step.name, node: step.worker } }));
        return options.runWorkerStep({ ...step, worker: step.worker }, given, stepCtx).then((result) => ({ ...result, usage: usage.total }));
      }
      return options.runAgentStep(step, given, stepCtx).then((result) => ({
        output: result.text,
        messages: result.transcript.slice(given.length),
        usage: usage.total,
      }));
    };
    let record: WorkflowRunRecord;
    try {
      record = await runWorkflow(workflow, {
        ...(parsed.data.params ? { params: parsed.data.params } : {}),
        ...(parsed.data.args ? { args: parsed.data.args } : {}),
        runStep,
        signal: ctx.signal,
        onEvent: (event) => {
          if (event.type === 'run-finished') return;
          ctx.respond({ ok: true, data: { ...event } }, { progress: true }).catch((error: unknown) => ctx.logger.warn({ err: error }, 'workflow progress not sent'));
        },
      });
    } catch (error) {
      // runWorkflow refuses params that leave a variable undefined, before anything runs.
      if (error instanceof TypeError) throw new RpcError('EAGENTRPC_SCHEMA_VIOLATION', error.message);
      throw error;
    }
    const path = await writeRunRecord(options.dataDir, record);
    options.onRecord?.(path, record);
    ctx.logger.info({ workflow: workflow.name, runId: record.runId, status: record.status, record: path, ...record.usage }, `workflow ${workflow.name} ${record.status}`);
    if (record.status === 'succeeded') return record;
    if (record.status === 'cancelled') {
      // Answered with why it was cancelled (deadline, caller's cancel), and what had run by then.
      const reason = toRpcError(ctx.signal.reason ?? new RpcError('EAGENTRPC_ABANDONED', `workflow ${workflow.name} cancelled`));
      throw new RpcError(reason.code, reason.message, { retriable: reason.retriable, details: { ...reason.details, record }, cause: reason });
    }
    throw new RpcError('EAGENTRPC_WORKFLOW_STEP_FAILED', record.error?.message ?? `workflow ${workflow.name} ${record.status}`, { details: { record } });
  };
}

/**
 * The request's context as one step sees it: aborted with the step, and with every token
 * it spends — its model's and its calls' — counted for the step as well as for the request.
 */
function stepContext(ctx: HandlerContext, step: string, signal: AbortSignal, spend: (usage: Usage) => void): HandlerContext {
  const logger = ctx.logger.child({ step });
  const stepCtx: HandlerContext = {
    envelope: ctx.envelope,
    correlationId: ctx.correlationId,
    from: ctx.from,
    capability: ctx.capability,
    deadline: ctx.deadline,
    attempt: ctx.attempt,
    logger,
    // A step is part of the request's answer, never its own: only the workflow responds.
    respond: () => Promise.reject(new TypeError(`step ${step} cannot respond to the request`)),
    emit: (to, capability, payload) => ctx.emit(to, capability, payload),
    requestAgent: async (call) => {
      const result = await ctx.requestAgent({ ...call, signal: call.signal ?? signal });
      if (result.usage) spend(result.usage);
      return result as never;
    },
    requestApproval: (prompt) => ctx.requestApproval(prompt),
    signal,
  };
  tapUsage(stepCtx, (usage) => {
    spend(usage);
    reportUsage(ctx, usage);
  });
  return derivedContext(stepCtx, ctx);
}
