import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { oauth2ClientAuth } from '../../src/auth/oauth2-client-provider.js';
import { AgentNode, type AgentNodeOptions } from '../../src/rpc/agent-node.js';
import { silentLogger } from '../../src/logger.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { metricValue, scrape } from '../support/prometheus-text.js';
import { startOidcIssuer } from '../support/oidc-issuer.js';
import type { LocalBusEvents } from '../../src/rpc/local-bus.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { a2aGateway } from '../../src/a2a/index.js';
import { MemoryBus } from '../../transports/memory/memory-bus.js';
import { memoryTransport } from '../../transports/memory/index.js';
import { startA2aTestAgent, type A2aTestAgent } from '../support/a2a-test-agent.js';
import { ModelAgentFleet } from '../support/model-agent-fleet.js';
import { lastToolResults, toolsOf } from '../support/model-requests.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function agent(streaming: boolean): Promise<A2aTestAgent> {
  const started = await startA2aTestAgent({ streaming });
  closers.push(() => started.close());
  return started;
}

/** A node that reaches `summarizer` over a2a at `url`, and `front` over memory. */
async function caller(url: string, options: Partial<AgentNodeOptions> = {}, bus = new MemoryBus()): Promise<AgentNode> {
  const node = new AgentNode({
    id: `caller-${closers.length}`,
    transports: [memoryTransport({ bus })],
    gateways: [a2aGateway({ pollIntervalMs: 20 })],
    peers: [{ id: 'summarizer', routes: [{ kind: 'a2a', requestsTopic: url }] }],
    ...options,
  });
  await node.start();
  closers.push(() => node.close());
  return node;
}

describe('a2a peer - calls', () => {
  it('a2a peer - a sync call streams status updates as progress and returns the artifact', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const progress: unknown[] = [];
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'three little words', onProgress: (data) => progress.push(data) });
    expect(result.status).toBe('ok');
    expect(result.response).toEqual({ words: 3, skill: 'summarize' });
    expect(progress).toEqual(expect.arrayContaining([{ state: 'working', message: 'reading' }, { state: 'working', message: 'counting' }]));
    const sent = peer.record.messages[0]!;
    expect(sent.parts[0]?.content).toEqual({ $case: 'text', value: 'three little words' });
    expect(sent.metadata).toMatchObject({ skillId: 'summarize', capability: 'summarize', correlationId: result.correlationId, messageId: result.messageId });
  });

  it('a2a peer - a card without streaming is followed by polling the task', async () => {
    const peer = await agent(false);
    const node = await caller(peer.baseUrl);
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: { message: 'one two' } });
    expect(result.response).toEqual({ words: 2, skill: 'summarize' });
    expect(peer.record.messages[0]!.parts[0]?.content).toEqual({ $case: 'text', value: 'one two' });
  });

  it('a2a peer - a JSON payload travels as a data part', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: { text: 'a b', lines: 1 } });
    expect(result.status).toBe('ok');
    expect(peer.record.messages[0]!.parts[0]?.content).toEqual({ $case: 'data', value: { text: 'a b', lines: 1 } });
  });

  it('a2a peer - an async call answers later as agent.rpc.response', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const answered = new Promise<LocalBusEvents['agent.rpc.response']>((resolve) => node.on('agent.rpc.response', resolve));
    const accepted = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'four words right here', mode: 'async' });
    expect(accepted.status).toBe('ok');
    const event = await answered;
    expect(event.requestId).toBe(accepted.messageId);
    expect(event.status).toBe('ok');
    expect(event.response).toEqual({ words: 4, skill: 'summarize' });
  });

  it('a2a peer - $capabilities answers the card’s skills; $ping answers from the card', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const capabilities = await node.requestAgent<{ capabilities: Array<{ name: string; description: string; inputSchema: unknown }> }>({ to: 'summarizer', capability: '$capabilities', payload: null });
    expect(capabilities.response?.capabilities.map((c) => c.name)).toEqual(['summarize', 'explode', 'slow']);
    expect(capabilities.response?.capabilities[0]).toMatchObject({ description: 'Summarize: Counts the words of a text.', inputSchema: { type: 'object', required: ['message'] } });
    const ping = await node.requestAgent({ to: 'summarizer', capability: '$ping', payload: null });
    expect(ping.response).toMatchObject({ agent: 'agent://summarizer', a2a: { name: 'summarizer' } });
  });
});

