import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { metricValue, scrape } from '../support/prometheus-text.js';

const TOKENS = { alice: 'alice-a2a-token', vic: 'vic-a2a-token' };
const FOREIGN_CLIENT = fileURLToPath(new URL('../fixtures/processes/foreign-a2a-client.py', import.meta.url));
const configDir = mkdtempSync(join(tmpdir(), 'a2a-node-'));
const markers = join(configDir, 'markers');
let daemon: DaemonProcess;
let base: string;
let client: Client;

/** An SDK client from the agent's card URL, sending the given bearer token. */
async function clientFor(token: string | undefined): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return factory.createFromUrl(base, '/a2a/helper-desk/.well-known/agent-card.json');
}

function userMessage(parts: Part[], task?: { taskId: string; contextId: string }): Message {
  return { messageId: randomUUID(), contextId: task?.contextId ?? '', taskId: task?.taskId ?? '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}
const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const request = (message: Message, returnImmediately = false) => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

async function send(parts: Part[], task?: { taskId: string; contextId: string }): Promise<Task> {
  const result = await client.sendMessage(request(userMessage(parts, task)));
  if (!('status' in result)) throw new Error('expected a task');
  return result;
}
const partValues = (parts: readonly Part[] | undefined) => (parts ?? []).map((part) => part.content?.value);

function rpc(body: unknown, headers: Record<string, string> = {}, token: string | null = TOKENS.alice): Promise<Response> {
  return fetch(`${base}/a2a/helper-desk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

/** A JSON answer, read as a client reads it. */
const json = (response: Response | Promise<Response>): Promise<any> => Promise.resolve(response).then((r) => r.json());

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, configDir, { recursive: true });
  mkdirSync(markers);
  const env = { ALICE_TOKEN: TOKENS.alice, VIC_TOKEN: TOKENS.vic, AGENT_DATA_DIR: join(configDir, 'data'), A2A_MARKER_DIR: markers };
  const port = await freePort();
  daemon = await DaemonProcess.start(configDir, env, port);
  base = `http://127.0.0.1:${port}`;
  client = await clientFor(TOKENS.alice);
});
afterAll(() => daemon?.signal('SIGKILL'));

describe('A2A server', () => {
  it('a2a - the agent card is public and lists a skill per capability, bearer security and streaming', async () => {
    const root = await fetch(`${base}/.well-known/agent-card.json`);
    expect(root.status).toBe(200);
    const card = await json(root);
    expect(await json(fetch(`${base}/a2a/helper-desk/.well-known/agent-card.json`))).toEqual(card);
    expect(card).toMatchObject({
      name: 'helper-desk',
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: {} } }],
    });
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${base}/a2a/helper-desk`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
      expect.objectContaining({ url: `${base}/a2a/helper-desk`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
    ]);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['assist', 'add']);
    expect(card.capabilities.extensions[0].params.add.outputSchema).toMatchObject({ required: ['sum'] });
    expect((await fetch(`${base}/a2a/nobody/.well-known/agent-card.json`)).status).toBe(404);
    expect((await fetch(`${base}/a2a/%E0%A4%A`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/a2a/helper-desk`)).status).toBe(405);
  });

  it('a2a - a text message calls the default capability; the result is the task artifact', async () => {
    const task = await send([text('echo: hello there')]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(partValues(task.artifacts[0]!.parts)).toEqual(['hello there']);
    expect(task.metadata).toMatchObject({ capability: 'assist' });
    // The request went through the agent's inbox: auth checked and audited like broker traffic.
    const audit = join(configDir, 'data', 'audit.jsonl');
    const records = () => (existsSync(audit) ? readFileSync(audit, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : []);
    await expect.poll(() => records().some((r) => r['kind'] === 'auth_check' && r['peerId'] === 'agent://a2a' && r['capability'] === 'assist' && r['decision'] === 'accept'), { timeout: 10_000 }).toBe(true);
  });

  it('a2a - a data part naming a capability calls it; a JSON result is a data part', async () => {
    const task = await send([data({ capability: 'add', input: { a: 2, b: 3 } })]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partValues(task.artifacts[0]!.parts)).toEqual([{ sum: 5 }]);
  });

  it('a2a - streaming shows progress as working status updates in order, then the artifact and completed', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(request(userMessage([text('steps: 3')])))) events.push(event);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    const progress = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' && e.payload.value.status?.message ? [e.payload.value.status.message.parts[0]?.content?.value] : []));
    expect(progress).toEqual(['step 1', 'step 2', 'step 3']);
    const artifactAt = kinds.indexOf('artifactUpdate');
    const last = events.at(-1)!.payload;
    expect(artifactAt).toBe(events.length - 2);
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events[artifactAt]!.payload;
    expect(artifact?.$case === 'artifactUpdate' && partValues(artifact.value.artifact?.parts)).toEqual(['done', { text: 'done' }]);
  });

  it('a2a - an approval question makes the task input-required; the next message answers it', async () => {
    const asked = await send([text('approve: command: delete the branch?')]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partValues(asked.status?.message?.parts)).toEqual(['delete the branch?', { approval: { type: 'command', question: 'delete the branch?' } }]);
    const same = { taskId: asked.id, contextId: asked.contextId };
    const done = await send([text('go ahead')], same);
    expect(done.id).toBe(asked.id);
    expect(done.contextId).toBe(asked.contextId);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partValues(done.artifacts[0]!.parts)[0]).toBe('approved=true answer=go ahead');

    const declined = await send([text('approve: command: drop the table?')]);
    await expect(send([], { taskId: declined.id, contextId: declined.contextId })).rejects.toThrow();
    const answered = await send([text('no')], { taskId: declined.id, contextId: declined.contextId });
    expect(partValues(answered.artifacts[0]!.parts)[0]).toBe('approved=false answer=no');
  });

  it('a2a - a message to a working task is refused; cancel ends a slow handler through its abort signal', async () => {
    const started = await client.sendMessage(request(userMessage([text('slow: c1')]), true));
    if (!('status' in started)) throw new Error('expected a task');
    await expect(client.sendMessage(request(userMessage([text('more')], { taskId: started.id, contextId: started.contextId })))).rejects.toThrow();
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const marker = join(markers, 'c1.aborted');
    await until(() => existsSync(marker), 10_000);
    expect(readFileSync(marker, 'utf8')).toBe('EAGENTRPC_ABANDONED');
    expect((await client.getTask({ tenant: '', id: started.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a2a - a cancelled task is not run again: the handler rethrowing its abort reason is not redelivered', async () => {
    const assist = { agent: 'helper-desk', capability: 'assist' };
    const before = await scrape(base);
    const started = await client.sendMessage(request(userMessage([text('slow: r1')]), true));
    if (!('status' in started)) throw new Error('expected a task');
    const runs = join(markers, 'r1.runs');
    await until(() => existsSync(runs), 10_000);
    await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    // The handler has ended (rethrowing EAGENTRPC_ABANDONED, retriable) and its request is settled.
    const failedBefore = metricValue(before, 'agent_rpc_handler_duration_seconds_count', { ...assist, result: 'error' });
    await expect.poll(async () => metricValue(await scrape(base), 'agent_rpc_handler_duration_seconds_count', { ...assist, result: 'error' }), { timeout: 10_000 }).toBeGreaterThan(failedBefore);
    const after = await scrape(base);
    expect(metricValue(after, 'agent_rpc_redeliveries_total', assist)).toBe(metricValue(before, 'agent_rpc_redeliveries_total', assist));
    expect(readFileSync(runs, 'utf8')).toBe('1\n');
    expect((await client.getTask({ tenant: '', id: started.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a2a - a task waiting for input can be cancelled; a message to it is then refused', async () => {
    const asked = await send([text('approve: command: rotate the keys?')]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(send([text('yes')], { taskId: asked.id, contextId: asked.contextId })).rejects.toThrow();
    expect((await client.getTask({ tenant: '', id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a2a - a subscriber to a running task sees its cancellation', async () => {
    const started = await client.sendMessage(request(userMessage([text('slow: s1')]), true));
    if (!('status' in started)) throw new Error('expected a task');
    const seen: StreamResponse[] = [];
    const subscription = (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: started.id })) seen.push(event);
    })();
    // The subscription is open once its first event (the task as it stands) has arrived.
    await until(() => seen.length > 0, 10_000);
    await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    await subscription;
    const last = seen.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a2a - a handler error fails the task with its code; an unknown capability fails with EAGENTRPC_UNKNOWN_CAPABILITY', async () => {
    const failed = await send([text('fail')]);
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(failed.status?.message?.metadata).toEqual({ code: 'SCRIPTED_FAILURE' });
    expect(partValues(failed.status?.message?.parts)[1]).toMatchObject({ error: { code: 'SCRIPTED_FAILURE', retriable: false } });
    const unknown = await send([data({ capability: 'refund', input: {} })]);
    expect(unknown.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(unknown.status?.message?.metadata).toEqual({ code: 'EAGENTRPC_UNKNOWN_CAPABILITY' });
    const invalid = await send([data({ capability: 'add', input: { a: 'two' } })]);
    expect(invalid.status?.message?.metadata).toEqual({ code: 'EAGENTRPC_SCHEMA_VIOLATION' });
  });

  it('a2a - a request without a valid token is refused (401), a viewer is forbidden (403)', async () => {
    const anonymous = await clientFor(undefined);
    await expect(anonymous.sendMessage(request(userMessage([text('echo: x')])))).rejects.toThrow();
    const refused = await rpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, { 'A2A-Version': '1.0' }, null);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await json(refused)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, { 'A2A-Version': '1.0' }, 'wrong')).status).toBe(401);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, { 'A2A-Version': '1.0' }, TOKENS.vic)).status).toBe(403);
  });

  it('a2a - an older client uses the 0.3 method names (message/send, tasks/get) without a version header', async () => {
    const message = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'echo: from 0.3' }] };
    const sent = await json(rpc({ jsonrpc: '2.0', id: 'a', method: 'message/send', params: { message } }));
    expect(sent).toMatchObject({ jsonrpc: '2.0', id: 'a', result: { kind: 'task', status: { state: 'completed' } } });
    expect(sent.result.artifacts[0].parts[0]).toMatchObject({ kind: 'text', text: 'from 0.3' });
    const got = await json(rpc({ jsonrpc: '2.0', id: 'b', method: 'tasks/get', params: { id: sent.result.id } }));
    expect(got).toMatchObject({ id: 'b', result: { id: sent.result.id, status: { state: 'completed' } } });
    // 1.0's names are not 0.3's: without the header they are unknown methods.
    expect((await json(rpc({ jsonrpc: '2.0', id: 'c', method: 'GetTask', params: { id: sent.result.id } }))).error.code).toBe(-32601);
  });

  it('a2a - A2A-Version selects the protocol: 1.0 serves SendMessage, an unsupported version is refused', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo: from 1.0' }] };
    const sent = await json(rpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.0' }));
    expect(sent.result.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    expect(sent.result.task.artifacts[0].parts[0]).toMatchObject({ text: 'from 1.0' });
    const legacyName = await json(rpc({ jsonrpc: '2.0', id: 2, method: 'message/send', params: { message } }, { 'A2A-Version': '1.0' }));
    expect(legacyName.error.code).toBe(-32601);
    const unsupported = await json(rpc({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message } }, { 'A2A-Version': '9.9' }));
    expect(unsupported.error.code).toBe(-32009);
  });

  it('a2a - a patch version in A2A-Version is not considered: 1.0.1 is served as 1.0, 0.3.0 as 0.3', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo: patch' }] };
    const sent = await json(rpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.0.1' }));
    expect(sent.result?.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    const legacy = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'echo: patch 0.3' }] };
    const old = await json(rpc({ jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: legacy } }, { 'A2A-Version': '0.3.0' }));
    expect(old.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect((await json(rpc({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.1.0' }))).error.code).toBe(-32009);
  });

  it('a2a - a Python client written from docs/a2a.md: A2A-Version 1.0.1 is served as 1.0; invalid request objects are -32600, bad params -32602', async () => {
    const run = await promisify(execFile)('/usr/bin/python3', [FOREIGN_CLIENT, base, 'helper-desk', TOKENS.alice], { timeout: 40_000 });
    const answers = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers).toEqual([
      { case: 'patch-version', id: 1, state: 'TASK_STATE_COMPLETED' },
      { case: 'no-method', id: 2, code: -32600 },
      { case: 'jsonrpc-1.0', id: 3, code: -32600 },
      { case: 'array', id: null, code: -32600 },
      { case: 'string', id: null, code: -32600 },
      { case: 'not-json', id: null, code: -32700 },
      { case: 'bad-params', id: 5, code: -32602 },
    ]);
  });

  it('a2a - on 1.0 a request object that is not valid JSON-RPC is -32600 (invalid request), as on 0.3', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo: x' }] };
    for (const version of ['1.0', '0.3']) {
      const headers = { 'A2A-Version': version };
      expect(await json(rpc({ jsonrpc: '2.0', id: 1, params: { message } }, headers))).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600 } });
      expect(await json(rpc({ jsonrpc: '1.0', id: 2, method: 'SendMessage', params: { message } }, headers))).toMatchObject({ id: 2, error: { code: -32600 } });
      for (const body of [[{ jsonrpc: '2.0', id: 3, method: 'SendMessage' }], 'SendMessage', 42, null]) {
        expect(await json(rpc(body, headers))).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      }
    }
    // Valid requests with bad params stay -32602.
    expect((await json(rpc({ jsonrpc: '2.0', id: 4, method: 'SendMessage', params: [] }, { 'A2A-Version': '1.0' }))).error.code).toBe(-32602);
  });
});

