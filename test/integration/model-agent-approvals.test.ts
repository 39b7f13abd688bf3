import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { FLEET_SECRETS } from '../support/model-agent-fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { lastToolResults } from '../support/model-requests.js';
import { runNats } from '../support/nats-target.js';
import { SessionApiClient } from '../support/session-api-client.js';

let model: ScriptedModelServer;
let daemons: ModelDaemons | undefined;
beforeEach(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  await daemons?.stop();
  daemons = undefined;
  await model.close();
});

const SESSION_CAPABILITY = (name: string) => `  - name: ${name}
    inputSchema: { type: object, properties: { message: { type: string } }, required: [message] }
`;

/** A model agent serving `capability`; its bash asks (hitl) before anything, in safe mode. */
const modelAgent = (capability: string, tools: string, content = '${input.message}') => `handlers:
  ${capability}:
    type: agent
    agent:
      tools:
        enabled: [${tools}]
        bash_policy: { default_behavior: deny, deny_behavior: hitl, rules: [] }
    messages: [{ role: user, content: "${content}" }]
`;

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] });

/** Records of the agent's audit log, once it holds one of `kind`. */
async function auditOf(dataDir: string, kind: string): Promise<Array<Record<string, unknown>>> {
  const file = join(dataDir, 'audit.jsonl');
  const read = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : []);
  await expect.poll(() => read().some((record) => record.kind === kind), { timeout: 10_000 }).toBe(true);
  return read();
}

