import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { internalAuth } from '../auth/index.js';
import { noAudit } from '../audit/index.js';
import { RunawayGuard, type GuardStore } from '../guard/index.js';
import { guardStoreErrorReporter } from './guard-report.js';
import { systemClock } from '../clock.js';
import { MemoryDlqSink, type DlqSink } from '../dlq/index.js';
import { agentUri } from '../envelope/index.js';
import { Dedupe, MemoryIdempotencyStore } from '../idempotency/index.js';
import { silentLogger } from '../logger.js';
import { noMetrics, RepeatedWarnings, noFlows } from '../observability/index.js';
import { positiveInteger } from '../check-integer.js';
import { RpcTracing } from '../observability/tracing/rpc-tracing.js';
import { formatReplyTo, type RpcTransport, type Subscription, type TransportKind } from '../transport.js';
import type { Gateway } from '../gateway.js';
import type { CallResult } from '../call-result.js';
import type { EventHandler, Handler } from './handler.js';
import { Inbox } from './inbox.js';
import { builtinHandlers } from './builtin-capabilities.js';
import { LocalBus, type LocalBusEventName, type LocalBusEvents } from './local-bus.js';
import type { InboxCore } from './node-core.js';
import { createInboundPort, type InboundPort } from './inbound-port.js';
import type { DeliverySource } from './receipt.js';
import { createGatewayPort } from './gateway-port.js';
import { carriersByKind } from './outbound.js';
import { PeerTable, normalizeAgentUri } from './peer-table.js';
import { CapabilitySchemas, type CapabilitySchema } from './capability-schemas.js';
import { PendingRegistry } from './pending-registry.js';
import { compilePermissions, requestPermissionKey } from './permissions.js';
import { requestAgent, type RequestAgentOptions } from './request-agent.js';
import { requeueDlqRecord, type RequeueResult } from './requeue.js';
import { defaultAgentTopics } from './topics.js';
import { noApprovals } from './approvals.js';
import { Cancellations } from './cancellations.js';
import { ConnectionWatch } from './connection-watch.js';
import { DEFAULT_LIMITS, checkAuth, checkLimits, type AgentNodeOptions } from './agent-node-options.js';
import { checkMiddleware, type HandlerInvoker, type Middleware } from './middleware.js';
import { buildPipeline, nodeMiddleware, pipelineHandler } from './stages/node-pipeline.js';

export type { AgentNodeOptions } from './agent-node-options.js';

/**
 * One agent: it serves capabilities through its inbox and calls peers by capability.
 * Create it, register handlers with `handle`, then `start()`; `close()` stops consuming,
 * waits for running handlers, settles waiting calls as abandoned and closes the transports.
 */
export class AgentNode {
  // Private: what callers, the inbox and the server each need is a narrower view of it
  // (CallerCore, InboxCore, InboundPort), handed out by the node itself.
  readonly #core: InboxCore;
  readonly #inbound: InboundPort;
  /** Each capability's handler inside the node's middleware, composed when it is registered. */
  private readonly invokers = new Map<string, HandlerInvoker>();
  private readonly eventInvokers = new Map<string, HandlerInvoker>();
  private readonly middleware: readonly Middleware[];
  private readonly inbox: Inbox;
  private readonly requestSubscriptions: Subscription[] = [];
  private readonly responseSubscriptions: Subscription[] = [];
  private readonly replyTopics = new Map<RpcTransport, string>();
  private readonly gateways: readonly Gateway[];
  /** Answers of gateways are taken from start until the reply subscriptions close. */
  private takingAnswers = false;
  private readonly drainTimeoutMs: number;
  private readonly maxInflight: number | undefined;
  private readonly connections: ConnectionWatch;
  private state: 'new' | 'starting' | 'running' | 'closing' | 'closed' = 'new';

