import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { startZipkinServer, type ZipkinServerHandle } from '../../tools/brokers/zipkin-server.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { ModelDaemons } from '../support/model-daemons.js';
import { runNats } from '../support/nats-target.js';

// Three `agent-rpc serve` processes on the run's NATS, each exporting its spans to a Zipkin
// server of this file: client → alpha (code) → beta (code) → gamma (model agent with a tool
// call), and alpha's call to itself, which the guard refuses. The trace is read back from
// Zipkin's API by its id. A fourth process exports OTLP over HTTP to a loopback collector.
interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name: string;
  readonly kind?: string;
  readonly localEndpoint?: { readonly serviceName?: string };
  readonly tags?: Record<string, string>;
  readonly annotations?: ReadonlyArray<{ readonly value: string }>;
}

const HANDLERS = new URL('../fixtures/handlers/traced-hops.ts', import.meta.url).pathname;
const nats = await runNats();
let zipkin: ZipkinServerHandle;
let model: ScriptedModelServer;
let daemons: ModelDaemons;
const processes: DaemonProcess[] = [];

beforeAll(async () => {
  [zipkin, model] = await Promise.all([startZipkinServer(), startScriptedModelServer()]);
  daemons = new ModelDaemons(model, { url: nats.url, subjectPrefix: nats.subjectPrefix });
}, 180_000);
afterAll(async () => {
  for (const daemon of processes.splice(0)) {
    daemon.signal('SIGTERM');
    await daemon.exited;
  }
  await model?.close();
  await zipkin?.stop();
}, 60_000);

const zipkinTracing = () => `tracing: { exporter: zipkin, endpoint: "${zipkin.spansEndpoint}", sampleRatio: 1 }\n`;
const capability = (name: string) => `  - name: ${name}\n    inputSchema: { type: object }\n`;

async function startDaemon(id: string, agentYaml: string, capabilitiesYaml: string, peers: readonly string[], tracing = zipkinTracing()): Promise<DaemonProcess> {
  const port = await freePort();
  const { dir, env } = daemons.writeConfig({ id, agentYaml: agentYaml + tracing, capabilitiesYaml, ...(peers.length > 0 ? { peers } : {}) }, port);
  // Spans are held until the process stops: what Zipkin shows got there by the flush on a clean stop.
  const daemon = await DaemonProcess.start(dir, { ...env, OTEL_BSP_SCHEDULE_DELAY: '600000' }, port);
  processes.push(daemon);
  return daemon;
}

async function fetchTrace(traceId: string): Promise<ZipkinSpan[]> {
  const response = await fetch(`${zipkin.url}/api/v2/trace/${traceId}`);
  return response.status === 200 ? ((await response.json()) as ZipkinSpan[]) : [];
}

