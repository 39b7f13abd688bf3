import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { AgentNode } from '../../src/rpc/agent-node.js';
import type { LocalBusEvents } from '../../src/rpc/local-bus.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { natsTransport } from '../../transports/nats/index.js';
import { startA2aTestAgent, type A2aTestAgent } from '../support/a2a-test-agent.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { runNats } from '../support/nats-target.js';

const TOKEN = 'a2a-daemon-token-81d2';
// Inside the repository, so it loads the very modules the daemon runs (one dispatch context).
const RELAY_HANDLER = new URL('../fixtures/handlers/relay-a2a.ts', import.meta.url).pathname;

const nats = await runNats();
let peer: A2aTestAgent;
let daemon: DaemonProcess;
let user: AgentNode;

/** `front`, served by `agent-rpc serve` on NATS; its rpc-peers.yaml names the A2A agent, the token from the environment. */
function frontConfig(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-daemon-'));
  writeFileSync(join(dir, 'agent.yaml'), `version: 1\nagent: { id: front }\nlog: { level: warn }\ndataDir: ./data\nhttp: { port: "\${env:AGENT_HTTP_PORT}" }\nhandlers: { relay: ${RELAY_HANDLER} }\n`);
  writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  nats: { servers: "${nats.url}", subjectPrefix: "${nats.subjectPrefix}" }\ncapabilities:\n  - name: relay\n    inputSchema: { type: object }\n`);
  writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n  - id: agent://summarizer\n    transports: [{ kind: a2a, url: "${url}", tokenRef: "\${env:SUMMARIZER_TOKEN}" }]\n`);
  return dir;
}

beforeAll(async () => {
  peer = await startA2aTestAgent({ streaming: true, token: TOKEN });
  daemon = await DaemonProcess.start(frontConfig(peer.baseUrl), { SUMMARIZER_TOKEN: TOKEN }, await freePort());
  user = new AgentNode({ id: 'user', transports: [natsTransport(nats.options)], peers: [{ id: 'front', routes: [{ kind: 'nats' }] }] });
  await user.start();
}, 90_000);
afterAll(async () => {
  await user?.close();
  daemon?.signal('SIGKILL');
  await peer?.close();
});

describe('a2a daemon - an agent served by agent-rpc serve calls an A2A agent named in its rpc-peers.yaml', () => {
  it('a2a daemon - sync: the peer’s progress and result reach the caller; the call carries the flow’s correlationId', async () => {
    const progress: unknown[] = [];
    const result = await user.requestAgent({ to: 'front', capability: 'relay', payload: { skill: 'summarize', text: 'five words go right here' }, onProgress: (data) => progress.push(data) });
    expect(result.status).toBe('ok');
    expect(result.response).toEqual({ words: 5, skill: 'summarize' });
    expect(progress).toEqual(expect.arrayContaining([{ state: 'working', message: 'counting' }]));
    const sent = peer.record.messages.find((m) => m.metadata?.['correlationId'] === result.correlationId);
    expect(sent?.metadata).toMatchObject({ from: 'agent://front', skillId: 'summarize' });
  });

  it('a2a daemon - async: the answer arrives later as agent.rpc.response', async () => {
    const answered = new Promise<LocalBusEvents['agent.rpc.response']>((resolve) => user.on('agent.rpc.response', resolve));
    const accepted = await user.requestAgent({ to: 'front', capability: 'relay', payload: { skill: 'summarize', text: 'two words' }, mode: 'async' });
    const event = await answered;
    expect(event.requestId).toBe(accepted.messageId);
    expect(event.response).toEqual({ words: 2, skill: 'summarize' });
  });

  it('a2a daemon - the peer’s failure reaches the caller as EAGENTRPC_PEER_FAILED', async () => {
    const result = await user.requestAgent({ to: 'front', capability: 'relay', payload: { skill: 'explode', text: 'x' } });
    expect(result.error?.code).toBe('EAGENTRPC_PEER_FAILED');
  });

  it('a2a daemon - the caller’s deadline, inherited by the daemon’s call, cancels the task on the peer', async () => {
    const slow = peer.nextSlow();
    const canceled = peer.nextCancel();
    const result = await user.requestAgent({ to: 'front', capability: 'relay', payload: { skill: 'slow', text: 'x' }, timeoutMs: 3_000 });
    expect(result.status).toBe('timeout');
    const taskId = await slow;
    expect(await canceled).toBe(taskId);
    await expect.poll(() => peer.taskState(taskId)).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