  constructor(options: AgentNodeOptions) {
    if (typeof options?.id !== 'string') throw new TypeError('AgentNode: id is required');
    const uri = agentUri(options.id);
    const gateways = options.gateways ?? [];
    if (!Array.isArray(options.transports) || options.transports.length + gateways.length === 0) {
      throw new TypeError('AgentNode: transports must list at least one transport (or gateways one gateway)');
    }
    const { transports, outbound } = carriersByKind(options.transports, gateways);
    this.gateways = gateways;
    const instanceId = options.instanceId ?? randomBytes(6).toString('hex');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(instanceId)) throw new TypeError('AgentNode: instanceId must be 1-64 characters of [A-Za-z0-9_-]');
    const topics = { ...defaultAgentTopics(options.id, options.tenantId), ...options.topics };
    const replyTo = new Map<TransportKind, string>();
    for (const transport of transports.values()) {
      // Per instance: replicas of an agent never receive each other's replies.
      const topic = `${topics.responses}.${instanceId}`;
      this.replyTopics.set(transport, topic);
      replyTo.set(transport.kind, formatReplyTo(transport.kind, topic));
    }
    // A gateway's calls carry a replyTo of its kind too: a peer that reads our envelope (http) answers to it.
    for (const gateway of gateways) replyTo.set(gateway.kind, formatReplyTo(gateway.kind, `${topics.responses}.${instanceId}`));
    const clock = options.clock ?? systemClock;
    const logger = (options.logger ?? silentLogger).child({ agentId: options.id });
    const metrics = options.metrics ?? noMetrics;
    const { pendingCapacity, maxInflight, ...limits } = options.limits ?? {};
    this.maxInflight = maxInflight;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
    this.#core = {
      agentId: options.id,
      uri,
      tenantId: options.tenantId,
      topics,
      instanceId,
      replyTo,
      transports,
      outbound,
      peers: options.peers instanceof PeerTable ? options.peers : new PeerTable(options.peers ?? []),
      registry: new PendingRegistry({ capacity: pendingCapacity, metrics, now: () => clock.now() }),
      permissions: compilePermissions(options.permissions),
      auth: checkAuth(options.auth ?? internalAuth),
      audit: options.audit ?? noAudit,
      guard: new RunawayGuard(options.guard, options.guardStore, guardStoreErrorReporter(logger, metrics)),
      schemas: new CapabilitySchemas(options.capabilities ?? [], `agent ${options.id}`),
      peerSchemas: new Map(
        Object.entries(options.peerCapabilities ?? {}).map(([peer, capabilities]) => [normalizeAgentUri(peer), new CapabilitySchemas(capabilities, `peerCapabilities.${peer}`)]),
      ),
      dlq: options.dlq ?? new MemoryDlqSink(),
      approvals: options.approvals ?? noApprovals,
      cancellations: new Cancellations(),
      dedupe: new Dedupe(
        { ...options.idempotency, store: options.idempotency?.store ?? new MemoryIdempotencyStore({ clock }) },
        options.instanceId ?? `${options.id}@${hostname()}`,
      ),
      bus: new LocalBus(logger),
      logger,
      warnings: new RepeatedWarnings(logger, positiveInteger(options.warnSummaryIntervalMs ?? 10_000, 'AgentNode: warnSummaryIntervalMs')),
      metrics,
      tracing: new RpcTracing(options.tracerProvider),
      flows: options.flows ?? noFlows,
      clock,
      limits: checkLimits({ ...DEFAULT_LIMITS, ...limits }),
      implicitFlow: options.implicitFlow ?? true,
      outgoing: { send: () => Promise.reject(new TypeError('AgentNode: not built yet')), sending: [], sendStages: [] },
    };
    const times = options.stageTimes;
    this.middleware = nodeMiddleware(this.#core, checkMiddleware(options.middleware));
    Object.assign(this.#core.outgoing, buildPipeline(this.#core, this.middleware, times));
    this.inbox = new Inbox(this.#core, { requests: this.invokers, events: this.eventInvokers }, times);
    this.connections = new ConnectionWatch(this.#core.registry, this.#core.limits.connectionLossGraceMs, logger);
    this.#inbound = createInboundPort(this.#core, this.inbox, () => this.state === 'running');
    for (const [capability, handler] of builtinHandlers(uri, instanceId, options.capabilities ?? [], Date.now(), (id) => this.requeueDlq(id))) this.register(capability, handler);
  }

  get id(): string {
    return this.#core.agentId;
  }

  /** Names this replica among the replicas of its agent. */
  get instanceId(): string {
    return this.#core.instanceId;
  }

  /** Calls of this node waiting for their answer. */
  get pendingCalls(): number {
    return this.#core.registry.size;
  }

  /** The guard's store of whole flows, shared with other processes, when the guard has one. */
  get guardStore(): GuardStore | undefined {
    return this.#core.guard.store;
  }

  /** Where HTTP front doors (the session API) hand messages to this agent's inbox. */
  get inbound(): InboundPort {
    return this.#inbound;
  }

  get uri(): string {
    return this.#core.uri;
  }

  get dlq(): DlqSink {
    return this.#core.dlq;
  }

  /** The transports this node sends and listens on, by kind (the flows topic rides on one of them). */
  get transports(): ReadonlyMap<TransportKind, RpcTransport> {
    return this.#core.transports;
  }

  get peers(): PeerTable {
    return this.#core.peers;
  }

  /** The permission list allows this agent to call `to`/`capability` (deny wins over allow). */
  mayCall(to: string, capability: string): boolean {
    return this.#core.permissions(requestPermissionKey(normalizeAgentUri(to), capability));
  }

  /** Registers the handler for a capability. Handlers can be added before or after start. */
  handle<I = unknown, O = unknown>(capability: string, handler: Handler<I, O>): this {
    if (typeof capability !== 'string' || capability.length === 0) throw new TypeError('handle: capability must be a non-empty string');
    if (typeof handler !== 'function') throw new TypeError(`handle: handler for ${capability} must be a function`);
    if (this.invokers.has(capability)) throw new TypeError(`handle: ${capability} already has a handler`);
    this.register(capability, handler as Handler);
    return this;
  }

  /**
   * Registers the handler of the events sent to a capability (a capability may have a
   * request handler, an event handler, or both). An event with a handler gets what a request
   * gets — dedupe, guard, auth, input schema, retries, DLQ, audit, metrics, spans, flow
   * records — and is also emitted on the local bus (`agent.rpc.event`), as every event is.
   */
  handleEvents<I = unknown>(capability: string, handler: EventHandler<I>): this {
    if (typeof capability !== 'string' || capability.length === 0) throw new TypeError('handleEvents: capability must be a non-empty string');
    if (typeof handler !== 'function') throw new TypeError(`handleEvents: handler for ${capability} must be a function`);
    if (this.eventInvokers.has(capability)) throw new TypeError(`handleEvents: ${capability} already has an event handler`);
    // The run's answer to an event is no reply at all: what the handler returns is dropped.
    const asHandler: Handler = async (payload, ctx) => {
      await handler(payload as I, ctx);
      return undefined;
    };
    this.eventInvokers.set(capability, pipelineHandler(this.#core, this.middleware, capability, asHandler));
    return this;
  }

  private register(capability: string, handler: Handler): void {
    this.invokers.set(capability, pipelineHandler(this.#core, this.middleware, capability, handler));
  }

  /** The stages this node runs, in order: on every delivery, around every handler and call, and on every call before it is sent. */
  get stages(): { readonly receive: readonly string[]; readonly middleware: readonly string[]; readonly send: readonly string[] } {
    return { receive: this.inbox.stages.map((stage) => stage.name), middleware: this.middleware.map((entry) => entry.name), send: this.#core.outgoing.sendStages.map((stage) => stage.name) };
  }

  /** Subscribes to the local bus (async responses, progress, incoming events). Returns an unsubscribe function. */
  on<K extends LocalBusEventName>(name: K, listener: (event: LocalBusEvents[K]) => void): () => void {
    return this.#core.bus.on(name, listener);
  }

  requestAgent<O = unknown, I = unknown>(options: RequestAgentOptions<I>): Promise<CallResult<O>> {
    return requestAgent<O>(this.#core, options);
  }

  /** From now on, payloads to `peer` are checked against these capabilities' input schemas before sending. */
  setPeerCapabilities(peer: string, capabilities: readonly CapabilitySchema[]): void {
    const uri = normalizeAgentUri(peer);
    this.#core.peerSchemas.set(uri, new CapabilitySchemas(capabilities, `${uri} capabilities`));
  }

  /**
   * Asks a peer for its published capabilities (`$capabilities`) and checks payloads to it
   * against their input schemas from then on. Returns the capability names.
   */
  async learnPeerCapabilities(peer: string, timeoutMs = 5000): Promise<string[]> {
    const uri = normalizeAgentUri(peer);
    const result = await this.requestAgent<{ capabilities: CapabilitySchema[] }>({ to: uri, capability: '$capabilities', payload: null, timeoutMs });
    if (result.status !== 'ok' || !Array.isArray(result.response?.capabilities)) throw result.error ?? new TypeError(`${uri} published no capabilities`);
    this.setPeerCapabilities(uri, result.response.capabilities);
    return result.response.capabilities.map((capability) => capability.name);
  }

  /** Publishes a DLQ record's bytes again, to the topic it came from (see requeue.ts). */
  requeueDlq(id: string): Promise<RequeueResult> {
    return requeueDlqRecord(this.#core, this.#inbound, id);
  }

  /** Connects every transport and starts consuming the request and response topics. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new TypeError(`AgentNode ${this.id}: start() called while ${this.state}`);
    this.state = 'starting';
    const { topics } = this.#core;
    this.takingAnswers = true;
    for (const gateway of this.gateways) await gateway.open(createGatewayPort(this.#core, this.inbox, gateway.kind, () => this.takingAnswers));
    for (const transport of this.#core.transports.values()) {
      this.connections.watch(transport);
      await transport.connect();
      const source: DeliverySource = { kind: transport.kind, redelivers: transport.traits.redelivery, transport };
      const receive = (delivery: Parameters<Inbox['receive']>[0]): void => this.inbox.receive(delivery, source);
      const inflight = { maxInflight: this.maxInflight };
      // Replicas of one agent share its requests; each instance reads the replies to its own calls.
      this.requestSubscriptions.push(await transport.subscribe(topics.requests, receive, { group: this.id, ...inflight }));
      this.responseSubscriptions.push(await transport.subscribe(this.replyTopics.get(transport)!, receive, { ...inflight, ephemeral: true }));
    }
    this.state = 'running';
  }

  async close(): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.state = 'closing';
    // Stop taking work, but keep reading replies: running handlers may await child calls.
    for (const subscription of this.requestSubscriptions.splice(0)) await subscription.close();
    await this.drainHandlers();
    for (const subscription of this.responseSubscriptions.splice(0)) await subscription.close();
    this.takingAnswers = false;
    this.connections.stop();
    this.#core.registry.close();
    for (const transport of this.#core.transports.values()) await transport.close();
    for (const gateway of this.gateways) await gateway.close();
    this.#core.warnings.flush();
    this.state = 'closed';
  }

  private async drainHandlers(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.drainTimeoutMs);
    });
    const hitTimeout = await Promise.race([this.inbox.drain().then(() => false), timedOut]);
    clearTimeout(timer);
    if (hitTimeout) {
      this.#core.logger.warn({ active: this.inbox.activeCount }, 'handlers still running after the drain timeout; closing anyway');
    }
  }
}