describe('A2A server - settings', () => {
  let configured: DaemonProcess | undefined;
  let port: number;
  let markerDir: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-node-settings-'));
    cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, dir, { recursive: true });
    appendFileSync(join(dir, 'agent.yaml'), 'a2a: { timeout_ms: 3000, tasks_per_user: 2 }\n');
    markerDir = join(dir, 'markers');
    mkdirSync(markerDir);
    port = await freePort();
    configured = await DaemonProcess.start(dir, { ALICE_TOKEN: TOKENS.alice, VIC_TOKEN: TOKENS.vic, AGENT_DATA_DIR: join(dir, 'data'), A2A_MARKER_DIR: markerDir }, port);
  }, 90_000);
  afterAll(() => configured?.signal('SIGKILL'));
  const call = async (method: string, params: unknown): Promise<any> => {
    const response = await fetch(`http://127.0.0.1:${port}/a2a/helper-desk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.alice}`, 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return response.json();
  };

  it('a2a - agent.yaml a2a.tasks_per_user bounds the tasks kept per user: the newest stay readable, the oldest are dropped (TaskNotFound)', async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const sent = await call('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `echo: task ${i}` }] } });
      expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      ids.push(sent.result.task.id as string);
    }
    const read = await Promise.all(ids.map((id) => call('GetTask', { id })));
    // Two generations of 2: tasks 3–5 are kept, 1 and 2 went with the oldest generation.
    expect(read.map((answer) => answer.error?.code ?? answer.result.status.state)).toEqual([-32001, -32001, 'TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
  });

  it('a2a - agent.yaml a2a.timeout_ms is the deadline of a task: the task fails with EAGENTRPC_TIMEOUT and the handler still running is aborted', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'slow: deadline' }] };
    const sent = (await call('SendMessage', { message })) as { result: { task: { status: { state: string; message: { metadata: unknown } } } } };
    expect(sent.result.task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { metadata: { code: 'EAGENTRPC_TIMEOUT' } } });
    // The handler's signal fired at the deadline too (the marker is written after it, so wait for it).
    const marker = join(markerDir, 'deadline.aborted');
    await until(() => existsSync(marker), 10_000);
    expect(readFileSync(marker, 'utf8')).toBe('EAGENTRPC_TIMEOUT');
  });
});

