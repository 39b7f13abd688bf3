import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { auditFileRecords, auditRecordsOnceWritten } from '../support/audit-file.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { lastToolResults } from '../support/model-requests.js';
import { SessionApiClient } from '../support/session-api-client.js';

// Two `agent-rpc serve` processes whose model agents delegate to each other with
// remote_agent: A → remote B → remote A → … Each hop is a plain-message session over HTTP;
// the flow it carries lets the guard stop the loop as it stops one over a broker.
let model: ScriptedModelServer;
let daemons: ModelDaemons;
const processes: DaemonProcess[] = [];
beforeEach(async () => {
  model = await startScriptedModelServer();
  daemons = new ModelDaemons(model);
});
afterEach(async () => {
  for (const daemon of processes.splice(0)) {
    daemon.signal('SIGTERM');
    await daemon.exited;
  }
  await model.close();
});

const CAPABILITY = `  - name: assist
    inputSchema: { type: object, properties: { message: { type: string } }, required: [message] }
`;

/** A model agent with remote_agent whose one remote node is `peer` on `port`; the rate rule allows 3 agent calls a minute. */
const loopingAgent = (peer: string, port: number) => `handlers:
  assist:
    type: agent
    agent: { tools: { enabled: [remote_agent] } }
    messages: [{ role: user, content: "\${input.message}" }]
session: { capability: assist }
guard: { maxCallsPerMinute: 3 }
remoteNodes:
  - { name: ${peer}, apiBaseUrl: "http://127.0.0.1:${port}/api/v1", authTokenRef: "\${env:API_TOKEN}" }
`;

/** Each model agent passes the task on to its peer, then answers with what the tool said. */
const delegate = (node: string) => ({ toolCalls: [{ name: 'remote_agent', arguments: { node, message: 'ping the other side' } }] });
const answerWithToolResult = (request: RecordedModelRequest) => ({ text: lastToolResults(request)[0] ?? '(no tool result)' });

// Inside the repository, so it loads the very modules the daemon runs (one dispatch context).
const RELAY_HANDLER = new URL('../fixtures/handlers/relay-session.ts', import.meta.url).pathname;

/** A daemon in its own process whose session capability is the relay handler, relaying to `peerPort`. */
function relayConfig(id: string, port: number, peerPort: number): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), `relay-${id}-`));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'agent.yaml'),
    `version: 1
agent: { id: ${id} }
log: { level: warn }
dataDir: ./data
http: { port: ${port} }
api:
  tokens: [{ user: operator, role: operator, tokenRef: "\${env:API_TOKEN}" }]
handlers: { relay: ${RELAY_HANDLER} }
session: { capability: relay }
guard: { maxCallsPerMinute: 3 }
`,
  );
  writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  memory: {}\ncapabilities:\n  - name: relay\n    inputSchema: { type: object }\n`);
  return { dir, env: { API_TOKEN, PEER_URL: `http://127.0.0.1:${peerPort}` } };
}


describe('remote_agent - loops across nodes', () => {
  it('remote_agent - A → remote B → remote A … is refused by the guard, and the original caller sees its code', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = daemons.writeConfig({ id: 'alpha', capabilitiesYaml: CAPABILITY, agentYaml: loopingAgent('beta', portB) }, portA);
    const b = daemons.writeConfig({ id: 'beta', capabilitiesYaml: CAPABILITY, agentYaml: loopingAgent('alpha', portA) }, portB);
    processes.push(...(await Promise.all([DaemonProcess.start(a.dir, a.env, portA), DaemonProcess.start(b.dir, b.env, portB)])));
    // alpha → beta → alpha → beta → alpha (refused: the 4th agent call of the flow within a minute).
    model.script(delegate('beta'), delegate('alpha'), delegate('beta'), delegate('alpha'), answerWithToolResult, answerWithToolResult, answerWithToolResult, answerWithToolResult);

    const api = new SessionApiClient(`http://127.0.0.1:${portA}`);
    const { body } = await api.create(API_TOKEN, { message: 'start the loop', safeMode: false });
    const done = await api.waitFor(API_TOKEN, body.sessionId);

    expect(done.sessionState.status).toBe('completed');
    expect(done.messages.at(-1).content).toContain('EAGENTRPC_GUARD_REJECTED');
    // Four model turns started the four hops; the fifth hop never reached a model.
    expect(model.requests).toHaveLength(8);
    const refusals = await auditRecordsOnceWritten([daemons.dataDirOf('alpha')], (record) => record.kind === 'guard_reject');
    expect(refusals).toEqual([expect.objectContaining({ rule: 'rate' })]);
    // Every hop shared the first session's flow.
    const correlationIds = new Set([...auditFileRecords(daemons.dataDirOf('alpha')), ...auditFileRecords(daemons.dataDirOf('beta'))].filter((r) => r.kind === 'tool_call').map((r) => r.correlationId));
    expect(correlationIds.size).toBe(1);
  }, 120_000);

  it('remote sessions - a code handler relaying A → remote B → remote A … is refused by the guard with its code, seen by the first caller', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = relayConfig('alpha', portA, portB);
    const b = relayConfig('beta', portB, portA);
    processes.push(...(await Promise.all([DaemonProcess.start(a.dir, a.env, portA), DaemonProcess.start(b.dir, b.env, portB)])));

    const api = new SessionApiClient(`http://127.0.0.1:${portA}`);
    const { body } = await api.create(API_TOKEN, { message: 'start the loop', safeMode: false });
    const done = await api.waitFor(API_TOKEN, body.sessionId);

    expect(done.sessionState.status).toBe('failed');
    expect(done.error.code).toBe('EAGENTRPC_GUARD_REJECTED');
    const refusals = await auditRecordsOnceWritten([join(a.dir, 'data')], (record) => record.kind === 'guard_reject');
    expect(refusals).toEqual([expect.objectContaining({ rule: 'rate' })]);
  }, 120_000);
});
