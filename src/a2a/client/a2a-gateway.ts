import type { Message } from '@a2a-js/sdk';
import type { AgentRpcEnvelope } from '../../envelope/index.js';
import { RpcError } from '../../errors.js';
import type { Gateway, GatewayAnswer, GatewayCall, GatewayPort } from '../../gateway.js';
import { silentLogger, type Logger } from '../../logger.js';
import { CAPABILITIES_CAPABILITY, PING_CAPABILITY } from '../../rpc/index.js';
import type { SecretValue } from '../../secrets/index.js';
import { capabilitiesOfCard, requestMessage } from '../a2a-mapping.js';
import { peerError } from './peer-error.js';
import { PeerClients, type A2aPeerRoute, type PeerClient } from './peer-clients.js';
import { runPeerTask } from './peer-task.js';

export interface A2aGatewayOptions {
  /** The A2A peers of rpc-peers.yaml (`kind: a2a` routes): their token references, by URL. */
  readonly routes?: readonly A2aPeerRoute[];
  readonly resolveSecret?: (ref: string) => Promise<SecretValue>;
  /** How long a fetched agent card is used. Default 300,000 ms. */
  readonly cardTtlMs?: number;
  /** Between two polls of a task when the peer does not stream. Default 500 ms. */
  readonly pollIntervalMs?: number;
  readonly logger?: Logger;
}

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
 * peers. A call to a peer routed `{kind: a2a, url}` sends the peer an A2A message and
 * follows its task; status updates become progress answers and the task's end the final
 * answer (or a typed error), handed back to the node. `$ping` and `$capabilities` are
 * answered from the peer's agent card. Abandoning a call, or its deadline passing, cancels
 * the task on the peer. Outbound only.
 */
class A2aGateway implements Gateway {
  readonly kind = 'a2a' as const;
  private readonly running = new Map<string, Running>();
  private readonly peers: PeerClients;
  private readonly pollIntervalMs: number;
  private readonly logger: Logger;
  private port: GatewayPort | undefined;
  private closed = false;

  constructor(options: A2aGatewayOptions) {
    this.logger = options.logger ?? silentLogger;
    const resolveSecret = options.resolveSecret ?? (() => Promise.reject(new TypeError('a2a gateway: tokenRef given but no secret resolver')));
    this.peers = new PeerClients({
      routes: new Map((options.routes ?? []).map((route) => [route.url, route])),
      resolveSecret,
      cardTtlMs: options.cardTtlMs ?? 300_000,
      now: () => Date.now(),
    });
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  // No connection to open: the peers' cards are fetched on first use.
  async open(port: GatewayPort): Promise<void> {
    this.port = port;
  }

  async send(call: GatewayCall): Promise<void> {
    if (this.closed || !this.port) throw new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `a2a gateway is ${this.closed ? 'closed' : 'not open'}`);
    const { address: url, envelope } = call;
    if (envelope.kind === 'event') return this.sendEvent(url, envelope);
    if (envelope.capability === PING_CAPABILITY || envelope.capability === CAPABILITIES_CAPABILITY) return void this.answerFromCard(url, envelope);
    this.start(url, envelope);
  }

  abandon(requestId: string): void {
    const run = this.running.get(requestId);
    if (run) this.stop(run, 'abandoned');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of this.running.values()) this.stop(run, 'closed');
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

  /** The answer this gateway made of what the peer said, handed back to the node for the waiting caller. */
  private respond(request: AgentRpcEnvelope, answer: GatewayAnswer): void {
    this.port?.answer(request, answer);
  }
}

export function a2aGateway(options: A2aGatewayOptions = {}): Gateway {
  return new A2aGateway(options);
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
