/**
 * What the runtime reports, as one method per event with typed arguments. Adapters
 * (prom-client, OpenTelemetry) implement the methods they care about; the default is
 * empty, so nothing is formatted or allocated for metrics unless someone listens.
 */

import type { CallStatus } from '../call-result.js';
import type { DlqKind } from '../dlq/index.js';

export interface RpcMetrics {
  /** A requestAgent call settled (caller side). */
  callCompleted?(capability: string, status: CallStatus, latencyMs: number): void;
  /** A handler began (receiver side); in flight until handlerCompleted. */
  handlerStarted?(capability: string): void;
  /** A handler finished (receiver side). */
  handlerCompleted?(capability: string, ok: boolean, durationMs: number): void;
  /** Pending registry size changed. */
  pendingChanged?(size: number): void;
  /** A message was written to the DLQ. */
  dlqRecorded?(kind: DlqKind, reason: string): void;
  /** DLQ retention dropped this many of the oldest records, because a bound (`records`, `bytes`, `age`) was passed. */
  dlqDropped?(reason: string, records: number): void;
  /** A redelivered or duplicated message was recognised and not dispatched again. */
  duplicateSkipped?(capability: string): void;
  /** A handler ended after its request had been answered EAGENTRPC_TIMEOUT at the deadline (an HTTP front door's): its result was thrown away. */
  lateResultDiscarded?(capability: string): void;
  /** A response arrived for no waiting call (late, duplicate or foreign). */
  unmatchedResponse?(capability: string): void;
  /** An incoming envelope's identity was verified; `reason` is set when rejected. */
  authDecision?(provider: string, decision: 'accept' | 'reject', reason: string | undefined): void;
  /** An agent-to-agent call passed the guard, at this collapsed depth. */
  agentCall?(depth: number): void;
  /** The runaway guard warned about a flow (`idle-hops`: agents calling on without doing work). */
  guardWarning?(kind: string): void;
  /** Auth went on with less than configured (`replay-store-unavailable`: replays judged on this process's memory only). */
  authWarning?(kind: string): void;
  /** The runaway guard refused a call. */
  guardRejected?(rule: string): void;
  /** A delivery was handed back to the transport for redelivery. */
  redeliveryRequested?(capability: string, attempt: number): void;
  /** A transport dropped a message it received before the inbox saw it (`slow-consumer`, `exhausted-fetch-failed`). */
  transportDropped?(transport: string, reason: string): void;
  /** A transport could not commit what was consumed (the messages are delivered again, to this or another member). */
  transportCommitFailed?(transport: string): void;
  /** A transport's connection came back after it was lost (or its consumer was restarted after a failure). */
  transportReconnected?(transport: string): void;
  /** A model agent's model request used tokens (kind input, output or cached; cached tokens are also counted in input). */
  modelTokens?(model: string, kind: 'input' | 'output' | 'cached', tokens: number): void;
  /** A model request's cost in USD from the model's pricing. */
  modelCost?(model: string, usd: number): void;
  /** A model agent's tool call ended. */
  toolCalled?(tool: string, outcome: 'ok' | 'error'): void;
  /** The bash policy decided on a command line (rule: the deciding rule's name, or `default`, `unreadable`, `outside-workdir`). */
  policyDecision?(action: 'allow' | 'deny', rule: string): void;
}

export const noMetrics: RpcMetrics = {};
