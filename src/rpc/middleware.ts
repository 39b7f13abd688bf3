import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { CallMode, CallResult } from '../call-result.js';
import type { HandlerContext } from './handler.js';
import type { BrokerEndpoint } from '../transport.js';

/** Runs a capability's handler: returns its value, or a promise of it; throws (or rejects) with its error. */
export type HandlerInvoker = (input: unknown, ctx: HandlerContext) => unknown;

/** Sends one outgoing call through the rest of the send path; resolves with its final outcome (async calls included). */
export type CallSender = (call: OutgoingCall) => Promise<CallResult>;

/**
 * One call on its way out, as the send path's stages and middleware see it. Middleware may
 * replace `payload` and `headers` before handing the call on; the send path fills in
 * `envelope` and `route` once it has built and routed the request, so a middleware reads
 * them after `next` returns (a call refused before that, by permission or guard, has neither).
 */
export interface OutgoingCall {
  /** `agent://<id>` of the target. */
  readonly to: string;
  readonly capability: string;
  payload: unknown;
  readonly mode: CallMode;
  readonly correlationId: string;
  /** The request being handled that this call is part of (its flow's parent), if any. */
  readonly parent: AgentRpcEnvelope | undefined;
  /** Headers the caller gave; the send path adds its own (traceparent, flow) beside them. */
  headers: Record<string, string> | undefined;
  /** The `traceparent` the request carries, when a stage has decided it (tracing): else a child of the caller's or parent's. */
  traceparent: string | undefined;
  /** The request as built (set by the send path). */
  envelope: AgentRpcEnvelope | undefined;
  /** Where it went: transport kind, topic, and the transport's broker when it has one (set by the send path). */
  route: { readonly kind: string; readonly topic: string; readonly broker?: BrokerEndpoint } | undefined;
  /** ms (performance.now) when the call began: a CallResult's latency counts from it. */
  readonly started: number;
}

/**
 * A pipeline stage a node is built with, wrapping its calls once when the node is built —
 * never per call (the way Moleculer's middlewares wrap `localAction` and `remoteAction`):
 * - `handler` wraps each capability's handler, when it is registered: what runs around
 *   every request this node serves (rate limits, redaction, timing, tracing);
 * - `call` wraps the node's send path: what runs around every call this node makes.
 * Either may be left out. A middleware throws an RpcError (or returns a rejected promise)
 * to refuse; the caller receives it as a typed error.
 */
export interface Middleware {
  /** Named in logs and in `npm run bench:stages`. */
  readonly name: string;
  handler?(next: HandlerInvoker, capability: string): HandlerInvoker;
  call?(next: CallSender): CallSender;
  /**
   * A call's request is built (`call.envelope`) and about to be signed and published: a
   * synchronous look (or a header added, which is signed with the rest). Not called for a
   * call refused before that.
   */
  sending?(call: OutgoingCall): void;
}

/** `handler` wrapped by every middleware's `handler`, the first in the list outermost. */
export function composeHandler(middleware: readonly Middleware[], capability: string, handler: HandlerInvoker): HandlerInvoker {
  let invoke = handler;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const wrap = middleware[i]!.handler;
    if (wrap) invoke = wrap.call(middleware[i], invoke, capability);
  }
  return invoke;
}

/** `send` wrapped by every middleware's `call`, the first in the list outermost. */
export function composeSender(middleware: readonly Middleware[], send: CallSender): CallSender {
  let sender = send;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const wrap = middleware[i]!.call;
    if (wrap) sender = wrap.call(middleware[i], sender);
  }
  return sender;
}

/** The `sending` hooks of the list, in its order. */
export function sendingHooks(middleware: readonly Middleware[]): ((call: OutgoingCall) => void)[] {
  return middleware.flatMap((entry) => (entry.sending ? [entry.sending.bind(entry)] : []));
}

/** The middleware list a node is given: checked once, where a mistake can name its entry. */
export function checkMiddleware(list: readonly Middleware[] | undefined): readonly Middleware[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError('AgentNode: middleware must be an array');
  list.forEach((entry: Middleware, index) => {
    if (typeof entry !== 'object' || entry === null || typeof entry.name !== 'string' || entry.name.length === 0) {
      throw new TypeError(`AgentNode: middleware[${index}] must be an object with a name`);
    }
    for (const hook of ['handler', 'call', 'sending'] as const) {
      if (entry[hook] !== undefined && typeof entry[hook] !== 'function') throw new TypeError(`AgentNode: middleware[${index}] (${entry.name}).${hook} must be a function`);
    }
  });
  return list;
}