describe('A2A server - restart', () => {
  let first: DaemonProcess | undefined;
  let second: DaemonProcess | undefined;
  afterAll(() => {
    first?.signal('SIGKILL');
    second?.signal('SIGKILL');
  });

  it('a2a - tasks outlive a crash of the daemon: a finished task reads back the same, one that was running reads failed (EAGENTRPC_ABANDONED)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-node-restart-'));
    cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, dir, { recursive: true });
    const markerDir = join(dir, 'markers');
    mkdirSync(markerDir);
    const env = { ALICE_TOKEN: TOKENS.alice, VIC_TOKEN: TOKENS.vic, AGENT_DATA_DIR: join(dir, 'data'), A2A_MARKER_DIR: markerDir };
    const call = async (port: number, method: string, params: unknown): Promise<any> => {
      const response = await fetch(`http://127.0.0.1:${port}/a2a/helper-desk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.alice}`, 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return response.json();
    };
    const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
    const firstPort = await freePort();
    first = await DaemonProcess.start(dir, env, firstPort);
    const done = (await call(firstPort, 'SendMessage', { message: message('echo: kept across a crash') })).result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const running = (await call(firstPort, 'SendMessage', { message: message('slow: crash'), configuration: { returnImmediately: true } })).result.task;
    await expect.poll(async () => (await call(firstPort, 'GetTask', { id: running.id })).result.status.state).toBe('TASK_STATE_WORKING');
    const before = (await call(firstPort, 'GetTask', { id: done.id })).result;
    first.signal('SIGKILL');
    await first.exited;

    const secondPort = await freePort();
    second = await DaemonProcess.start(dir, env, secondPort);
    expect((await call(secondPort, 'GetTask', { id: done.id })).result).toEqual(before);
    const failed = (await call(secondPort, 'GetTask', { id: running.id })).result;
    expect(failed.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { metadata: { code: 'EAGENTRPC_ABANDONED' } } });
  });
});
