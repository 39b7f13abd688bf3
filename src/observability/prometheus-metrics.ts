import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallStatus } from '../call-result.js';
import type { DlqKind } from '../dlq/index.js';
import type { RpcMetrics } from './metrics.js';
import { HistogramMetric, perLabel, perLabels, ValueMetric, type HistogramSeries, type ValueSeries } from './series-metrics.js';

// Seconds; RPC round trips from sub-millisecond (in-process) to minutes (LLM handlers).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * RpcMetrics as Prometheus series (prom-client), registered on `registry`. Every series
 * carries the agent's id (`forAgent`), so agents sharing a process share one registry.
 * Label values are agent ids, capabilities, statuses, providers and reason codes: bounded
 * sets, so no label explodes with traffic. The series every call touches (calls, latencies,
 * handlers in flight, pending calls, auth decisions, chain depth) are series-metrics.ts
 * types, whose label sets each hook resolves once; the rest are prom-client's own.
 */
export class PrometheusMetrics {
  readonly registry: Registry;
  private readonly calls: ValueMetric;
  private readonly callLatency: HistogramMetric;
  private readonly handlerLatency: HistogramMetric;
  private readonly inFlight: ValueMetric;
  private readonly pending: ValueMetric;
  private readonly dlq: Counter<'agent' | 'kind' | 'reason'>;
  private readonly dlqDrops: Counter<'agent' | 'reason'>;
  private readonly auth: ValueMetric;
  private readonly redeliveries: Counter<'agent' | 'capability'>;
  private readonly duplicates: Counter<'agent' | 'capability'>;
  private readonly unmatched: Counter<'agent' | 'capability'>;
  private readonly lateResults: Counter<'agent' | 'capability'>;
  private readonly agentCalls: HistogramMetric;
  private readonly longestChain: ValueMetric;
  private readonly guardRejections: Counter<'agent' | 'rule'>;
  private readonly guardWarnings: Counter<'agent' | 'kind'>;
  private readonly authWarnings: Counter<'agent' | 'kind'>;
  private readonly transportDrops: Counter<'agent' | 'transport' | 'reason'>;
  private readonly transportCommitFailures: Counter<'agent' | 'transport'>;
  private readonly transportReconnects: Counter<'agent' | 'transport'>;
  private readonly modelTokens: Counter<'agent' | 'model' | 'kind'>;
  private readonly modelCost: Counter<'agent' | 'model'>;
  private readonly toolCalls: Counter<'agent' | 'tool' | 'outcome'>;
  private readonly policyDecisions: Counter<'agent' | 'action' | 'rule'>;

