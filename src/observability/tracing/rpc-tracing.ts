import { context as otelContext, ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { AgentRpcEnvelope } from '../../envelope/index.js';
import type { RpcError } from '../../errors.js';
import type { BrokerEndpoint, RpcTransport } from '../../transport.js';
import { childTraceparent, newSpanId, parseTraceparent, type TraceParent } from '../../trace-context.js';
import { ATTR, EVENT, messagingAttributes, type MessageFields, messagingSpanName, modelRequestAttributes, modelUsageAttributes, toolCallAttributes, type ModelUsageAttributes } from './attributes.js';

export const TRACER_NAME = 'agent-rpc';
export const TRACER_VERSION = '0.1.0';

// Shared, so starting a span allocates no options object.
const SEND: SpanOptions = { kind: SpanKind.PRODUCER };
const PROCESS: SpanOptions = { kind: SpanKind.CONSUMER };
const INTERNAL: SpanOptions = { kind: SpanKind.INTERNAL };
const CLIENT: SpanOptions = { kind: SpanKind.CLIENT };
const NOT_RECORDED = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/** A tool call's span, ended with its outcome. */
export interface ToolCallTrace {
  end(isError: boolean): void;
}

/**
 * The spans of one node, through `@opentelemetry/api` only: without an SDK registered (or a
 * `tracerProvider` given) no span is started and nothing is built for one; with an SDK,
 * names and attributes are set only on spans that record (sampled). One span per hop: `send` (the
 * caller, PRODUCER, for the whole call), `process` (the receiver, CONSUMER, a child of the
 * caller's `send` through the traceparent it carries), `handle` (the handler run), and for
 * model agents `chat` per model request and `execute_tool` per tool call.
 */
export class RpcTracing {
  /** The global provider, asked on each span whether an SDK has been registered since. */
  readonly #global: ProxyTracerProvider | undefined;
  #tracer: Tracer | undefined;
  /** The span a request's work runs under (its handler, or the tool call running): calls made for it are its children. */
  readonly #active = new WeakMap<AgentRpcEnvelope, Span>();
  /** The process span of each request being handled: its handler's span is a child. */
  readonly #processing = new WeakMap<AgentRpcEnvelope, Span>();

  constructor(provider?: TracerProvider) {
    const source = provider ?? trace.getTracerProvider();
    this.#global = source instanceof ProxyTracerProvider ? source : undefined;
    if (!this.#global) this.#tracer = source.getTracer(TRACER_NAME, TRACER_VERSION);
  }

  /**
   * The tracer, or undefined while no SDK is registered: then nothing at all is started
   * (not even the API's no-op spans and the contexts their parents need) — the hop's spans
   * cost one lookup. Found once an SDK is there, it is kept.
   */
  #live(): Tracer | undefined {
    if (this.#tracer === undefined) this.#tracer = this.#global?.getDelegateTracer(TRACER_NAME, TRACER_VERSION);
    return this.#tracer;
  }

  /**
   * Whether spans can record now: a provider was given or an SDK is registered. A node
   * puts its tracing stages in its pipeline only then, so the SDK is registered before
   * nodes are built (`agent-rpc serve` does so from agent.yaml `tracing:`).
   */
  get recording(): boolean {
    return this.#live() !== undefined;
  }

  /**
   * A call's span, started before it is checked so refusals are recorded on it. Its parent:
   * the caller's own traceparent when it gave one, else the span the calling request's work
   * runs under, else that request's traceparent, else the active context.
   */
  startSend(parent: AgentRpcEnvelope | undefined, explicit: TraceParent | undefined): Span {
    const tracer = this.#live();
    return tracer ? tracer.startSpan('send', SEND, this.#sendParent(parent, explicit)) : NOT_RECORDED;
  }

  /**
   * Names the call's span once the destination is known (before the guard, so its refusals
   * are named too), with the broker the call goes through when its transport has one.
   */
  describeSend(span: Span, system: string, destination: string, message: MessageFields, broker: BrokerEndpoint | undefined): void {
    if (!span.isRecording()) return;
    span.updateName(messagingSpanName('send', destination));
    span.setAttributes(messagingAttributes('send', system, destination, message, broker));
  }

  /** The request built: its message id and kind. */
  sending(span: Span, envelope: AgentRpcEnvelope): void {
    if (span.isRecording()) span.setAttributes({ [ATTR.messagingMessageId]: envelope.messageId, [ATTR.kind]: envelope.kind });
  }

  /**
   * The traceparent a request carries: the call span's own id when it records, so the
   * receiver's process span is its child; when the span is sampled out, an unsampled child
   * (so the next hop drops it too); without an SDK, a child of `inherited` as always.
   */
  outgoingTraceparent(span: Span, inherited: string | undefined): string {
    const own = span.spanContext();
    if (span.isRecording()) return `00-${own.traceId}-${own.spanId}-${own.traceFlags & 1 ? '01' : '00'}`;
    if ((own.traceFlags & 1) === 0 && trace.isSpanContextValid(own)) return `00-${own.traceId}-${newSpanId()}-00`;
    return childTraceparent(inherited);
  }

  /** Ends a call's span with its outcome. */
  endSend(span: Span, status: string, error: RpcError | undefined): void {
    if (span.isRecording()) {
      span.setAttribute(ATTR.callStatus, status);
      if (error) recordError(span, error);
    }
    span.end();
  }

  /**
   * The receiver's span for a request or event, a child of the span named by its
   * traceparent; `via` is the transport it came through, whose broker is read only for a span
   * that records.
   */
  startProcess(envelope: AgentRpcEnvelope, system: string, destination: string, via?: Pick<RpcTransport, 'brokerEndpoint'>): Span {
    const tracer = this.#live();
    if (!tracer) return NOT_RECORDED;
    const remote = parseTraceparent(envelope.headers?.['traceparent']);
    const span = tracer.startSpan('process', PROCESS, remote ? remoteContext(remote) : ROOT_CONTEXT);
    if (span.isRecording()) {
      span.updateName(messagingSpanName('process', destination));
      span.setAttributes(messagingAttributes('process', system, destination, envelope, via?.brokerEndpoint));
      this.#processing.set(envelope, span);
    }
    return span;
  }

  /** The handler run's span, under the request's process span; calls the handler makes are its children. */
  startHandler(envelope: AgentRpcEnvelope, attempt: number): Span {
    const processSpan = this.#processing.get(envelope);
    if (!processSpan?.isRecording()) return NOT_RECORDED;
    const span = this.#live()!.startSpan(`handle ${envelope.capability}`, INTERNAL, trace.setSpan(ROOT_CONTEXT, processSpan));
    span.setAttributes({ [ATTR.capability]: envelope.capability, [ATTR.from]: envelope.from, [ATTR.to]: envelope.to, [ATTR.attempt]: attempt });
    this.#active.set(envelope, span);
    return span;
  }

  /** Runs `fn` with the handler's span active, so OpenTelemetry instrumentation inside the handler nests under it. */
  withSpan<T>(span: Span, fn: () => T): T {
    return span.isRecording() ? otelContext.with(trace.setSpan(otelContext.active(), span), fn) : fn();
  }

  endHandler(span: Span, envelope: AgentRpcEnvelope, error: RpcError | undefined): void {
    if (!span.isRecording()) return;
    if (error) recordError(span, error);
    this.#active.delete(envelope);
    span.end();
  }

  /** A model request of a model agent handling `request` (`chat <model>`, CLIENT). */
  startModelRequest(request: AgentRpcEnvelope, modelId: string, provider: string, model: string): Span {
    const parent = this.#active.get(request);
    if (!parent) return NOT_RECORDED;
    const span = this.#live()!.startSpan(`chat ${model}`, CLIENT, trace.setSpan(ROOT_CONTEXT, parent));
    span.setAttributes(modelRequestAttributes(modelId, provider, model));
    return span;
  }

  endModelRequest(span: Span, usage: ModelUsageAttributes | undefined, costUsd: number, stopReason: string | undefined, error?: RpcError): void {
    if (!span.isRecording()) return;
    if (usage) span.setAttributes(modelUsageAttributes(usage, costUsd, stopReason));
    if (error) recordError(span, error);
    span.end();
  }

  /** A tool call of a model agent: while it runs, calls made for `request` are its children. */
  startToolCall(request: AgentRpcEnvelope, name: string, callId: string): ToolCallTrace {
    const parent = this.#active.get(request);
    if (!parent) return NO_TOOL_CALL;
    const span = this.#live()!.startSpan(`execute_tool ${name}`, INTERNAL, trace.setSpan(ROOT_CONTEXT, parent));
    span.setAttributes(toolCallAttributes(name, callId));
    this.#active.set(request, span);
    return {
      end: (isError) => {
        span.setAttribute(ATTR.toolOutcome, isError ? 'error' : 'ok');
        if (isError) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        if (this.#active.get(request) === span) this.#active.set(request, parent);
      },
    };
  }

  /** The guard refused a call or a delivery. */
  guardRefused(span: Span | undefined, rule: string, from: string, to: string): void {
    if (span?.isRecording()) span.addEvent(EVENT.guardRefused, { [ATTR.rule]: rule, [ATTR.from]: from, [ATTR.to]: to });
  }

  /** The caller's permissions do not allow the call. */
  permissionDenied(span: Span, to: string, capability: string): void {
    if (span.isRecording()) span.addEvent(EVENT.permissionDenied, { [ATTR.to]: to, [ATTR.capability]: capability });
  }

  /** A message was kept in the DLQ. */
  dlqRecorded(span: Span | undefined, kind: string, reason: string): void {
    if (span?.isRecording()) span.addEvent(EVENT.dlqRecorded, { [ATTR.dlqKind]: kind, [ATTR.dlqReason]: reason });
  }

  /** A refusal or rejection of a delivery, or a request answered with an error: its process span ends in error. */
  failed(span: Span | undefined, error: ErrorFields): void {
    if (span?.isRecording()) recordError(span, error);
  }

  /** A handler asked for approval / got its answer: events on the span its work runs under. */
  approvalRequested(request: AgentRpcEnvelope, type: string): void {
    this.#active.get(request)?.addEvent(EVENT.approvalRequested, { [ATTR.approvalType]: type });
  }

  approvalAnswered(request: AgentRpcEnvelope, approved: boolean, reason: string | undefined): void {
    const span = this.#active.get(request);
    if (!span) return;
    const attributes: Attributes = { [ATTR.approvalApproved]: approved };
    if (reason !== undefined) attributes[ATTR.approvalReason] = reason;
    span.addEvent(EVENT.approvalAnswered, attributes);
  }

  #sendParent(parent: AgentRpcEnvelope | undefined, explicit: TraceParent | undefined): Context {
    if (explicit) return remoteContext(explicit);
    const active = parent && this.#active.get(parent);
    if (active) return trace.setSpan(ROOT_CONTEXT, active);
    const inherited = parent && parseTraceparent(parent.headers?.['traceparent']);
    if (inherited) return remoteContext(inherited);
    return otelContext.active();
  }
}

const NO_TOOL_CALL: ToolCallTrace = { end: () => undefined };

function remoteContext(parent: TraceParent): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.parentId, traceFlags: Number.parseInt(parent.flags, 16), isRemote: true });
}

/** What a span records of a failure: an RpcError, or one as it crosses the wire. */
interface ErrorFields {
  readonly code: string;
  readonly message: string;
}

/** `error.type` is the stable EAGENTRPC_* code; the status carries the message. */
function recordError(span: Span, error: ErrorFields): void {
  span.setAttribute(ATTR.errorType, error.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}
