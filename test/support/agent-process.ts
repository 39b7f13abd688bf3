/**
 * Child-process entry for cross-process tests: one agent node on a real broker, driven
 * over IPC by AgentProcess (agent-process-client.ts). Started with `node --import tsx`.
 */
import { appendFileSync } from 'node:fs';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import type { AuthProvider } from '../../src/auth/provider.js';
import type { GuardLimits } from '../../src/guard/guard-rules.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { RedisGuardStore } from '../../src/guard/redis-guard-store.js';
import type { GuardStore } from '../../src/guard/guard-store.js';
import { SqliteIdempotencyStore } from '../../src/idempotency/sqlite-store.js';
import { JsonlDlqSink } from '../../src/dlq/jsonl-file-sink.js';
import type { RequestAgentOptions } from '../../src/rpc/request-agent.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { gate } from '../../src/testing/wait.js';
import type { Delivery, RpcTransport } from '../../src/transport.js';
import { createTransport, type TransportSpec } from './transport-spec.js';

export interface AgentProcessConfig {
  readonly id: string;
  readonly instanceId?: string;
  readonly transport: TransportSpec;
  readonly peers: readonly string[];
  /** Every node of the process runs under this tenant (tenant-scoped topics), and so do its peers. */
  readonly tenantId?: string;
  /** Persistent dedupe (survives a kill -9 of this process). */
  readonly sqlitePath?: string;
  /** `count` appends the request's messageId here: the side effect tests count. */
  readonly effectsFile?: string;
  /** SIGKILL this process when a delivery whose bytes contain this text is acked: after the
   *  handler's side effect and its dedupe record, before the broker commit. */
  readonly killOnAckOf?: string;
  /** Sign and verify every envelope with HMAC: keys as hex by keyId. */
  readonly hmac?: { readonly keys: Readonly<Record<string, string>>; readonly signingKeyId: string };
  /** Runaway-guard limits. */
  readonly guard?: Partial<GuardLimits>;
  /** Whole-flow guard counts in this Redis (shared by every process given the same URL). */
  readonly guardStoreUrl?: string;
  /** Key prefix in that Redis (the store's default when omitted). */
  readonly guardStoreKeyPrefix?: string;
  /** This process's clock runs this far ahead: time passing, without waiting for it. */
  readonly clockOffsetMs?: number;
  /** More agents hosted in this process, each its own node with the same handlers and peers. */
  readonly alsoIds?: readonly string[];
  /** Per-peer call timeout for `relay`, default 30 s. */
  readonly relayTimeoutMs?: number;
  /** Handlers running at once (limits.concurrency). */
  readonly concurrency?: number;
  /** Dead letters go to this JSONL file (the test reads it); default in memory. */
  readonly dlqPath?: string;
  /** idempotency.leaseMs of the first node. */
  readonly leaseMs?: number;
  /** The transport's warnings and errors reach the parent as bus events named `log`. */
  readonly forwardLogs?: boolean;
}

export type ParentMessage = { type: 'call'; id: number; options: RequestAgentOptions } | { type: 'close' } | { type: 'release' };
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'bus'; name: string; event: unknown }
  | { type: 'failed'; error: string };

const send = (message: ChildMessage): void => void process.send?.(message);

/** `held` requests wait for the parent's `release`; each tells the parent it arrived. */
const held = gate();

/** Warnings and errors as bus events, for tests that wait for a transport's failure. */
function forwardingLogger(): Logger {
  const forward =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      const { topic, restart } = fields;
      send({ type: 'bus', name: 'log', event: { level, message, topic: typeof topic === 'string' ? topic : undefined, restart: restart === true } });
    };
  const logger: Logger = { ...silentLogger, warn: forward('warn'), error: forward('error'), isLevelEnabled: (level) => level === 'warn' || level === 'error', child: () => logger };
  return logger;
}

/** Wraps subscriptions so the configured ack kills the process (crash-before-commit). */
function killOnAck(transport: RpcTransport, messageId: string): RpcTransport {
  return new Proxy(transport, {
    get(target, property, receiver) {
      if (property !== 'subscribe') return Reflect.get(target, property, receiver);
      return (topic: string, handler: (d: Delivery) => void, options?: object) =>
        target.subscribe(topic, (delivery) => {
          if (!Buffer.from(delivery.body).includes(messageId)) return handler(delivery);
          handler({ ...delivery, ack: () => process.kill(process.pid, 'SIGKILL'), nack: delivery.nack });
        }, options);
    },
  });
}

function hmacFrom(settings: NonNullable<AgentProcessConfig['hmac']>): AuthProvider {
  const keys = new Map(Object.entries(settings.keys).map(([keyId, hex]) => [keyId, Buffer.from(hex, 'hex')]));
  return hmacAuth({ keys, signingKeyId: settings.signingKeyId });
}

async function main(config: AgentProcessConfig): Promise<void> {
  const store = config.sqlitePath ? await SqliteIdempotencyStore.open({ path: config.sqlitePath }) : undefined;
  const guardStore = config.guardStoreUrl ? await RedisGuardStore.connect({ url: config.guardStoreUrl, keyPrefix: config.guardStoreKeyPrefix }) : undefined;
  const node = await startAgent(config.id, config, store, guardStore);
  const others = await Promise.all((config.alsoIds ?? []).map((id) => startAgent(id, config, undefined, guardStore)));
  node.on('agent.rpc.response', (event) => send({ type: 'bus', name: 'agent.rpc.response', event: plain(event) }));
  node.on('agent.rpc.event', (event) => send({ type: 'bus', name: 'agent.rpc.event', event: plain(event) }));

  process.on('message', (message: ParentMessage) => {
    if (message.type === 'release') return held.open();
    if (message.type === 'close') {
      void Promise.all([node, ...others].map((n) => n.close())).then(async () => {
        await store?.close();
        await guardStore?.close();
        process.exit(0);
      });
      return;
    }
    const progress: unknown[] = [];
    void node.requestAgent({ ...message.options, onProgress: (d) => progress.push(d) }).then((result) => {
      send({ type: 'result', id: message.id, result: { ...(plain(result) as object), progress } });
    });
  });
  send({ type: 'ready' });
}

