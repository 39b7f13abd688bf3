import { peekEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError, toRpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import {
  runRemoteSession,
  unknownNodeError,
  type RemoteNode,
  type RemoteNodeResolver,
  type RemoteSessionRunner,
} from '../../src/remote-nodes/index.js';
import { parseReplyTo } from '../../src/transport.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits, UndeliverableMessage } from '../../src/transport.js';
import { deliverLocalReply } from '../shared/local-reply-delivery.js';
import { TransportBase } from '../shared/transport-base.js';

export interface HttpTransportOptions {
  /** Remote nodes by name: a peer route `kind: http` names its node as the topic. */
  readonly resolver?: RemoteNodeResolver;
  /** Default: runRemoteSession (src/remote-nodes/remote-session-client.ts). */
  readonly runner?: RemoteSessionRunner;
  readonly logger?: Logger;
}

// A request's remote session is bounded by the request's own deadline; a little grace lets
// the remote answer that arrives just in time still reach the caller.
const DEADLINE_GRACE_MS = 1_000;

const HTTP_TRAITS: TransportTraits = {
  // A response handed to the reply subscription and nacked is handed over again.
  redelivery: true,
  orderedByKey: false,
  retainsUnconsumed: false,
  // Nothing arrives from a broker: requests come in through the node's inbound port.
  remoteSubscribe: false,
};

/**
 * `http`: agents on other nodes, reached through their session API. Publishing a request
 * to topic `<node name>` creates a session on that node carrying the signed envelope, polls
 * it, and hands the remote agent's signed response to this node's reply subscription, so
 * the inbox verifies and settles it like a reply from a broker. What cannot be carried to
 * the end is reported to the node (`onUndeliverable`). Outbound only: requests from other
 * nodes arrive through the session API and the node's inbound port, not here.
 */
class HttpTransport extends TransportBase {
  readonly kind = 'http' as const;
  readonly traits = HTTP_TRAITS;
  private readonly running = new Map<string, AbortController>();
  private readonly listeners: Array<(failure: UndeliverableMessage) => void> = [];
  /** Local subscribers by topic: the reply topics remote responses are handed to. */
  private readonly subscribers = new Map<string, DeliveryHandler>();

  constructor(private readonly options: HttpTransportOptions) {
    super(options.logger ?? silentLogger);
  }

  // No connection to open: every call is its own HTTP session.
  protected async open(): Promise<void> {}

  protected async shutdown(): Promise<void> {
    for (const controller of this.running.values()) controller.abort();
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    this.assertOpen();
    const envelope = peekEnvelope(message.body)?.envelope;
    if (!envelope || envelope.kind === 'response') {
      // Answers to what came in over HTTP go back through the inbound port, never here.
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', 'only request and event envelopes can be sent to a remote node', { retriable: false, details: { topic } });
    }
    const node = await this.nodeFor(topic);
    this.startSession(node, topic, message.body, envelope);
  }

  async subscribe(topic: string, handler: DeliveryHandler, _options?: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    this.subscribers.set(topic, handler);
    return this.track(topic, async () => {
      if (this.subscribers.get(topic) === handler) this.subscribers.delete(topic);
    });
  }

  onUndeliverable(listener: (failure: UndeliverableMessage) => void): void {
    this.listeners.push(listener);
  }

  abandon(requestMessageId: string): void {
    this.running.get(requestMessageId)?.abort();
  }

  private async nodeFor(name: string): Promise<RemoteNode> {
    const resolver = this.options.resolver;
    const node = await resolver?.get(name);
    if (node) return node;
    throw unknownNodeError(name, ((await resolver?.list()) ?? []).map((n) => n.name));
  }

  private startSession(node: RemoteNode, topic: string, body: Uint8Array, envelope: AgentRpcEnvelope): void {
    const controller = new AbortController();
    this.running.set(envelope.messageId, controller);
    const timer = envelope.deadline === undefined ? undefined : setTimeout(() => controller.abort(), Math.max(0, envelope.deadline - Date.now() + DEADLINE_GRACE_MS));
    timer?.unref();
    void this.runSession(node, body, envelope, controller.signal)
      .then(
        (response) => this.deliverResponse(envelope, response),
        (error: unknown) => this.report({ topic, body, error: toRpcError(error) }),
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.running.get(envelope.messageId) === controller) this.running.delete(envelope.messageId);
      });
  }

  private async runSession(node: RemoteNode, body: Uint8Array, envelope: AgentRpcEnvelope, signal: AbortSignal): Promise<string> {
    const runner = this.options.runner ?? runRemoteSession;
    const text = Buffer.from(body).toString('utf8');
    const result = await runner(node, { message: summarize(envelope), envelope: text, safeMode: true }, { signal, logger: this.logger }).catch((error: unknown) => {
      // A remote handler's error comes back as a signed response envelope: it reaches the
      // caller as the typed error it is, like over a broker.
      const answered = (error as RpcError).details?.responseEnvelope;
      if (typeof answered === 'string') return { sessionId: '', output: '', responseEnvelope: answered };
      throw error;
    });
    if (result.responseEnvelope === undefined) {
      throw new RpcError('EAGENTRPC_INVALID_RESPONSE', `remote node ${node.name} finished session ${result.sessionId} without a response envelope`, { details: { sessionId: result.sessionId } });
    }
    return result.responseEnvelope;
  }

  /** Hands the remote response to the local reply subscription; the inbox decodes and verifies it. */
  private deliverResponse(request: AgentRpcEnvelope, response: string): void {
    if (request.replyTo === undefined) return; // an event: nobody waits for its answer
    const topic = parseReplyTo(request.replyTo)?.topic;
    if (topic === undefined) return this.logger.warn({ messageId: request.messageId, replyTo: request.replyTo }, 'remote response for a request without a reply topic');
    const deliveryId = `response-to-${request.messageId}`;
    if (!deliverLocalReply(this.subscribers, topic, Buffer.from(response, 'utf8'), deliveryId)) {
      this.logger.warn({ deliveryId, topic }, 'remote response arrived after its caller stopped listening');
    }
  }

  private report(failure: UndeliverableMessage): void {
    if (this.listeners.length === 0) this.logger.warn({ err: failure.error, topic: failure.topic }, 'remote call failed and no node listens for failures');
    for (const listener of this.listeners) listener(failure);
  }
}

/** What the remote session shows as the user's message: the capability and a bounded view of the payload. */
function summarize(envelope: AgentRpcEnvelope): string {
  const payload = JSON.stringify(envelope.payload ?? null);
  return `${envelope.capability} ${payload.length > 2_000 ? `${payload.slice(0, 2_000)}…` : payload}`;
}

export function httpTransport(options: HttpTransportOptions = {}): RpcTransport {
  return new HttpTransport(options);
}
