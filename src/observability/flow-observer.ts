/**
 * What the runtime tells a flow recorder about each call, as one method per event in the
 * style of RpcMetrics: every method is optional and the default is empty, so nothing is
 * built for flows unless someone listens. Arguments are the objects the node already has
 * (the envelope, the call's result), never copies made for the observer.
 */

import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { CallResult } from '../call-result.js';

/** Who called whom in which flow: a request envelope, or for a call refused before one was built, its parts. */
export interface FlowCallIdentity {
  readonly correlationId: string;
  readonly causedBy?: string | undefined;
  /** Unset for a call refused before its envelope was built (permission, guard, schema). */
  readonly messageId?: string | undefined;
  readonly from: string;
  readonly to: string;
  readonly capability: string;
  readonly kind?: AgentRpcEnvelope['kind'];
}

export interface FlowObserver {
  /** Caller side: a request or event is about to be published. */
  callStarted?(call: AgentRpcEnvelope): void;
  /** Caller side: the call ended (answered, failed, timed out, refused by permission or guard before sending). */
  callEnded?(call: FlowCallIdentity, result: CallResult): void;
  /** Receiver side: a handler began on a request. */
  handlerStarted?(request: AgentRpcEnvelope): void;
  /** Receiver side: a handler finished; `errorCode` is set when it failed. */
  handlerEnded?(request: AgentRpcEnvelope, errorCode: string | undefined, durationMs: number): void;
  /** Receiver side: a claimed request was answered with an error instead of dispatched (guard, deadline, unknown capability, schema). */
  requestRefused?(request: AgentRpcEnvelope, kind: string, errorCode: string): void;
  /** Receiver side: a message of a flow went to the DLQ. */
  deadLettered?(envelope: AgentRpcEnvelope, kind: string, reason: string): void;
}

export const noFlows: FlowObserver = {};