describe('a2a peer - auth', () => {
  it('a2a peer - a peer with oauth2-client auth gets the minted token as the bearer of the call’s A2A requests', async () => {
    const issuer = await startOidcIssuer({ clients: [{ clientId: 'front', clientSecret: 'front-secret-5d1', scopes: ['a2a:call'] }], resource: 'https://summarizer.example', scopes: ['a2a:call'] });
    closers.push(() => issuer.close());
    const peer = await agent(false);
    const auth = oauth2ClientAuth({ tokenEndpoint: issuer.tokenEndpoint, clientId: 'front', clientSecret: 'front-secret-5d1', scopes: ['a2a:call'], resource: 'https://summarizer.example' });
    const node = await caller(peer.baseUrl, { peers: [{ id: 'summarizer', routes: [{ kind: 'a2a', requestsTopic: peer.baseUrl }], auth }] });
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'x y' });
    expect(result.status).toBe('ok');
    // SendMessage, then at least one GetTask: each with the token.
    expect(peer.record.authorizations.length).toBeGreaterThanOrEqual(2);
    for (const header of peer.record.authorizations) {
      const [scheme, token] = header.split(' ');
      expect(scheme).toBe('Bearer');
      const claims = JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string; aud: string };
      expect(claims).toMatchObject({ iss: issuer.issuer, aud: 'https://summarizer.example' });
    }
  });
});

describe('a2a peer - failures', () => {
  it('a2a peer - a failed task is EAGENTRPC_PEER_FAILED with the peer’s message and task', async () => {
    for (const streaming of [true, false]) {
      const peer = await agent(streaming);
      const node = await caller(peer.baseUrl);
      const result = await node.requestAgent({ to: 'summarizer', capability: 'explode', payload: 'x' });
      expect(result.status).toBe('error');
      expect(result.error?.code).toBe('EAGENTRPC_PEER_FAILED');
      expect(result.error?.details).toMatchObject({ state: 'failed', url: peer.baseUrl });
    }
  });

  it('a2a peer - a stream that ends before the task is followed by polling, without repeating a status already seen', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const progress: unknown[] = [];
    const result = await node.requestAgent({ to: 'summarizer', capability: 'stepwise', payload: 'x', onProgress: (data) => progress.push(data) });
    expect(result.response).toEqual({ steps: 4 });
    const seen = progress.map((p) => `${(p as { state: string }).state} ${(p as { message?: string }).message ?? ''}`.trim());
    expect(seen).toEqual(['submitted', 'working step 1', 'working step 2', 'working step 3', 'working step 4']);
  });

  for (const [mode, streaming, skill] of [['closed stream', true, 'ask'], ['open stream', true, 'ask-open'], ['polling', false, 'ask']] as const) {
    it(`a2a peer - input-required cancels the task on the peer, so it does not wait for an answer for ever (${mode})`, async () => {
      const peer = await agent(streaming);
      const node = await caller(peer.baseUrl);
      const result = await node.requestAgent({ to: 'summarizer', capability: skill, payload: 'x' });
      expect(result.error?.code).toBe('EAGENTRPC_PEER_INPUT_REQUIRED');
      const taskId = result.error?.details?.['taskId'] as string;
      expect(taskId).toEqual(expect.any(String));
      await expect.poll(() => peer.taskState(taskId), { timeout: 10_000 }).toBe(TaskState.TASK_STATE_CANCELED);
    });
  }

  it('a2a peer - input-required is EAGENTRPC_PEER_INPUT_REQUIRED carrying the question', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const result = await node.requestAgent({ to: 'summarizer', capability: 'ask', payload: 'x' });
    expect(result.error?.code).toBe('EAGENTRPC_PEER_INPUT_REQUIRED');
    expect(result.error?.details).toMatchObject({ question: 'which language?' });
  });

  it('a2a peer - a card that could not be fetched is not kept: the next call fetches it again', async () => {
    const peer = await startA2aTestAgent({ streaming: true, cardFailures: 1 });
    closers.push(() => peer.close());
    const node = await caller(peer.baseUrl);
    const first = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'x' });
    expect(first.error?.code).toBe('EAGENTRPC_PEER_CARD_INVALID');
    const second = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'x y' });
    expect(second.response).toEqual({ words: 2, skill: 'summarize' });
  });

  it('a2a peer - an unreachable peer is EAGENTRPC_REMOTE_UNREACHABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const node = await caller(url);
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'x' });
    expect(result.error?.code).toBe('EAGENTRPC_REMOTE_UNREACHABLE');
  });

  it('a2a peer - a server without a card is EAGENTRPC_PEER_CARD_INVALID', async () => {
    const server: Server = createServer((_req, res) => res.writeHead(404).end('no card here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const node = await caller(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const result = await node.requestAgent({ to: 'summarizer', capability: 'summarize', payload: 'x' });
    expect(result.error?.code).toBe('EAGENTRPC_PEER_CARD_INVALID');
  });
});

