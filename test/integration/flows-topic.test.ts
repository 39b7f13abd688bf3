import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FlowView } from '../../src/flow-recording/flow-view.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { natsTransport } from '../../transports/nats/index.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';
import { runCliProcess } from '../support/run-cli-process.js';

const nats = await runNats();
const daemons: DaemonProcess[] = [];
afterAll(() => {
  for (const daemon of daemons) daemon.signal('SIGKILL');
});

/** One agent's config folder on this file's share of the run's NATS. */
function agentDir(id: string, flows: string, handlers: Record<string, string>, peers: string[] = []): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'flows-topic-')), id);
  mkdirSync(dir);
  const handlerLines = Object.keys(handlers).map((name) => `  ${name}: ./${name}.js`);
  writeFileSync(
    join(dir, 'agent.yaml'),
    ['version: 1', `agent: { id: ${id} }`, 'handlers:', ...handlerLines, 'log: { level: warn }', 'http: { port: "${env:AGENT_HTTP_PORT}" }', 'dataDir: ./data', `flows: ${flows}`, ''].join('\n'),
  );
  writeFileSync(
    join(dir, 'capabilities.yaml'),
    ['version: 1', 'transports:', `  nats: { servers: "\${env:NATS_URL}", subjectPrefix: "${nats.subjectPrefix}" }`, 'capabilities:', ...Object.keys(handlers).map((name) => `  - { name: ${name}, description: ${name} }`), ''].join('\n'),
  );
  if (peers.length > 0) writeFileSync(join(dir, 'rpc-peers.yaml'), ['version: 1', 'peers:', ...peers.map((peer) => `  - { id: "agent://${peer}", transports: [{ kind: nats }] }`), ''].join('\n'));
  for (const [name, source] of Object.entries(handlers)) writeFileSync(join(dir, `${name}.js`), source);
  return dir;
}

async function flowAt(daemon: DaemonProcess, correlationId: string): Promise<FlowView | undefined> {
  const res = await fetch(`http://127.0.0.1:${daemon.httpPort}/flows/${correlationId}.json`);
  return res.status === 200 ? ((await res.json()) as FlowView) : undefined;
}

describe('flows topic - two agent-rpc serve processes on NATS', () => {
  it('flows topic - a publishing daemon shows its own calls; a viewing daemon shows the whole flow; agent-rpc flow prints it', async () => {
    const relay = `export default async function relay(input, ctx) {
  const echoed = await ctx.requestAgent({ to: 'flow-back', capability: 'echo', payload: input });
  if (echoed.status !== 'ok') throw new Error('echo ended ' + echoed.status);
  return echoed.response;
}
`;
    const front = agentDir('flow-front', '{ publish: true }', { relay }, ['flow-back']);
    const back = agentDir('flow-back', '{ publish: true, view: true }', { echo: 'export default (input) => input;\n' });
    const env = { NATS_URL: nats.url };
    const [frontPort, backPort] = [await freePort(), await freePort()];
    daemons.push(await DaemonProcess.start(front, env, frontPort), await DaemonProcess.start(back, env, backPort));
    const [frontDaemon, backDaemon] = daemons as [DaemonProcess, DaemonProcess];

    const client = new AgentNode({ id: 'flow-client', transports: [natsTransport(nats.options)], peers: [{ id: 'agent://flow-front', routes: [{ kind: 'nats' }] }] });
    await client.start();
    let correlationId: string;
    try {
      const result = await client.requestAgent({ to: 'flow-front', capability: 'relay', payload: { hello: 'fleet' }, timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: 'ok', response: { hello: 'fleet' } });
      correlationId = result.correlationId;
    } finally {
      await client.close();
    }

    // The viewer: the relay's handler side and the echo's caller side came over the topic from the front's daemon.
    let fleetView: FlowView | undefined;
    await until(async () => {
      fleetView = await flowAt(backDaemon, correlationId);
      const relayCall = fleetView?.calls.find((c) => c.capability === 'relay');
      const echoCall = fleetView?.calls.find((c) => c.capability === 'echo');
      return relayCall?.handler?.status === 'ok' && echoCall?.call?.status === 'ok' && echoCall.handler?.status === 'ok';
    }, 30_000);
    // Every record on the topic was one the viewer could read.
    expect(backDaemon.stdout).not.toContain('not a flow record');
    expect(fleetView!.summary).toMatchObject({ agents: ['flow-client', 'flow-front', 'flow-back'], calls: 2, status: 'ok' });
    expect(((await (await fetch(`http://127.0.0.1:${backPort}/flows.json`)).json()) as { scope: string }).scope).toBe('fleet');

    // The publisher alone knows only its own agent's side: it never saw the echo's handler.
    const local = await flowAt(frontDaemon, correlationId);
    expect(local!.calls.find((c) => c.capability === 'echo')).toMatchObject({ status: 'ok', call: { status: 'ok' } });
    expect(local!.calls.find((c) => c.capability === 'echo')!.handler).toBeUndefined();
    expect(((await (await fetch(`http://127.0.0.1:${frontPort}/flows.json`)).json()) as { scope: string }).scope).toBe('local');

    const tree = await runCliProcess(['flow', correlationId, '--url', `http://127.0.0.1:${backPort}`]);
    expect(tree.code, tree.stderr).toBe(0);
    expect(tree.stdout.trim().split('\n').slice(1).map((line) => line.replace(/ [\d.]+ ms$/, ''))).toEqual([
      '└─ flow-client → flow-front relay ok',
      '   └─ flow-front → flow-back echo ok',
    ]);
    const json = await runCliProcess(['flow', correlationId, '--url', `http://127.0.0.1:${backPort}`, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ summary: { correlationId, calls: 2 } });
    expect((await runCliProcess(['flow', 'no-such-flow', '--url', `http://127.0.0.1:${frontPort}`])).code).toBe(1);
    expect((await runCliProcess(['flow', correlationId, '--url', 'http://127.0.0.1:1'])).code).toBe(3);
  }, 120_000);
});
