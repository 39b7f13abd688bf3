import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallStatus } from '../rpc/call-result.js';
import type { DlqKind } from '../dlq/record.js';
import type { RpcMetrics } from './metrics.js';

// Seconds; RPC round trips from sub-millisecond (in-process) to minutes (LLM handlers).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * RpcMetrics as Prometheus series (prom-client), registered on `registry`. Label values
 * are capabilities, statuses, providers and reason codes: bounded sets, so no label
 * explodes with traffic.
 */
export class PrometheusMetrics implements RpcMetrics {
  readonly registry: Registry;
  private readonly calls: Counter<'capability' | 'status'>;
  private readonly callLatency: Histogram<'capability' | 'status'>;
  private readonly handlerLatency: Histogram<'capability' | 'result'>;
  private readonly inFlight: Gauge<'capability'>;
  private readonly pending: Gauge;
  private readonly dlq: Counter<'kind' | 'reason'>;
  private readonly auth: Counter<'provider' | 'decision' | 'reason'>;
  private readonly redeliveries: Counter<'capability'>;
  private readonly duplicates: Counter<'capability'>;
  private readonly unmatched: Counter<'capability'>;

  constructor(options: { registry?: Registry; defaultLabels?: Record<string, string>; processMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    if (options.defaultLabels) this.registry.setDefaultLabels(options.defaultLabels);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.calls = new Counter({ name: 'agent_rpc_calls_total', help: 'Calls made (caller side), by capability and final status.', labelNames: ['capability', 'status'], registers });
    this.callLatency = new Histogram({ name: 'agent_rpc_call_duration_seconds', help: 'Caller-side call latency.', labelNames: ['capability', 'status'], buckets: LATENCY_BUCKETS, registers });
    this.handlerLatency = new Histogram({ name: 'agent_rpc_handler_duration_seconds', help: 'Handler run time (receiver side).', labelNames: ['capability', 'result'], buckets: LATENCY_BUCKETS, registers });
    this.inFlight = new Gauge({ name: 'agent_rpc_handlers_in_flight', help: 'Handlers running now.', labelNames: ['capability'], registers });
    this.pending = new Gauge({ name: 'agent_rpc_pending_calls', help: 'Calls waiting for their response.', registers });
    this.dlq = new Counter({ name: 'agent_rpc_dlq_records_total', help: 'Messages written to the DLQ, by kind and reason.', labelNames: ['kind', 'reason'], registers });
    this.auth = new Counter({ name: 'agent_rpc_auth_decisions_total', help: 'Auth verify decisions, by provider, decision and reason.', labelNames: ['provider', 'decision', 'reason'], registers });
    this.redeliveries = new Counter({ name: 'agent_rpc_redeliveries_total', help: 'Deliveries handed back for redelivery.', labelNames: ['capability'], registers });
    this.duplicates = new Counter({ name: 'agent_rpc_dedupe_hits_total', help: 'Redelivered or duplicated messages recognised and not dispatched again.', labelNames: ['capability'], registers });
    this.unmatched = new Counter({ name: 'agent_rpc_unmatched_responses_total', help: 'Responses for no waiting call.', labelNames: ['capability'], registers });
  }

  callCompleted(capability: string, status: CallStatus, latencyMs: number): void {
    this.calls.inc({ capability, status });
    this.callLatency.observe({ capability, status }, latencyMs / 1000);
  }

  handlerStarted(capability: string): void {
    this.inFlight.inc({ capability });
  }

  handlerCompleted(capability: string, ok: boolean, durationMs: number): void {
    this.inFlight.dec({ capability });
    this.handlerLatency.observe({ capability, result: ok ? 'ok' : 'error' }, durationMs / 1000);
  }

  pendingChanged(size: number): void {
    this.pending.set(size);
  }

  dlqRecorded(kind: DlqKind, reason: string): void {
    this.dlq.inc({ kind, reason });
  }

  authDecision(provider: string, decision: 'accept' | 'reject', reason: string | undefined): void {
    this.auth.inc({ provider, decision, reason: reason ?? '' });
  }

  redeliveryRequested(capability: string): void {
    this.redeliveries.inc({ capability });
  }

  duplicateSkipped(capability: string): void {
    this.duplicates.inc({ capability });
  }

  unmatchedResponse(capability: string): void {
    this.unmatched.inc({ capability });
  }
}