describe('model agents - approvals reach whoever can answer', () => {
  it('approvals - hitl in a session: the prompt waits in the session, the user approves, the agent continues', async () => {
    daemons = new ModelDaemons(model);
    const desk = await daemons.start({ id: 'desk', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: `${modelAgent('assist', 'bash')}session: { capability: assist }\n` });
    model.script(bash('echo deploying'), { text: 'Deployed.' });
    const api = new SessionApiClient(`http://127.0.0.1:${desk.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'deploy it', safeMode: true });
    const waiting = await api.waitFor(API_TOKEN, body.sessionId, 'prompt');
    expect(waiting.pendingPrompt).toMatchObject({ type: 'command', question: expect.stringContaining('echo deploying') });
    await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, API_TOKEN, { promptId: waiting.pendingPrompt.promptId, approved: true });
    const done = await api.waitFor(API_TOKEN, body.sessionId);
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'Deployed.' });
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/deploying\n\[exit code 0\]/);
  });

  it('approvals - hitl in an agent two hops down over NATS is answered in the first caller’s session', async () => {
    const nats = await runNats();
    daemons = new ModelDaemons(model, nats);
    await daemons.start({
      id: 'worker',
      capabilitiesYaml: `  - name: run\n    description: Runs a task.\n    inputSchema: { type: object, properties: { task: { type: string } }, required: [task] }\n`,
      agentYaml: modelAgent('run', 'bash', 'Run: ${input.task}'),
    });
    await daemons.start({
      id: 'middle',
      peers: ['worker'],
      capabilitiesYaml: `  - name: delegate\n    description: Delegates a task.\n    inputSchema: { type: object, properties: { task: { type: string } }, required: [task] }\n`,
      agentYaml: modelAgent('delegate', '"peer:agent://worker/*"', 'Delegate: ${input.task}'),
    });
    const front = await daemons.start({ id: 'front', peers: ['middle'], capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: `${modelAgent('assist', '"peer:agent://middle/*"')}session: { capability: assist }\n` });
    model.script(
      { toolCalls: [{ name: 'middle__delegate', arguments: { task: 'restart the cache' } }] },
      { toolCalls: [{ name: 'worker__run', arguments: { task: 'restart the cache' } }] },
      bash('echo cache-restarted'),
      { text: 'worker: cache restarted' },
      { text: 'middle: worker restarted the cache' },
      { text: 'All done: the cache was restarted.' },
    );
    const api = new SessionApiClient(`http://127.0.0.1:${front.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'please restart the cache', safeMode: true });
    const waiting = await api.waitFor(API_TOKEN, body.sessionId, 'prompt');
    expect(waiting.pendingPrompt.question).toContain('echo cache-restarted');
    await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, API_TOKEN, { promptId: waiting.pendingPrompt.promptId, approved: true });
    const done = await api.waitFor(API_TOKEN, body.sessionId);
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'All done: the cache was restarted.' });
    expect(lastToolResults(model.requests[3]!)[0]).toMatch(/cache-restarted\n\[exit code 0\]/);
    // Asked by the worker, relayed by the middle agent, answered by the front's session; each hop audited.
    expect((await auditOf(daemons.dataDirOf('worker'), 'approval_answered')).find((r) => r.kind === 'approval_answered')).toMatchObject({ approved: true, from: 'agent://middle' });
    expect((await auditOf(daemons.dataDirOf('middle'), 'approval_relayed')).find((r) => r.kind === 'approval_relayed')).toMatchObject({ approved: true, by: 'caller' });
    for (const value of Object.values(FLEET_SECRETS)) expect(model.requests.map((request) => request.raw).join('\n')).not.toContain(value);
  });

  it('approvals - a declined prompt reaches the model as a refused command, and it answers anyway', async () => {
    daemons = new ModelDaemons(model);
    const desk = await daemons.start({ id: 'desk', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: `${modelAgent('assist', 'bash')}session: { capability: assist }\n` });
    model.script(bash('echo nope'), { text: 'I was not allowed.' });
    const api = new SessionApiClient(`http://127.0.0.1:${desk.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'try', safeMode: true });
    const waiting = await api.waitFor(API_TOKEN, body.sessionId, 'prompt');
    await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, API_TOKEN, { promptId: waiting.pendingPrompt.promptId, approved: false });
    expect((await api.waitFor(API_TOKEN, body.sessionId)).messages.at(-1).content).toBe('I was not allowed.');
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/declined|not approved/i);
  });
});

describe('model agents - remote_agent', () => {
  const remoteAgentConfig = (port: number) => `${modelAgent('assist', 'remote_agent, list_remote_nodes')}session: { capability: assist }
remoteNodes:
  - { name: build-farm, description: Builds and tests, apiBaseUrl: "http://127.0.0.1:${port}", authTokenRef: "\${env:API_TOKEN}" }
`;

  it('remote_agent - delegates to a second daemon’s model agent, which continues the same flow', async () => {
    daemons = new ModelDaemons(model);
    const farm = await daemons.start({ id: 'farm', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: `${modelAgent('assist', 'think')}session: { capability: assist }\n` });
    const desk = await daemons.start({ id: 'desk', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: remoteAgentConfig(farm.http.port) });
    model.script(
      { toolCalls: [{ name: 'remote_agent', arguments: { node: 'build-farm', message: 'build the app' } }] },
      { toolCalls: [{ name: 'think', arguments: { thought: 'building' } }] },
      { text: 'built in 3 minutes' },
      { text: 'The build farm built it.' },
    );
    const api = new SessionApiClient(`http://127.0.0.1:${desk.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'build', safeMode: false });
    const done = await api.waitFor(API_TOKEN, body.sessionId);
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'The build farm built it.' });
    expect(lastToolResults(model.requests[3]!)[0]).toContain('built in 3 minutes');
    const local = (await auditOf(daemons.dataDirOf('desk'), 'tool_call')).find((r) => r.kind === 'tool_call' && r.tool === 'remote_agent');
    const remote = (await auditOf(daemons.dataDirOf('farm'), 'tool_call')).find((r) => r.kind === 'tool_call' && r.tool === 'think');
    expect(remote?.correlationId).toBe(local?.correlationId);
    expect(JSON.stringify(model.requests.map((request) => request.raw))).not.toContain(API_TOKEN);
  });

  it('remote_agent - the model lists the nodes as {name, description}, and an unknown name is answered with the available ones', async () => {
    daemons = new ModelDaemons(model);
    const desk = await daemons.start({ id: 'desk', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: remoteAgentConfig(1) });
    model.script(
      { toolCalls: [{ name: 'list_remote_nodes', arguments: {} }] },
      { toolCalls: [{ name: 'remote_agent', arguments: { node: 'prod', message: 'deploy' } }] },
      { text: 'No such node.' },
    );
    const api = new SessionApiClient(`http://127.0.0.1:${desk.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'deploy', safeMode: false });
    expect((await api.waitFor(API_TOKEN, body.sessionId)).messages.at(-1).content).toBe('No such node.');
    expect(JSON.parse(lastToolResults(model.requests[1]!)[0]!)).toEqual([{ name: 'build-farm', description: 'Builds and tests' }]);
    expect(lastToolResults(model.requests[2]!)[0]).toBe('Unknown remote node "prod". Available nodes: build-farm');
  });

  it('remote_agent - the remote guard sees the chain across nodes and refuses past its depth', async () => {
    daemons = new ModelDaemons(model);
    const farm = await daemons.start({ id: 'farm', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: `${modelAgent('assist', 'think')}session: { capability: assist }\nguard: { maxDepth: 1 }\n` });
    const desk = await daemons.start({ id: 'desk', capabilitiesYaml: SESSION_CAPABILITY('assist'), agentYaml: remoteAgentConfig(farm.http.port) });
    model.script({ toolCalls: [{ name: 'remote_agent', arguments: { node: 'build-farm', message: 'build the app' } }] }, { text: 'The farm refused.' });
    const api = new SessionApiClient(`http://127.0.0.1:${desk.http.port}`);
    const { body } = await api.create(API_TOKEN, { message: 'build', safeMode: false });
    expect((await api.waitFor(API_TOKEN, body.sessionId)).messages.at(-1).content).toBe('The farm refused.');
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/remote_agent failed: .*call depth 2 exceeds limit/);
    expect(model.requests).toHaveLength(2);
  });
});