describe('a2a peer - cancel and deadline cancel the task on the peer', () => {
  for (const streaming of [true, false]) {
    it(`a2a peer - the caller aborting cancels the task in the peer's task store (${streaming ? 'streaming' : 'polling'})`, async () => {
      const peer = await agent(streaming);
      const node = await caller(peer.baseUrl);
      const controller = new AbortController();
      const slow = peer.nextSlow();
      const canceled = peer.nextCancel();
      const call = node.requestAgent({ to: 'summarizer', capability: 'slow', payload: 'x', signal: controller.signal, timeoutMs: 60_000 });
      const taskId = await slow;
      controller.abort();
      expect((await call).status).toBe('abandoned');
      expect(await canceled).toBe(taskId);
      await expect.poll(() => peer.taskState(taskId)).toBe(TaskState.TASK_STATE_CANCELED);
    });
  }

  it('a2a peer - the deadline passing cancels the task on the peer; the caller times out', async () => {
    const peer = await agent(true);
    const node = await caller(peer.baseUrl);
    const canceled = peer.nextCancel();
    const slow = peer.nextSlow();
    const result = await node.requestAgent({ to: 'summarizer', capability: 'slow', payload: 'x', timeoutMs: 1_500 });
    expect(result.error?.code).toBe('EAGENTRPC_TIMEOUT');
    const taskId = await slow;
    expect(await canceled).toBe(taskId);
    await expect.poll(() => peer.taskState(taskId)).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe('a2a peer - the configured agent, and no other', () => {
  it('a2a peer - a url with a path reaches the agent under it (our per-agent cards), never the card at the origin root', async () => {
    // One process serving two agents: helper-desk (first, so also the card at the root) and second-desk.
    const dirs = ['helper-desk', 'second-desk'].map((id) => {
      const dir = mkdtempSync(join(tmpdir(), `a2a-path-${id}-`));
      cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, dir, { recursive: true });
      const agentYaml = join(dir, 'agent.yaml');
      writeFileSync(agentYaml, readFileSync(agentYaml, 'utf8').replace('id: helper-desk', `id: ${id}`).replace('${env:AGENT_DATA_DIR}', join(dir, 'data')));
      return dir;
    });
    const token = 'alice-path-token';
    const daemon = await startDaemon(dirs, builtinPlugins, { env: { ALICE_TOKEN: token, VIC_TOKEN: 'vic-path-token', AGENT_HTTP_PORT: '0', A2A_MARKER_DIR: dirs[0]! }, logger: silentLogger });
    closers.push(() => daemon.stop());
    const base = `http://127.0.0.1:${daemon.http.port}`;
    const handled = async (agent: string) => metricValue(await scrape(base), 'agent_rpc_handler_duration_seconds_count', { agent, capability: 'assist', result: 'ok' });
    for (const url of [`${base}/a2a/second-desk`, `${base}/a2a/second-desk/`, `${base}/a2a/second-desk/.well-known/agent-card.json`]) {
      const node = await caller(url, { gateways: [a2aGateway({ routes: [{ url, tokenRef: 'alice' }], resolveSecret: async () => new SecretValue(token) })] });
      const before = await handled('second-desk');
      const result = await node.requestAgent({ to: 'summarizer', capability: 'assist', payload: 'echo: which desk?' });
      expect(result).toMatchObject({ status: 'ok', response: 'which desk?' });
      expect(await handled('second-desk')).toBe(before + 1);
      expect(await handled('helper-desk')).toBe(0);
    }
    // A path no agent serves is a card that cannot be read: the call goes nowhere else (not to the root's agent).
    for (const url of [`${base}/poll`, `${base}/a2a/nobody`]) {
      const node = await caller(url, { gateways: [a2aGateway({ routes: [{ url, tokenRef: 'alice' }], resolveSecret: async () => new SecretValue(token) })] });
      expect((await node.requestAgent({ to: 'summarizer', capability: 'assist', payload: 'echo: anyone?' })).error?.code).toBe('EAGENTRPC_PEER_CARD_INVALID');
      expect(await handled('helper-desk')).toBe(0);
    }
  });
});

describe('a2a peer - guarded flows', () => {
  it('a2a peer - a handler’s call joins its flow: the peer gets the flow’s correlationId; the depth limit counts the A2A hop', async () => {
    const peer = await agent(true);
    const bus = new MemoryBus();
    const front = await caller(peer.baseUrl, { id: 'front', guard: { maxDepth: 2 } }, bus);
    front.handle('relay', async (input, ctx) => {
      const answer = await ctx.requestAgent({ to: 'summarizer', capability: 'summarize', payload: input });
      return answer.status === 'ok' ? answer.response : { refused: answer.error?.code };
    });
    const user = new AgentNode({ id: 'user', transports: [memoryTransport({ bus })], peers: [{ id: 'front', routes: [{ kind: 'memory' }] }, { id: 'middle', routes: [{ kind: 'memory' }] }] });
    const middle = new AgentNode({ id: 'middle', transports: [memoryTransport({ bus })], peers: [{ id: 'front', routes: [{ kind: 'memory' }] }] });
    middle.handle('relay', async (input, ctx) => (await ctx.requestAgent({ to: 'front', capability: 'relay', payload: input })).response);
    for (const node of [user, middle]) {
      await node.start();
      closers.push(() => node.close());
    }

    const relayed = await user.requestAgent({ to: 'front', capability: 'relay', payload: 'two words' });
    expect(relayed.response).toEqual({ words: 2, skill: 'summarize' });
    expect(peer.record.messages[0]!.metadata).toMatchObject({ correlationId: relayed.correlationId, from: 'agent://front' });

    // user → middle (1) → front (2) → summarizer (3): past front's maxDepth 2, refused before anything is sent.
    const deeper = await user.requestAgent({ to: 'middle', capability: 'relay', payload: 'x' });
    expect(deeper.response).toEqual({ refused: 'EAGENTRPC_GUARD_REJECTED' });
    expect(peer.record.messages).toHaveLength(1);
  });
});

describe('a2a peer - model agents', () => {
  let model: ScriptedModelServer | undefined;
  afterEach(async () => model?.close());

  it('a2a peer - a model agent calls an A2A skill as a tool, configured in rpc-peers.yaml', async () => {
    const peer = await agent(true);
    model = await startScriptedModelServer();
    const fleet = new ModelAgentFleet(model);
    closers.push(() => fleet.close());
    await fleet.agent({
      id: 'lead',
      capabilitiesYaml: `  - name: triage
    description: Triages a report.
`,
      agentYaml: `handlers:
  triage:
    type: agent
    agent: { tools: { enabled: ["peer:agent://summarizer/*"] } }
    messages: [{ role: user, content: "Triage: \${input}" }]
`,
      peersYaml: `  - id: agent://summarizer\n    transports: [{ kind: a2a, url: "${peer.baseUrl}" }]\n`,
    });
    model.script({ toolCalls: [{ name: 'summarizer__summarize', arguments: { message: 'a long long report' } }] }, { text: 'Four words.' });
    const user = await fleet.caller(['lead']);
    const result = await user.requestAgent<{ text: string }>({ to: 'lead', capability: 'triage', payload: 'report' });
    expect(result.response?.text).toBe('Four words.');
    const tool = toolsOf(model.requests[0]!).find((t) => t.name === 'summarizer__summarize');
    expect(tool?.description).toContain('Counts the words of a text.');
    expect(tool?.parameters).toMatchObject({ type: 'object', required: ['message'] });
    expect(lastToolResults(model.requests[1]!).join('\n')).toContain('"words":4');
    expect(peer.record.messages[0]!.parts[0]?.content).toEqual({ $case: 'text', value: 'a long long report' });
  });
});
