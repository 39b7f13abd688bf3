import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { startZipkinServer, type ZipkinServerHandle } from '../../tools/brokers/zipkin-server.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { runNats } from '../support/nats-target.js';
import { SessionApiClient } from '../support/session-api-client.js';

// Two `agent-rpc serve` processes on the run's NATS exporting to a Zipkin of this file:
// alpha (`forward` → beta's `echo`, `broken`, and the session API on `forward`) and beta.
// What Zipkin shows is read back from its API, as an operator's dashboard reads it.
interface ZipkinSpan {
  readonly name: string;
  readonly kind?: string;
  readonly localEndpoint?: { readonly serviceName?: string };
  readonly remoteEndpoint?: { readonly serviceName?: string };
  readonly tags?: Record<string, string>;
}

const HANDLERS = new URL('../fixtures/handlers/traced-hops.ts', import.meta.url).pathname;
const nats = await runNats();
let zipkin: ZipkinServerHandle;
let model: ScriptedModelServer;
let alpha: DaemonProcess;
let beta: DaemonProcess;

beforeAll(async () => {
  [zipkin, model] = await Promise.all([startZipkinServer(), startScriptedModelServer()]);
  const daemons = new ModelDaemons(model, { url: nats.url, subjectPrefix: nats.subjectPrefix });
  const tracing = `tracing: { exporter: zipkin, endpoint: "${zipkin.spansEndpoint}", sampleRatio: 1 }\n`;
  const start = async (id: string, agentYaml: string, capabilities: readonly string[], peers: readonly string[]): Promise<DaemonProcess> => {
    const port = await freePort();
    const capabilitiesYaml = capabilities.map((name) => `  - name: ${name}\n    inputSchema: { type: object }\n`).join('');
    const { dir, env } = daemons.writeConfig({ id, agentYaml: agentYaml + tracing, capabilitiesYaml, ...(peers.length > 0 ? { peers } : {}) }, port);
    return DaemonProcess.start(dir, env, port);
  };
  [alpha, beta] = await Promise.all([
    start('alpha', `handlers: { forward: ${HANDLERS}, broken: ${HANDLERS} }\nsession: { capability: forward }\n`, ['forward', 'broken'], ['beta']),
    start('beta', `handlers: { echo: ${HANDLERS} }\n`, ['echo'], []),
  ]);
}, 180_000);
afterAll(async () => {
  for (const daemon of [alpha, beta]) {
    daemon?.signal('SIGTERM');
    await daemon?.exited;
  }
  await model?.close();
  await zipkin?.stop();
}, 60_000);

async function zipkinJson<T>(path: string): Promise<T> {
  const response = await fetch(`${zipkin.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** Alpha's process spans in Zipkin, once the daemons have stopped (a clean stop flushes them). */
let processSpans: ZipkinSpan[] = [];
let startedAt = 0;

describe('tracing - what a trace backend shows of a fleet', () => {
  beforeAll(async () => {
    startedAt = Date.now();
    const client = new AgentNode({ id: 'client', transports: [await nats.transport()], peers: [{ id: 'alpha', routes: [{ kind: 'nats' }] }] });
    await client.start();
    const forwarded = await client.requestAgent({ to: 'alpha', capability: 'forward', payload: { n: 1 }, timeoutMs: 30_000 });
    const failed = await client.requestAgent({ to: 'alpha', capability: 'broken', payload: {}, timeoutMs: 30_000 });
    await client.close();
    expect(forwarded).toMatchObject({ status: 'ok', response: { n: 1 } });
    expect(failed).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_HANDLER_FAILED' } });
    const api = new SessionApiClient(`http://127.0.0.1:${alpha.httpPort}`);
    const session = await api.create(API_TOKEN, { message: 'over http' });
    expect(session.status).toBe(201);
    expect((await api.waitFor(API_TOKEN, session.body.sessionId)).sessionState.status).toBe('completed');
    for (const daemon of [alpha, beta]) daemon.signal('SIGTERM');
    expect(await Promise.all([alpha.exited, beta.exited])).toEqual([0, 0]);
    const name = 'process agents.alpha.requests';
    // Three requests reached alpha: two from the client, one through the session API.
    await until(async () => {
      processSpans = (await zipkinJson<ZipkinSpan[][]>(`/api/v2/traces?serviceName=alpha&spanName=${encodeURIComponent(name)}&limit=100`)).flat().filter((span) => span.name === name);
      return processSpans.length === 3;
    }, 30_000);
  }, 120_000);

  const processOf = (capability: string, system: string): ZipkinSpan[] => processSpans.filter((span) => span.tags?.['agent_rpc.capability'] === capability && span.tags?.['messaging.system'] === system);

  it('tracing peers - Zipkin\'s dependency graph links client → alpha → beta', async () => {
    type Link = { parent: string; child: string; callCount: number };
    const endTs = Date.now() + 60_000;
    const links = await zipkinJson<Link[]>(`/api/v2/dependencies?endTs=${endTs}&lookback=${endTs - startedAt + 60_000}`);
    expect(links.map(({ parent, child }) => `${parent} → ${child}`)).toEqual(expect.arrayContaining(['client → alpha', 'alpha → beta']));
    expect(processOf('broken', 'nats')[0]?.remoteEndpoint).toEqual({ serviceName: 'client' });
  });

  it('tracing peers - a request through the session API has messaging.system http on its process span', () => {
    expect(processOf('forward', 'http')).toHaveLength(1);
    expect(processSpans.filter((span) => span.tags?.['messaging.system'] === 'inbound')).toEqual([]);
  });

  it('tracing peers - a failed request ends its process span in error with its code', () => {
    expect(processOf('broken', 'nats')[0]?.tags).toMatchObject({ 'otel.status_code': 'ERROR', 'error.type': 'EAGENTRPC_HANDLER_FAILED' });
    expect(processOf('forward', 'nats')[0]?.tags?.['otel.status_code']).toBeUndefined();
  });

  it('tracing peers - send and process spans over NATS name the broker as server.address and server.port', async () => {
    const broker = new URL(nats.url);
    const server = { 'server.address': broker.hostname, 'server.port': broker.port };
    const name = 'send agents.beta.requests';
    const sends = (await zipkinJson<ZipkinSpan[][]>(`/api/v2/traces?serviceName=alpha&spanName=${encodeURIComponent(name)}&limit=100`)).flat().filter((span) => span.name === name);
    expect(sends).not.toEqual([]);
    for (const span of [...sends, ...processOf('forward', 'nats'), ...processOf('broken', 'nats')]) expect(span.tags, span.name).toMatchObject(server);
    // A request that came through the session API went through no broker.
    expect(processOf('forward', 'http')[0]?.tags).not.toHaveProperty('server.address');
  });
});
