import { RpcError, toRpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { RemoteNode, RemoteNodeResolver } from '../../src/server/remote-nodes/remote-node.js';
import type {
  DeliveryHandler,
  OutboundMessage,
  RpcTransport,
  SubscribeOptions,
  Subscription,
  TransportTraits,
  UndeliverableMessage,
} from '../../src/transport.js';
import { HttpIngress } from './http-ingress.js';
import { peekEnvelope, type EnvelopeRouting } from './peek-envelope.js';
import { runRemoteSession, unknownNodeError } from './remote-session-client.js';

/** Runs one remote session to its end (transports/http/remote-session-client.ts). */
export type RemoteSessionRunner = (
  node: RemoteNode,
  request: { message: string; envelope?: string; safeMode?: boolean },
  options: { signal?: AbortSignal; logger?: Logger },
) => Promise<{ sessionId: string; output: string; responseEnvelope?: string }>;

export interface HttpTransportOptions {
  /** Remote nodes by name: a peer route `kind: http` names its node as the topic. */
  readonly resolver?: RemoteNodeResolver;
  /** Where the session API of this process hands envelopes in. Default: a private one. */
  readonly ingress?: HttpIngress;
  /** Default: runRemoteSession from remote-session-client.ts. */
  readonly runner?: RemoteSessionRunner;
  readonly logger?: Logger;
}

// A request's remote session is bounded by the request's own deadline; a little grace lets
// the remote answer that arrives just in time still reach the caller.
const DEADLINE_GRACE_MS = 1_000;

const HTTP_TRAITS: TransportTraits = {
  redelivery: true,
  orderedByKey: false,
  retainsUnconsumed: false,
  // Requests arrive through this node's session API, not from a broker topic.
  remoteSubscribe: false,
};

/**
 * `http`: agents on other nodes, reached through their session API. Publishing a request
 * to topic `<node name>` creates a session on that node carrying the signed envelope, polls
 * it, and hands the remote agent's signed response to this node's reply subscription, so
 * the inbox verifies and settles it like a reply from a broker. What cannot be carried to
 * the end is reported to the node (`onUndeliverable`). Inbound, the session API of this
 * process delivers requests through the ingress; replies to them are routed back to the
 * waiting session.
 */
class HttpTransport implements RpcTransport {
  readonly kind = 'http' as const;
  readonly traits = HTTP_TRAITS;
  private readonly ingress: HttpIngress;
  private readonly logger: Logger;
  private readonly running = new Map<string, AbortController>();
  private readonly listeners: Array<(failure: UndeliverableMessage) => void> = [];
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  constructor(private readonly options: HttpTransportOptions) {
    this.ingress = options.ingress ?? new HttpIngress();
    this.logger = options.logger ?? silentLogger;
  }

  async connect(): Promise<void> {
    if (this.closed) throw closedError();
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    if (this.closed) throw closedError();
    const routing = peekEnvelope(message.body);
    if (routing?.kind === 'response') {
      if (this.ingress.routeReply(message.body)) return;
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `no session of this node waits for the response to ${routing.causedBy ?? '(none)'}`, { retriable: false, details: { topic } });
    }
    if (this.ingress.hasSubscriber(topic)) {
      // An agent of this process (a DLQ requeue, or two agents of one node over http).
      void this.ingress.deliver(topic, message.body, routing?.messageId ?? topic);
      return;
    }
    const node = await this.nodeFor(topic);
    if (!routing) throw new RpcError('EAGENTRPC_PUBLISH_FAILED', 'only agent-rpc envelopes can be sent to a remote node', { retriable: false, details: { topic } });
    this.startSession(node, topic, message.body, routing);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options?: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw closedError();
    const inner = this.ingress.subscribe(topic, handler, options);
    const subscription: Subscription = {
      topic,
      close: async () => {
        this.subscriptions.delete(subscription);
        await inner.close();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  onUndeliverable(listener: (failure: UndeliverableMessage) => void): void {
    this.listeners.push(listener);
  }

  abandon(requestMessageId: string): void {
    this.running.get(requestMessageId)?.abort();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of [...this.subscriptions]) await subscription.close();
    for (const controller of this.running.values()) controller.abort();
  }

  private async nodeFor(name: string): Promise<RemoteNode> {
    const resolver = this.options.resolver;
    const node = await resolver?.get(name);
    if (node) return node;
    throw unknownNodeError(name, ((await resolver?.list()) ?? []).map((n) => n.name));
  }

  private startSession(node: RemoteNode, topic: string, body: Uint8Array, routing: EnvelopeRouting): void {
    const controller = new AbortController();
    this.running.set(routing.messageId, controller);
    const timer = routing.deadline === undefined ? undefined : setTimeout(() => controller.abort(), Math.max(0, routing.deadline - Date.now() + DEADLINE_GRACE_MS));
    timer?.unref();
    void this.runSession(node, body, routing, controller.signal)
      .then(
        (response) => this.deliverResponse(routing, response),
        (error: unknown) => this.report({ topic, body, error: toRpcError(error) }),
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.running.get(routing.messageId) === controller) this.running.delete(routing.messageId);
      });
  }

  private async runSession(node: RemoteNode, body: Uint8Array, routing: EnvelopeRouting, signal: AbortSignal): Promise<string> {
    const runner = this.options.runner ?? runRemoteSession;
    const envelope = Buffer.from(body).toString('utf8');
    const result = await runner(node, { message: summarize(routing), envelope, safeMode: true }, { signal, logger: this.logger }).catch((error: unknown) => {
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

  private async deliverResponse(routing: EnvelopeRouting, response: string): Promise<void> {
    const replyTopic = routing.replyTo?.startsWith('http://') ? routing.replyTo.slice('http://'.length) : undefined;
    if (replyTopic === undefined) return; // an event: nobody waits for its answer
    await this.ingress.deliver(replyTopic, Buffer.from(response, 'utf8'), routing.messageId).catch((error: unknown) => {
      this.logger.warn({ err: error, messageId: routing.messageId }, 'remote response arrived after its caller stopped listening');
    });
  }

  private report(failure: UndeliverableMessage): void {
    if (this.listeners.length === 0) this.logger.warn({ err: failure.error, topic: failure.topic }, 'remote call failed and no node listens for failures');
    for (const listener of this.listeners) listener(failure);
  }
}

/** What the remote session shows as the user's message: the capability and a bounded view of the payload. */
function summarize(routing: EnvelopeRouting): string {
  const payload = JSON.stringify(routing.payload ?? null);
  return `${routing.capability} ${payload.length > 2_000 ? `${payload.slice(0, 2_000)}…` : payload}`;
}

function closedError(): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', 'http transport is closed');
}

export function httpTransport(options: HttpTransportOptions = {}): RpcTransport {
  return new HttpTransport(options);
}
