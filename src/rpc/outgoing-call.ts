import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { ApprovalAsker } from './approval-chain.js';
import type { CallMode } from '../call-result.js';
import type { OutgoingCall } from './middleware.js';
import type { ResolvedPeer } from './peer-table.js';
import type { RequestAgentOptions } from './request-agent.js';
import type { Usage } from '../flow-usage.js';

/** One call through the send path: what middleware sees (OutgoingCall), and what the send stages note on the way. */
export class CallState implements OutgoingCall {
  payload: unknown;
  headers: Record<string, string> | undefined;
  traceparent: string | undefined;
  envelope: AgentRpcEnvelope | undefined;
  route: OutgoingCall['route'];
  readonly started = performance.now();
  /** Set by the route stage. */
  peer: ResolvedPeer | undefined;
  /** The guard's flow header for the request (guard stage). */
  flowHeader = '';
  /** What the flow had spent when the call was made (flow-budget stage). */
  spent: Usage | undefined;
  /** Async calls: called once the request is published (the caller's promise resolves then). */
  accepted: (() => void) | undefined;

  constructor(
    readonly to: string,
    readonly capability: string,
    readonly mode: CallMode,
    readonly timeoutMs: number,
    readonly correlationId: string,
    readonly options: RequestAgentOptions,
    readonly parent: AgentRpcEnvelope | undefined,
    readonly parentApprovals: ApprovalAsker | undefined,
  ) {
    this.payload = options.payload;
    this.headers = options.headers;
  }
}
