import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { RedisReplayStore } from '../../src/auth/redis-replay-store.js';
import { replayStoreErrorReporter } from '../../src/auth/replay-memory.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { silentLogger } from '../../src/logger.js';
import { PrometheusMetrics } from '../../src/observability/prometheus-metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { SessionApiClient } from '../support/session-api-client.js';
import type { RpcTransport } from '../../src/transport.js';
import { startRedisServer, type RedisServerHandle } from '../../tools/brokers/redis-server.js';
import { startNatsServer } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';
import { foreignRequest } from '../support/envelopes.js';
import { until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';
import { runRedis } from '../support/redis-target.js';

const nats = await runNats();
const redis = await runRedis();
const keys = new Map([['k-1', randomBytes(32)]]);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One replica of agent `id`, reading requests from a topic of its own so the test picks who gets what. */
async function replica(id: string, name: string, store: RedisReplayStore, metrics?: PrometheusMetrics, servers = nats.url, sameServer = true): Promise<{ node: AgentNode; runs: () => number; topic: string }> {
  let runs = 0;
  const onReplayStoreError = metrics ? replayStoreErrorReporter(silentLogger, metrics.forAgent(id)) : undefined;
  // Behind servers of their own, replicas can keep their agent's usual topic.
  const topic = sameServer ? `agents.${id}.${name}.requests` : `agents.${id}.requests`;
  const node = new AgentNode({ id, instanceId: name, topics: { requests: topic }, transports: [natsTransport({ ...nats.options, servers })], auth: hmacAuth({ keys, replayStore: store, ...(onReplayStoreError ? { onReplayStoreError } : {}) }) });
  node.handle('work', () => ++runs);
  await node.start();
  cleanups.push(() => node.close());
  return { node, runs: () => runs, topic };
}

async function store(url: string): Promise<RedisReplayStore> {
  const connected = await RedisReplayStore.connect({ url, keyPrefix: `${redis.keyPrefix}replay:` });
  cleanups.push(() => connected.close());
  return connected;
}

async function publisher(): Promise<RpcTransport> {
  const transport = await nats.transport();
  cleanups.push(() => transport.close());
  return transport;
}

function signed(id: string): Uint8Array {
  const signer = hmacAuth({ keys, signingKeyId: 'k-1' });
  return encodeEnvelope(signer.attach!(foreignRequest({ to: `agent://${id}`, capability: 'work', replyTo: 'nats://nobody.listens' })) as AgentRpcEnvelope);
}

describe('hmac auth - replay memory shared in Redis', () => {
  it('hmac - the same signed envelope sent to a second replica within the window is refused as replayed', async () => {
    const id = `svc-${newMessageId().slice(0, 8)}`;
    const [first, second] = [await replica(id, 'r1', await store(redis.url)), await replica(id, 'r2', await store(redis.url))];
    const raw = await publisher();
    const body = signed(id);
    await raw.publish(first.topic, { body });
    await until(() => first.runs() === 1);
    await raw.publish(second.topic, { body });
    await until(async () => (await second.node.dlq.list()).length === 1);
    expect(await second.node.dlq.list()).toMatchObject([{ kind: 'auth-rejected', reason: 'replayed' }]);
    expect(second.runs()).toBe(0);
  });

  it('hmac - with the replay store down, envelopes are judged on local memory (fail open), counted as a warning', async () => {
    const own: RedisServerHandle = await startRedisServer();
    cleanups.push(() => own.stop());
    const id = `svc-${newMessageId().slice(0, 8)}`;
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const only = await replica(id, 'r1', await store(own.url), metrics);
    const raw = await publisher();
    await own.stop();
    await raw.publish(only.topic, { body: signed(id) });
    await until(() => only.runs() === 1);
    const warnings = await metrics.registry.getSingleMetric('agent_rpc_auth_warnings_total')?.get();
    expect(warnings?.values.find((v) => v.labels['kind'] === 'replay-store-unavailable')?.value).toBe(1);
    // Local memory still catches a replay to this same process.
    const again = signed(id);
    await raw.publish(only.topic, { body: again });
    await until(() => only.runs() === 2);
    await raw.publish(only.topic, { body: again });
    await until(async () => (await only.node.dlq.list()).length === 1);
    expect(await only.node.dlq.list()).toMatchObject([{ kind: 'auth-rejected', reason: 'replayed' }]);
  });

  it('hmac - two daemon replicas configured with replay.store redis refuse a replay sent to the other one', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'replay-shared-'));
    cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
    writeFileSync(join(configDir, 'keys.json'), JSON.stringify({ keys: { 'k-1': `base64:${keys.get('k-1')!.toString('base64')}` } }));
    const shared = [
      'rpc:',
      '  auth: { required: hmac, keysRef: "file:keys.json", signingKeyId: k-1, replay: { store: redis, keyPrefix: "${env:REPLAY_PREFIX}" } }',
      'guard:',
      '  store: { kind: redis, url: "${env:REDIS_URL}", keyPrefix: "${env:FLOW_PREFIX}" }',
    ].join('\n');
    writeFileSync(join(configDir, 'agent.yaml'), `${readFileSync(join(configDir, 'agent.yaml'), 'utf8')}${shared}\n`);
    const token = 'alice-replay-token';
    const env = (n: number) => ({
      ALICE_TOKEN: token, BOB_TOKEN: 'b-replay', CAROL_TOKEN: 'c-replay', VIC_TOKEN: 'v-replay',
      AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, `data-${n}`),
      REDIS_URL: redis.url, REPLAY_PREFIX: `${redis.keyPrefix}replay:`, FLOW_PREFIX: `${redis.keyPrefix}flow:`,
    });
    const replicas = [];
    for (const n of [1, 2]) {
      const daemon = await startDaemon(configDir, builtinPlugins, { env: env(n), logger: silentLogger });
      cleanups.push(() => daemon.stop());
      replicas.push({ api: new SessionApiClient(`http://127.0.0.1:${daemon.http.port}`), dlq: join(configDir, `data-${n}`, 'dlq.jsonl') });
    }
    const signer = hmacAuth({ keys, signingKeyId: 'k-1' });
    const envelope = signer.attach!(foreignRequest({ to: 'agent://assistant', capability: 'no-such-capability', replyTo: 'http://replies', deadline: Date.now() + 60_000 })) as AgentRpcEnvelope;
    const text = Buffer.from(encodeEnvelope(envelope)).toString('utf8');
    const records = (path: string): Array<{ kind: string; reason: string }> => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
    for (const replica of replicas) {
      expect((await replica.api.create(token, { envelope: text })).status).toBe(201);
      await until(() => records(replica.dlq).length === 1);
    }
    // The first replica accepted it (and found no such capability); the second refused the replay.
    expect(records(replicas[0]!.dlq)).toMatchObject([{ kind: 'unknown-capability' }]);
    expect(records(replicas[1]!.dlq)).toMatchObject([{ kind: 'auth-rejected', reason: 'replayed' }]);
  });

  it('hmac - core NATS deliveries of two replicas never share a delivery id, so a replay is not taken for a redelivery', async () => {
    // Two servers, one subject: each replica's first delivery would be the same `subject#1`.
    const other = await startNatsServer();
    cleanups.push(() => other.stop());
    const id = `svc-${newMessageId().slice(0, 8)}`;
    const [first, second] = [await replica(id, 'r1', await store(redis.url), undefined, nats.url, false), await replica(id, 'r2', await store(redis.url), undefined, other.url, false)];
    const body = signed(id);
    const firstRaw = await publisher();
    await firstRaw.publish(`agents.${id}.requests`, { body });
    await until(() => first.runs() === 1);
    const secondRaw = natsTransport({ ...nats.options, servers: other.url });
    cleanups.push(() => secondRaw.close());
    await secondRaw.connect();
    await secondRaw.publish(`agents.${id}.requests`, { body });
    await until(async () => (await second.node.dlq.list()).length === 1);
    expect(await second.node.dlq.list()).toMatchObject([{ kind: 'auth-rejected', reason: 'replayed', coordinates: { topic: `agents.${id}.requests` } }]);
    expect(second.runs()).toBe(0);
  });
});
