import { attachAuth } from '../auth/index.js';
import { decodeEnvelope, encodeEnvelope, newCorrelationId, type AgentRpcEnvelope, type DecodeLimits } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { FLOW_HEADER } from '../guard/index.js';
import { createDelivery } from '../delivery.js';
import type { Inbox } from './inbox.js';
import type { InboxCore } from './node-core.js';
import type { DeliverySource } from './receipt.js';
import { asResponsePayload, type ResponsePayload } from './response-payload.js';
import { childTraceparent, TRACEPARENT_HEADER } from '../trace-context.js';
import type { ExecutionScope } from './execution-scope.js';

/** A response to a message handed in through the port, with its payload already read. */
export interface InboundReply {
  /** The signed response envelope, as a broker would have carried it. */
  readonly body: Uint8Array;
  readonly payload: ResponsePayload | undefined;
}

export interface InboundMessage {
  readonly body: Uint8Array;
  /**
   * `body` decoded with `decodeEnvelope`, when the front door already did so (to pick the
   * agent); used instead of decoding again if it was decoded within this agent's limits.
   */
  readonly decoded?: { readonly envelope: AgentRpcEnvelope; readonly limits: Required<DecodeLimits> };
  /** The message's identity at the front door (a session id): DLQ records and transport-natural dedupe keys. */
  readonly deliveryId: string;
  /** Every response to the request: progress responses, then the final one. */
  readonly onReply?: (reply: InboundReply) => void;
  /** The executor's context of a remote execution request, seen by the handler as `ctx.execution`. */
  readonly execution?: ExecutionScope;
}

/** A request this agent's front door makes in its own name (a plain-message session). */
export interface OwnRequest {
  readonly messageId: string;
  /** Who the request says it comes from, e.g. `agent://session-api`. */
  readonly from: string;
  readonly capability: string;
  readonly payload: unknown;
  readonly replyTo: string;
  readonly deadline: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Continues a flow (with `causedBy` and the flow header in `headers`) instead of starting one. */
  readonly correlationId?: string;
  readonly causedBy?: string;
}

/**
 * How front doors that are not transports (the session API, and every HTTP entry point
 * after it) hand a message to an agent: into the same inbox as broker traffic — auth,
 * dedupe, guard, audit, DLQ and metrics apply — with the replies handed back instead of
 * published. The one narrow view of a node the server gets.
 */
export interface InboundPort {
  readonly uri: string;
  /** The limits an envelope must meet to be accepted here. */
  readonly limits: Required<DecodeLimits>;
  /**
   * Resolves when the inbox has settled the message (answered, refused or dead-lettered);
   * a message the inbox hands back is delivered again after the redelivery delay, as a
   * broker would. Rejects with EAGENTRPC_ABANDONED when the agent is not running.
   */
  deliver(message: InboundMessage): Promise<void>;
  /** A new flow's request to this agent, signed with its own provider: the inbox verifies it like any other. */
  signOwnRequest(request: OwnRequest): Promise<Uint8Array>;
  /** Aborts the handler of a request delivered here (its `ctx.signal`). False when it is not running. */
  cancel(requestId: string, reason: string): boolean;
}

/** How DLQ records and dedupe keys name what came through the port (no transport carried it). */
export const INBOUND_PORT_KIND = 'inbound';

export function createInboundPort(core: InboxCore, inbox: Inbox, isRunning: () => boolean): InboundPort {
  const limits = { maxBytes: core.limits.maxBytes, maxDepth: core.limits.maxDepth };
  return {
    uri: core.uri,
    limits,
    cancel: (requestId, reason) => core.cancellations.cancel(requestId, reason),
    deliver(message) {
      if (!isRunning()) return Promise.reject(new RpcError('EAGENTRPC_ABANDONED', `${core.uri} is not running`));
      const decoded = message.decoded && withinLimits(message.decoded.limits, limits) ? message.decoded.envelope : undefined;
      const onReply = message.onReply;
      const source: DeliverySource = {
        kind: INBOUND_PORT_KIND,
        // Every front door handing messages to the port is HTTP (session API, /execute, A2A).
        system: 'http',
        redelivers: true,
        boundsHandlers: true,
        ...(message.execution ? { execution: message.execution } : {}),
        ...(onReply ? { replies: (reply, payload) => onReply({ body: reply.body, payload: payload ?? payloadOf(reply.body) }) } : {}),
      };
      return new Promise((resolve) => {
        const handOver = (attempt: number): void => {
          const delivery = createDelivery({
            body: message.body,
            key: undefined,
            coordinates: { topic: core.topics.requests, deliveryId: message.deliveryId },
            attempt,
            onAck: resolve,
            onNack: (delayMs) => setTimeout(() => handOver(attempt + 1), delayMs).unref(),
            onDefer: (delayMs) => setTimeout(() => handOver(attempt), delayMs).unref(),
          });
          inbox.receive(delivery, source, decoded);
        };
        handOver(1);
      });
    },
    async signOwnRequest(request) {
      const envelope: AgentRpcEnvelope = {
        version: 1,
        kind: 'request',
        messageId: request.messageId,
        correlationId: request.correlationId ?? newCorrelationId(),
        from: request.from,
        to: core.uri,
        capability: request.capability,
        replyTo: request.replyTo,
        deadline: request.deadline,
        headers: {
          [TRACEPARENT_HEADER]: childTraceparent(undefined),
          [FLOW_HEADER]: core.guard.startFlow(core.uri, core.clock.now()).header,
          ...request.headers,
        },
        payload: request.payload,
      };
      if (core.tenantId !== undefined) envelope.tenantId = core.tenantId;
      if (request.causedBy !== undefined) envelope.causedBy = request.causedBy;
      return encodeEnvelope(await attachAuth(core.auth, envelope));
    },
  };
}

function withinLimits(used: Required<DecodeLimits>, own: Required<DecodeLimits>): boolean {
  return used.maxBytes <= own.maxBytes && used.maxDepth <= own.maxDepth;
}

/** A stored reply (a duplicate answered again) comes as bytes only; it was encoded here, so it decodes. */
function payloadOf(body: Uint8Array): ResponsePayload | undefined {
  const decoded = decodeEnvelope(body);
  return decoded.ok ? asResponsePayload(decoded.envelope.payload) : undefined;
}
