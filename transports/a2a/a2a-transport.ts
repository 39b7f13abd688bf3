import type { Message } from '@a2a-js/sdk';
import { encodeEnvelope, newMessageId, peekEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { CAPABILITIES_CAPABILITY, PING_CAPABILITY, type ResponsePayload } from '../../src/rpc/index.js';
import type { SecretValue } from '../../src/secrets/index.js';
import { parseReplyTo } from '../../src/transport.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { deliverLocalReply } from '../shared/local-reply-delivery.js';
import { TransportBase } from '../shared/transport-base.js';
import { capabilitiesOfCard, requestMessage } from './a2a-mapping.js';
import { peerError } from './peer-error.js';
import { PeerClients, type A2aPeerRoute, type PeerClient } from './peer-clients.js';
import { runPeerTask } from './peer-task.js';

export interface A2aTransportOptions {
  /** The A2A peers of rpc-peers.yaml (`kind: a2a` routes): their token references, by URL. */
  readonly routes?: readonly A2aPeerRoute[];
  readonly resolveSecret?: (ref: string) => Promise<SecretValue>;
  /** How long a fetched agent card is used. Default 300,000 ms. */
  readonly cardTtlMs?: number;
  /** Between two polls of a task when the peer does not stream. Default 500 ms. */
  readonly pollIntervalMs?: number;
  readonly logger?: Logger;
}

const A2A_TRAITS: TransportTraits = {
  redelivery: true,
  orderedByKey: false,
  retainsUnconsumed: false,
  remoteSubscribe: false,
  gateway: true,
};

/** How long a cancel waits for the peer's answer; the caller does not wait for it. */
const CANCEL_TIMEOUT_MS = 5_000;

interface Running {
  readonly controller: AbortController;
  readonly url: string;
  peer?: PeerClient;
  taskId?: string;
  /** Why the caller stopped waiting (abandoned, deadline): the task is canceled on the peer and nothing is answered. */
  stopped?: string;
  /** The caller's bearer token, when its auth provider minted one for this peer (oauth2-client). */
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/**
 * `a2a`: agents that speak the A2A protocol (v1.0, through the `@a2a-js/sdk` client), as
 * peers. A gateway, not a broker: publishing a request envelope to topic `<peer URL>`
 * sends the peer an A2A message and follows its task; status updates become progress
 * responses and the task's end the final response (or a typed error), handed to this
 * node's reply subscription like a reply from a broker. `$ping` and `$capabilities` are
 * answered from the peer's agent card. Abandoning a call, or its deadline passing, cancels
 * the task on the peer. Outbound only.
 */
class A2aTransport extends TransportBase {
  readonly kind = 'a2a' as const;
  readonly traits = A2A_TRAITS;
  private readonly running = new Map<string, Running>();
  private readonly subscribers = new Map<string, DeliveryHandler>();
  private readonly peers: PeerClients;
  private readonly pollIntervalMs: number;

  constructor(options: A2aTransportOptions) {
    super(options.logger ?? silentLogger);
    const resolveSecret = options.resolveSecret ?? (() => Promise.reject(new TypeError('a2a transport: tokenRef given but no secret resolver')));
    this.peers = new PeerClients({
      routes: new Map((options.routes ?? []).map((route) => [route.url, route])),
      resolveSecret,
      cardTtlMs: options.cardTtlMs ?? 300_000,
      now: () => Date.now(),
    });
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  protected async open(): Promise<void> {}

  protected async shutdown(): Promise<void> {
    for (const run of this.running.values()) this.stop(run, 'closed');
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    this.assertOpen();
    const envelope = peekEnvelope(message.body)?.envelope;
    if (!envelope || envelope.kind === 'response') {
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', 'only request and event envelopes can be sent to an A2A peer', { retriable: false, details: { topic } });
    }
    if (envelope.kind === 'event') return this.sendEvent(topic, envelope);
    if (envelope.capability === PING_CAPABILITY || envelope.capability === CAPABILITIES_CAPABILITY) return void this.answerFromCard(topic, envelope);
    this.start(topic, envelope);
  }

  async subscribe(topic: string, handler: DeliveryHandler, _options?: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    this.subscribers.set(topic, handler);
    return this.track(topic, async () => {
      if (this.subscribers.get(topic) === handler) this.subscribers.delete(topic);
    });
  }

  abandon(requestMessageId: string): void {
    const run = this.running.get(requestMessageId);
    if (run) this.stop(run, 'abandoned');
  }

  private start(url: string, request: AgentRpcEnvelope): void {
    const run: Running = { controller: new AbortController(), url, headers: bearerHeaders(request) };
    this.running.set(request.messageId, run);
    const timer = request.deadline === undefined ? undefined : setTimeout(() => this.stop(run, 'deadline'), Math.max(0, request.deadline - Date.now()));
    timer?.unref();
    void this.follow(run, request, requestMessage(request))
      .then(
        (data) => {
          // Finished just as the caller stopped waiting: nobody would take the answer.
          if (run.stopped === undefined) this.respond(request, { ok: true, data });
        },
        (error: unknown) => {
          if (run.stopped !== undefined) return;
          this.peers.forget(url);
          const failure = peerError(url, error);
          this.respond(request, { ok: false, error: failure.toWire() });
          // The peer waits for an answer in this task, which will never come from here: the caller calls again.
          if (failure.code === 'EAGENTRPC_PEER_INPUT_REQUIRED') this.stop(run, 'input-required');
        },
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.running.get(request.messageId) === run) this.running.delete(request.messageId);
      });
  }

  private async follow(run: Running, request: AgentRpcEnvelope, message: Message): Promise<unknown> {
    run.peer = await this.peers.get(run.url);
    const listener = {
      taskStarted: (taskId: string) => {
        run.taskId = taskId;
        // Stopped before the peer named its task: cancel it now that it can be.
        if (run.stopped !== undefined) this.cancelOnPeer(run);
      },
      progress: (data: unknown) => {
        if (run.stopped === undefined) this.respond(request, { ok: true, progress: true, data });
      },
    };
    return runPeerTask(run.peer, message, listener, { signal: run.controller.signal, pollIntervalMs: this.pollIntervalMs, ...(run.headers ? { headers: run.headers } : {}) });
  }

  /** The caller stopped waiting: cancel the task on the peer (once it is known), then stop following it. */
  private stop(run: Running, reason: string): void {
    if (run.stopped !== undefined) return;
    run.stopped = reason;
    if (run.taskId !== undefined) return this.cancelOnPeer(run);
    // The peer has not named a task yet: wait a little for it (taskStarted cancels it), then give up following.
    setTimeout(() => run.controller.abort(new RpcError('EAGENTRPC_ABANDONED', `call ${reason}`)), CANCEL_TIMEOUT_MS).unref();
  }

  private cancelOnPeer(run: Running): void {
    const { peer, taskId } = run;
    const done = (): void => run.controller.abort(new RpcError('EAGENTRPC_ABANDONED', `call ${run.stopped}`));
    if (peer === undefined || taskId === undefined) return done();
    peer.client
      .cancelTask({ tenant: '', id: taskId, metadata: { reason: run.stopped } }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS), ...(run.headers ? { serviceParameters: { ...run.headers } } : {}) })
      .then(
        () => this.logger.debug({ url: run.url, taskId, reason: run.stopped }, 'A2A task canceled'),
        (error: unknown) => this.logger.warn({ err: error, url: run.url, taskId, reason: run.stopped }, 'could not cancel an A2A task'),
      )
      .finally(done);
  }

  private async answerFromCard(url: string, request: AgentRpcEnvelope): Promise<void> {
    try {
      const peer = await this.peers.get(url);
      const data =
        request.capability === PING_CAPABILITY
          ? { agent: request.to, a2a: { name: peer.card.name, version: peer.card.version, url } }
          : capabilitiesOfCard(request.to, peer.card);
      this.respond(request, { ok: true, data });
    } catch (error) {
      this.respond(request, { ok: false, error: peerError(url, error).toWire() });
    }
  }

  /** An event is a message the peer may act on; nobody waits for what it makes of it. */
  private async sendEvent(url: string, envelope: AgentRpcEnvelope): Promise<void> {
    // `$cancel` and other runtime events mean nothing to an A2A agent: abandon() cancels.
    if (envelope.capability.startsWith('$')) return;
    const peer = await this.peers.get(url).catch((error: unknown) => {
      throw peerError(url, error);
    });
    const request = { tenant: '', message: requestMessage(envelope), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }, metadata: undefined };
    const headers = bearerHeaders(envelope);
    await peer.client.sendMessage(request, headers ? { serviceParameters: { ...headers } } : undefined).catch((error: unknown) => {
      this.peers.forget(url);
      throw peerError(url, error);
    });
  }

  /** A response envelope made here for the peer, handed to the caller's reply subscription (the inbox trusts it as this node's gateway's). */
  private respond(request: AgentRpcEnvelope, payload: ResponsePayload): void {
    const topic = request.replyTo === undefined ? undefined : parseReplyTo(request.replyTo)?.topic;
    if (topic === undefined) return;
    const response: AgentRpcEnvelope = {
      version: 1,
      kind: 'response',
      messageId: newMessageId(),
      correlationId: request.correlationId,
      causedBy: request.messageId,
      from: request.to,
      to: request.from,
      capability: request.capability,
      payload,
    };
    if (request.tenantId !== undefined) response.tenantId = request.tenantId;
    if (!deliverLocalReply(this.subscribers, topic, encodeEnvelope(response), response.messageId)) {
      this.logger.warn({ deliveryId: response.messageId, topic }, 'A2A answer arrived after its caller stopped listening');
    }
  }
}

export function a2aTransport(options: A2aTransportOptions = {}): RpcTransport {
  return new A2aTransport(options);
}

/**
 * A token the caller's auth provider put on the envelope for this peer (rpc-peers.yaml
 * `auth: {provider: oauth2-client}`), sent as the bearer token of the call's A2A requests:
 * an A2A agent reads HTTP auth, not the envelope's. It wins over the route's `tokenRef`.
 */
function bearerHeaders(envelope: AgentRpcEnvelope): Record<string, string> | undefined {
  const auth = envelope.auth;
  return auth?.kind === 'oauth2-client' || auth?.kind === 'oidc' ? { authorization: `Bearer ${auth.token}` } : undefined;
}