  constructor(options: { registry?: Registry; processMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.calls = new ValueMetric('counter', { name: 'agent_rpc_calls_total', help: 'Calls made (caller side), by capability and final status.', labelNames: ['agent', 'capability', 'status'], registers });
    this.callLatency = new HistogramMetric({ name: 'agent_rpc_call_duration_seconds', help: 'Caller-side call latency.', labelNames: ['agent', 'capability', 'status'], buckets: LATENCY_BUCKETS, registers });
    this.handlerLatency = new HistogramMetric({ name: 'agent_rpc_handler_duration_seconds', help: 'Handler run time (receiver side).', labelNames: ['agent', 'capability', 'result'], buckets: LATENCY_BUCKETS, registers });
    this.inFlight = new ValueMetric('gauge', { name: 'agent_rpc_handlers_in_flight', help: 'Handlers running now.', labelNames: ['agent', 'capability'], registers });
    this.pending = new ValueMetric('gauge', { name: 'agent_rpc_pending_calls', help: 'Calls waiting for their response.', labelNames: ['agent'], registers });
    this.dlq = new Counter({ name: 'agent_rpc_dlq_records_total', help: 'Messages written to the DLQ, by kind and reason.', labelNames: ['agent', 'kind', 'reason'], registers });
    this.dlqDrops = new Counter({ name: 'agent_rpc_dlq_dropped_total', help: 'DLQ records deleted by retention, by the bound passed (records, bytes, age).', labelNames: ['agent', 'reason'], registers });
    this.auth = new ValueMetric('counter', { name: 'agent_rpc_auth_decisions_total', help: 'Auth verify decisions, by provider, decision and reason.', labelNames: ['agent', 'provider', 'decision', 'reason'], registers });
    this.redeliveries = new Counter({ name: 'agent_rpc_redeliveries_total', help: 'Deliveries handed back for redelivery.', labelNames: ['agent', 'capability'], registers });
    this.duplicates = new Counter({ name: 'agent_rpc_dedupe_hits_total', help: 'Redelivered or duplicated messages recognised and not dispatched again.', labelNames: ['agent', 'capability'], registers });
    this.agentCalls = new HistogramMetric({ name: 'agent_rpc_agent_call_depth', help: 'Agent-to-agent calls that passed the guard, by collapsed chain depth (the _count is the number of such calls).', labelNames: ['agent'], buckets: [1, 2, 3, 4, 5, 6, 8, 10], registers });
    this.longestChain = new ValueMetric('gauge', { name: 'agent_rpc_longest_chain_depth', help: 'Deepest collapsed chain an agent-to-agent call has passed the guard with.', labelNames: ['agent'], registers });
    this.guardRejections = new Counter({ name: 'agent_rpc_guard_rejections_total', help: 'Calls the runaway guard refused, by rule.', labelNames: ['agent', 'rule'], registers });
    this.authWarnings = new Counter({ name: 'agent_rpc_auth_warnings_total', help: 'Auth checks made with less than configured (replay-store-unavailable: replays judged on local memory only).', labelNames: ['agent', 'kind'], registers });
    this.guardWarnings = new Counter({ name: 'agent_rpc_guard_warnings_total', help: 'Runaway-guard warnings (idle-hops: agents calling on without doing work).', labelNames: ['agent', 'kind'], registers });
    this.transportDrops = new Counter({ name: 'agent_rpc_transport_dropped_total', help: 'Messages a transport received and dropped before the inbox saw them, by reason.', labelNames: ['agent', 'transport', 'reason'], registers });
    this.transportCommitFailures = new Counter({ name: 'agent_rpc_transport_commit_failures_total', help: 'Commits of consumed messages that failed (they are delivered again).', labelNames: ['agent', 'transport'], registers });
    this.transportReconnects = new Counter({ name: 'agent_rpc_transport_reconnects_total', help: 'Transport connections restored after they were lost.', labelNames: ['agent', 'transport'], registers });
    this.modelTokens = new Counter({ name: 'agent_rpc_model_tokens_total', help: 'Model tokens used by model agents, by model id and kind (input, output, cached; cached is part of input).', labelNames: ['agent', 'model', 'kind'], registers });
    this.modelCost = new Counter({ name: 'agent_rpc_model_cost_usd_total', help: "Model cost in USD from the model's pricing.", labelNames: ['agent', 'model'], registers });
    this.toolCalls = new Counter({ name: 'agent_rpc_tool_calls_total', help: 'Tool calls of model agents, by tool and outcome.', labelNames: ['agent', 'tool', 'outcome'], registers });
    this.policyDecisions = new Counter({ name: 'agent_rpc_bash_policy_decisions_total', help: 'Bash policy decisions on command lines, by action and deciding rule.', labelNames: ['agent', 'action', 'rule'], registers });
    this.lateResults = new Counter({ name: 'agent_rpc_late_results_discarded_total', help: 'Handler results thrown away because the caller had been answered EAGENTRPC_TIMEOUT at the deadline.', labelNames: ['agent', 'capability'], registers });
    this.unmatched = new Counter({ name: 'agent_rpc_unmatched_responses_total', help: 'Responses for no waiting call.', labelNames: ['agent', 'capability'], registers });
  }

  /** The hooks one agent reports through; its id becomes the `agent` label. */
  forAgent(agent: string): RpcMetrics {
    let longest = 0;
    const call = perLabels((capability, status) => {
      const labels = { agent, capability, status };
      return { count: this.calls.series(labels), latency: this.callLatency.series(labels) };
    });
    const handler = perLabels((capability, result) => this.handlerLatency.series({ agent, capability, result }));
    const inFlight = perLabel((capability) => this.inFlight.series({ agent, capability }));
    const auth = perLabels((provider, decision) => perLabel((reason) => this.auth.series({ agent, provider, decision, reason })));
    // Made on first use, as prom-client's series are: a node that never waits on a call shows no pending gauge.
    let pending: ValueSeries | undefined;
    let depth: HistogramSeries | undefined;
    return {
      callCompleted: (capability: string, status: CallStatus, latencyMs: number) => {
        const series = call(capability, status);
        series.count.value++;
        this.callLatency.observe(series.latency, latencyMs / 1000);
      },
      handlerStarted: (capability: string) => {
        inFlight(capability).value++;
      },
      handlerCompleted: (capability: string, ok: boolean, durationMs: number) => {
        inFlight(capability).value--;
        this.handlerLatency.observe(handler(capability, ok ? 'ok' : 'error'), durationMs / 1000);
      },
      pendingChanged: (size: number) => {
        (pending ??= this.pending.series({ agent })).value = size;
      },
      dlqRecorded: (kind: DlqKind, reason: string) => this.dlq.inc({ agent, kind, reason }),
      dlqDropped: (reason: string, records: number) => this.dlqDrops.inc({ agent, reason }, records),
      authDecision: (provider: string, decision: 'accept' | 'reject', reason: string | undefined) => {
        auth(provider, decision)(reason ?? '').value++;
      },
      redeliveryRequested: (capability: string) => this.redeliveries.inc({ agent, capability }),
      duplicateSkipped: (capability: string) => this.duplicates.inc({ agent, capability }),
      unmatchedResponse: (capability: string) => this.unmatched.inc({ agent, capability }),
      lateResultDiscarded: (capability: string) => this.lateResults.inc({ agent, capability }),
      agentCall: (value: number) => {
        this.agentCalls.observe((depth ??= this.agentCalls.series({ agent })), value);
        if (value > longest) {
          longest = value;
          this.longestChain.series({ agent }).value = longest;
        }
      },
      guardRejected: (rule: string) => this.guardRejections.inc({ agent, rule }),
      guardWarning: (kind: string) => this.guardWarnings.inc({ agent, kind }),
      authWarning: (kind: string) => this.authWarnings.inc({ agent, kind }),
      transportDropped: (transport: string, reason: string) => this.transportDrops.inc({ agent, transport, reason }),
      transportCommitFailed: (transport: string) => this.transportCommitFailures.inc({ agent, transport }),
      transportReconnected: (transport: string) => this.transportReconnects.inc({ agent, transport }),
      modelTokens: (model: string, kind: 'input' | 'output' | 'cached', tokens: number) => this.modelTokens.inc({ agent, model, kind }, tokens),
      modelCost: (model: string, usd: number) => this.modelCost.inc({ agent, model }, usd),
      toolCalled: (tool: string, outcome: 'ok' | 'error') => this.toolCalls.inc({ agent, tool, outcome }),
      policyDecision: (action: 'allow' | 'deny', rule: string) => this.policyDecisions.inc({ agent, action, rule }),
    };
  }
}