describe('tracing - serve processes exporting their spans', () => {
  it('tracing zipkin - every hop has its send/process/handler spans, parents across processes, the refusal and the model\'s tokens', async () => {
    const started = await Promise.all([
      startDaemon('alpha', `handlers: { plan: ${HANDLERS} }\n`, capability('plan'), ['alpha', 'beta']),
      startDaemon('beta', `handlers: { relay: ${HANDLERS} }\n`, capability('relay'), ['gamma']),
      startDaemon(
        'gamma',
        `handlers:
  assist:
    type: agent
    agent: { tools: { enabled: [think] } }
    messages: [{ role: user, content: "\${input.message}" }]
`,
        capability('assist'),
        [],
      ),
    ]);
    model.script(
      { toolCalls: [{ name: 'think', arguments: { thought: 'two steps' } }], usage: { inputTokens: 120, outputTokens: 30 } },
      { text: 'the plan has two steps', usage: { inputTokens: 200, outputTokens: 12 } },
    );

    // The test's own node starts the trace, exporting its span to the same Zipkin.
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'client' }),
      spanProcessors: [new SimpleSpanProcessor(new ZipkinExporter({ url: zipkin.spansEndpoint }))],
    });
    const client = new AgentNode({ id: 'client', transports: [await nats.transport()], peers: [{ id: 'alpha', routes: [{ kind: 'nats' }] }], tracerProvider: provider });
    await client.start();
    const traceId = randomBytes(16).toString('hex');
    const result = await client.requestAgent<{ relayed: unknown; refused: string }>({
      to: 'alpha',
      capability: 'plan',
      payload: {},
      timeoutMs: 60_000,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    await client.close();
    await provider.shutdown();
    expect(result.status).toBe('ok');
    expect(result.response?.refused).toBe('EAGENTRPC_GUARD_REJECTED');

    // A clean stop flushes each daemon's spans.
    for (const daemon of started) daemon.signal('SIGTERM');
    expect(await Promise.all(started.map((daemon) => daemon.exited))).toEqual([0, 0, 0]);
    processes.splice(0);

    const expected = ['send agents.alpha.requests', 'process agents.alpha.requests', 'handle plan', 'send agents.beta.requests', 'process agents.beta.requests', 'handle relay', 'send agents.gamma.requests', 'process agents.gamma.requests', 'handle assist', 'execute_tool think'];
    let spans: ZipkinSpan[] = [];
    await until(async () => {
      spans = await fetchTrace(traceId);
      const names = new Set(spans.map((span) => span.name));
      return expected.every((name) => names.has(name)) && spans.filter((span) => span.name === 'chat scripted-small').length === 2;
    }, 60_000);

    const byName = (name: string): ZipkinSpan[] => spans.filter((span) => span.name === name);
    const only = (name: string, tags: Record<string, string> = {}): ZipkinSpan => {
      const found = byName(name).filter((span) => Object.entries(tags).every(([key, value]) => span.tags?.[key] === value));
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const childOf = (child: ZipkinSpan, parent: ZipkinSpan): void => expect(`${child.name} ← ${child.parentId}`).toBe(`${child.name} ← ${parent.id}`);

    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
    const sendAlpha = only('send agents.alpha.requests', { 'agent_rpc.from': 'agent://client' });
    const processAlpha = only('process agents.alpha.requests');
    const handlePlan = only('handle plan');
    const sendBeta = only('send agents.beta.requests');
    const processBeta = only('process agents.beta.requests');
    const handleRelay = only('handle relay');
    const sendGamma = only('send agents.gamma.requests');
    const processGamma = only('process agents.gamma.requests');
    const handleAssist = only('handle assist');
    const tool = only('execute_tool think');
    const chats = byName('chat scripted-small');

    // Each process reports under its own service; parents cross process boundaries.
    expect([sendAlpha, processAlpha, processBeta, processGamma].map((span) => span.localEndpoint?.serviceName)).toEqual(['client', 'alpha', 'beta', 'gamma']);
    childOf(processAlpha, sendAlpha);
    childOf(handlePlan, processAlpha);
    childOf(sendBeta, handlePlan);
    childOf(processBeta, sendBeta);
    childOf(handleRelay, processBeta);
    childOf(sendGamma, handleRelay);
    childOf(processGamma, sendGamma);
    childOf(handleAssist, processGamma);
    childOf(tool, handleAssist);
    for (const chat of chats) childOf(chat, handleAssist);
    expect([sendBeta.kind, processBeta.kind, chats[0]!.kind]).toEqual(['PRODUCER', 'CONSUMER', 'CLIENT']);
    expect(processBeta.tags).toMatchObject({
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'agents.beta.requests',
      'messaging.message.conversation_id': result.correlationId,
      'agent_rpc.capability': 'relay',
      'agent_rpc.from': 'agent://alpha',
    });
    expect(sendBeta.tags?.['messaging.message.id']).toBe(processBeta.tags?.['messaging.message.id']);

    // The refused self-call: alpha's call span, in error with the guard's code and event, and nothing sent.
    const refused = only('send agents.alpha.requests', { 'agent_rpc.from': 'agent://alpha' });
    childOf(refused, handlePlan);
    expect(refused.tags).toMatchObject({ 'error.type': 'EAGENTRPC_GUARD_REJECTED', 'otel.status_code': 'ERROR' });
    expect(refused.annotations?.map((a) => a.value)).toEqual(['agent_rpc.guard.refused']);
    expect(byName('process agents.alpha.requests')).toHaveLength(1);

    // The model agent's requests: gen_ai attributes with the tokens the model reported, and the cost from its pricing.
    const usage = chats.map((chat) => [chat.tags?.['gen_ai.usage.input_tokens'], chat.tags?.['gen_ai.usage.output_tokens']]).sort();
    expect(usage).toEqual([['120', '30'], ['200', '12']]);
    expect(chats[0]!.tags).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted-small' });
    expect(Number(chats.find((chat) => chat.tags?.['gen_ai.usage.input_tokens'] === '120')!.tags?.['agent_rpc.cost_usd'])).toBeCloseTo((120 * 2 + 30 * 10) / 1e6, 12);
    expect(tool.tags).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'think', 'agent_rpc.tool.outcome': 'ok' });
  }, 240_000);

  it('tracing otlp - serve exports its spans as OTLP over HTTP to the configured endpoint, flushed on a clean stop', async () => {
    const bodies: string[] = [];
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/v1/traces') bodies.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
      const daemon = await startDaemon('delta', `handlers: { echo: ${HANDLERS} }\n`, capability('echo'), [], `tracing: { exporter: otlp, endpoint: "${endpoint}" }\n`);
      const client = new AgentNode({ id: 'otlp-client', transports: [await nats.transport()], peers: [{ id: 'delta', routes: [{ kind: 'nats' }] }] });
      await client.start();
      const traceId = randomBytes(16).toString('hex');
      const result = await client.requestAgent({ to: 'delta', capability: 'echo', payload: { n: 1 }, timeoutMs: 30_000, headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
      await client.close();
      expect(result).toMatchObject({ status: 'ok', response: { n: 1 } });
      daemon.signal('SIGTERM');
      expect(await daemon.exited).toBe(0);
      processes.splice(processes.indexOf(daemon), 1);
      // The exporter posted before the process exited.
      const exported = bodies.join('\n');
      expect(exported).toContain('process agents.delta.requests');
      expect(exported).toContain('handle echo');
      expect(exported).toContain(traceId);
      expect(exported).toContain('"delta"');
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 120_000);
});
