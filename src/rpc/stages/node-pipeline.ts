import { noFlows, noMetrics } from '../../observability/index.js';
import type { Handler } from '../handler.js';
import { composeHandler, composeSender, sendingHooks, type CallSender, type HandlerInvoker, type Middleware } from '../middleware.js';
import type { InboxCore } from '../node-core.js';
import type { CallState } from '../outgoing-call.js';
import { callResult, sendCall, sendStages, type SendStage } from '../send-stages.js';
import type { CallResult } from '../../call-result.js';
import { toRpcError } from '../../errors.js';
import { timedStages, type StageTimes } from '../stage-runner.js';
import { flowStage } from './flow-stage.js';
import { implicitFlowStage } from './implicit-flow-stage.js';
import { metricsStage } from './metrics-stage.js';
import { checkedHandler } from './output-schema-stage.js';
import { tracingStage } from './tracing-stage.js';

/** A node's pipeline around its handlers and its calls, assembled once when it is built. */
export interface NodePipeline {
  /** Every stage wrapping handlers and calls, outermost first: the node's own, then the user's. */
  readonly middleware: readonly Middleware[];
  readonly sendStages: readonly SendStage[];
  /** The send path with every middleware's `call` around it. */
  readonly send: CallSender;
  readonly sending: readonly ((call: CallState) => void)[];
}

/**
 * The stages a node runs, from what it has on: metrics when it reports them, flow recording
 * when something records flows, spans when a tracer is there, the flow context unless
 * `implicitFlow` is off; then the user's middleware, innermost nearest the handler.
 */
export function nodeMiddleware(core: InboxCore, user: readonly Middleware[]): Middleware[] {
  const own: (Middleware | false)[] = [
    core.metrics !== noMetrics && metricsStage(core.metrics),
    core.flows !== noFlows && flowStage(core.flows, core.uri),
    core.tracing.recording && tracingStage(core.tracing, core.uri),
    core.implicitFlow && implicitFlowStage(core.uri),
  ];
  return [...own.filter((stage): stage is Middleware => stage !== false), ...user.map(settlingRefusals)];
}

/** A user's call wrapper that throws or rejects refuses the call: the caller gets a CallResult with that error, as for every other refusal. */
function settlingRefusals(entry: Middleware): Middleware {
  const wrap = entry.call;
  if (!wrap) return entry;
  return {
    name: entry.name,
    ...(entry.handler ? { handler: entry.handler.bind(entry) } : {}),
    ...(entry.sending ? { sending: entry.sending.bind(entry) } : {}),
    call: (next) => {
      const sender = wrap.call(entry, next);
      return (call) => {
        let sent: Promise<CallResult>;
        try {
          sent = sender(call);
        } catch (error) {
          sent = Promise.reject(error);
        }
        return sent.catch((error: unknown) => callResult(call as CallState, { ok: false, error: toRpcError(error) }, undefined));
      };
    },
  };
}

export function buildPipeline(core: InboxCore, middleware: readonly Middleware[], times?: StageTimes): NodePipeline {
  const stages = times ? timedStages('send', sendStages(core), times) : sendStages(core);
  return {
    middleware,
    sendStages: stages,
    send: composeSender(middleware, (call) => sendCall(core, stages, call as CallState)),
    sending: sendingHooks(middleware) as ((call: CallState) => void)[],
  };
}

/** A capability's handler as the receive path runs it: output-checked, inside every middleware's `handler`. */
export function pipelineHandler(core: InboxCore, middleware: readonly Middleware[], capability: string, handler: Handler): HandlerInvoker {
  return composeHandler(middleware, capability, checkedHandler(core.schemas, capability, handler as HandlerInvoker));
}