/** Errors become their wire form so they survive IPC. */
function plain(value: object): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v instanceof Error && 'toWire' in v ? (v as { toWire(): unknown }).toWire() : v)));
}

async function startAgent(id: string, config: AgentProcessConfig, store: SqliteIdempotencyStore | undefined, guardStore: GuardStore | undefined): Promise<AgentNode> {
  let transport = await createTransport(config.transport, config.instanceId ?? id, config.forwardLogs ? forwardingLogger() : undefined);
  if (config.killOnAckOf) transport = killOnAck(transport, config.killOnAckOf);
  const node = new AgentNode({
    id,
    instanceId: config.instanceId,
    ...(config.tenantId ? { tenantId: config.tenantId } : {}),
    transports: [transport],
    peers: config.peers.map((peer) => ({ id: peer, routes: [{ kind: transport.kind }] })),
    ...(store ? { idempotency: { store, ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}) } } : {}),
    ...(config.concurrency ? { limits: { concurrency: config.concurrency } } : {}),
    ...(config.dlqPath && store ? { dlq: new JsonlDlqSink({ path: config.dlqPath }) } : {}),
    ...(config.hmac ? { auth: hmacFrom(config.hmac) } : {}),
    ...(config.guard ? { guard: config.guard } : {}),
    ...(guardStore ? { guardStore } : {}),
    ...(config.clockOffsetMs ? { clock: { now: () => Date.now() + config.clockOffsetMs! } } : {}),
  });
  node.handle('echo', (input) => input);
  node.handle('whoami', () => ({ id, instanceId: node.instanceId }));
  node.handle('count', (_input, ctx) => {
    if (!config.effectsFile) throw new Error('count needs effectsFile');
    appendFileSync(config.effectsFile, `${ctx.envelope.messageId}\n`);
    return 'counted';
  });
  // `count` that takes a while: the effect is written when the run starts, the answer comes `ms` later.
  node.handle<{ ms: number }>('slow-count', async (input, ctx) => {
    if (!config.effectsFile) throw new Error('slow-count needs effectsFile');
    appendFileSync(config.effectsFile, `${ctx.envelope.messageId}\n`);
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    return 'counted';
  });
  node.handle('held', async (input) => {
    send({ type: 'bus', name: 'held', event: input });
    await held.promise;
    return input;
  });
  node.handle<{ to: string; capability: string; payload: unknown }>('relay', async (input) => {
    const result = await node.requestAgent({ to: input.to, capability: input.capability, payload: input.payload });
    return { status: result.status, response: result.response ?? null, code: result.error?.code ?? null, correlationId: result.correlationId };
  });
  // Runaway-guard scenarios: `route` walks a path of agents, `bounce` calls the other agent
  // back forever, `fan-out` makes n calls from one handler.
  node.handle<{ path: string[] }>('route', async (input, ctx) => {
    const [next, ...rest] = input.path;
    if (next === undefined) return [id];
    const result = await ctx.requestAgent<string[]>({ to: next, capability: 'route', payload: { path: rest } });
    if (result.status !== 'ok') throw result.error;
    return [id, ...result.response!];
  });
  node.handle<{ other: string }>('bounce', async (input, ctx) => {
    const result = await ctx.requestAgent({ to: input.other, capability: 'bounce', payload: { other: id } });
    if (result.status !== 'ok') throw result.error;
    return result.response;
  });
  node.handle<{ to: string; n: number }>('fan-out', async (input, ctx) => {
    const outcomes: string[] = [];
    for (let i = 0; i < input.n; i++) {
      const result = await ctx.requestAgent({ to: input.to, capability: 'echo', payload: i });
      outcomes.push(result.status === 'ok' ? 'ok' : `${result.error?.code}: ${result.error?.message}`);
    }
    return outcomes;
  });
  node.handle('progress', async (_input, ctx) => {
    await ctx.respond({ ok: true, data: 'step-1' }, { progress: true });
    await ctx.respond({ ok: true, data: 'step-2' }, { progress: true });
    return 'final';
  });
  // Parallel branches of one flow: each target runs `fan-out` with its own calls.
  node.handle<{ branches: Array<{ via: string; to: string; n: number }> }>('spread', async (input, ctx) =>
    Promise.all(
      input.branches.map(async (branch) => {
        const result = await ctx.requestAgent<string[]>({ to: branch.via, capability: 'fan-out', payload: { to: branch.to, n: branch.n }, timeoutMs: 60_000 });
        return result.status === 'ok' ? result.response : [`${result.error?.code}: ${result.error?.message}`];
      }),
    ),
  );
  await node.start();
  return node;
}

main(JSON.parse(process.argv[2] ?? '{}') as AgentProcessConfig).catch((error: unknown) => {
  send({ type: 'failed', error: error instanceof Error ? `${error.message}\n${error.stack}` : String(error) });
  process.exit(1);
});
