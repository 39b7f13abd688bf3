import type { Clock } from '../clock.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { FlowCallIdentity, FlowObserver } from '../observability/index.js';
import type { CallResult } from '../call-result.js';
import { usageCausedBy, type Usage } from '../flow-usage.js';
import type { CallerSide, FlowCall, FlowUsage, HandlerSide } from './flow-record.js';

const PENDING: CallerSide = { status: 'pending' };
import type { FlowRecordStore } from './flow-record-store.js';
import { sampler } from './sampling.js';

export interface FlowRecorderOptions {
  readonly store: FlowRecordStore;
  readonly clock: Clock;
  /** Share of flows recorded, decided per correlationId (every daemon picks the same flows). Default 1. */
  readonly sampleRatio?: number;
  /** Hears each call record after it changed (the flows topic publisher). */
  readonly publish?: (call: FlowCall) => void;
}

/**
 * Turns the node's call events into flow records in a FlowRecordStore: one record per call,
 * filled by the caller side (sent, settled) and the receiver side (handler began, ended,
 * refused, dead-lettered). One recorder serves every agent of a process.
 */
export class FlowRecorder implements FlowObserver {
  private readonly store: FlowRecordStore;
  private readonly clock: Clock;
  private readonly sampled: (correlationId: string) => boolean;
  private readonly publish: ((call: FlowCall) => void) | undefined;
  private refusedSeq = 0;

  constructor(options: FlowRecorderOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.sampled = sampler(options.sampleRatio ?? 1);
    this.publish = options.publish;
  }

  callStarted(envelope: AgentRpcEnvelope): void {
    if (!this.sampled(envelope.correlationId)) return;
    const record = this.record(envelope, envelope.messageId, this.clock.now());
    record.call = PENDING;
    this.put(record);
  }

  callEnded(call: FlowCallIdentity, result: CallResult): void {
    if (!this.sampled(call.correlationId)) return;
    const id = call.messageId ?? `refused:${++this.refusedSeq}`;
    const usage = result.usage === undefined ? undefined : compactUsage(result.usage);
    const errorCode = result.error?.code;
    const side: { -readonly [K in keyof CallerSide]: CallerSide[K] } = { status: result.status, latencyMs: result.latencyMs };
    if (errorCode !== undefined) side.errorCode = errorCode;
    if (usage) side.usage = usage;
    const record = this.record(call, id, this.clock.now() - result.latencyMs);
    record.call = side;
    this.put(record);
  }

  handlerStarted(request: AgentRpcEnvelope): void {
    if (!this.sampled(request.correlationId)) return;
    const now = this.clock.now();
    const record = this.record(request, request.messageId, now);
    record.handler = { status: 'running', startedAt: now };
    this.put(record);
  }

  handlerEnded(request: AgentRpcEnvelope, errorCode: string | undefined, durationMs: number): void {
    if (!this.sampled(request.correlationId)) return;
    const startedAt = this.clock.now() - durationMs;
    const caused = usageCausedBy(request);
    const handler: { -readonly [K in keyof HandlerSide]: HandlerSide[K] } = { status: errorCode === undefined ? 'ok' : 'error', startedAt, durationMs };
    if (errorCode !== undefined) handler.errorCode = errorCode;
    if (caused) handler.usage = compactUsage(caused);
    const record = this.record(request, request.messageId, startedAt);
    record.handler = handler;
    this.put(record);
  }

  requestRefused(request: AgentRpcEnvelope, _kind: string, errorCode: string): void {
    if (!this.sampled(request.correlationId)) return;
    const record = this.record(request, request.messageId, this.clock.now());
    record.handler = { status: 'refused', errorCode };
    this.put(record);
  }

  deadLettered(envelope: AgentRpcEnvelope, kind: string, reason: string): void {
    // A response's DLQ record (late, unmatched) says nothing new about its call.
    if (envelope.kind === 'response' || !this.sampled(envelope.correlationId)) return;
    const known = this.store.get(envelope.correlationId)?.calls.get(envelope.messageId)?.handler;
    const handler: HandlerSide = known ? { ...known, dlq: kind } : { status: 'refused', errorCode: reason, dlq: kind };
    const record = this.record(envelope, envelope.messageId, this.clock.now());
    record.handler = handler;
    this.put(record);
  }

  /** The fields every record of a call has; `extra` completes it (built without spreads: this runs per event). */
  private record(call: FlowCallIdentity, id: string, startedAt: number): { -readonly [K in keyof FlowCall]: FlowCall[K] } {
    const record: { -readonly [K in keyof FlowCall]: FlowCall[K] } = { id, correlationId: call.correlationId, from: bareId(call.from), to: bareId(call.to), capability: call.capability, startedAt };
    if (call.causedBy !== undefined) record.causedBy = call.causedBy;
    if (call.kind === 'event') record.kind = 'event';
    return record;
  }

  private put(call: FlowCall): void {
    const stored = this.store.put(call);
    if (stored && this.publish) this.publish(stored);
  }
}

function compactUsage(usage: Usage): FlowUsage {
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd };
}

/** `agent://x` → `x`; never throws (an observer must not break the call it watches). */
function bareId(uri: string): string {
  return uri.startsWith('agent://') ? uri.slice(8) : uri;
}
