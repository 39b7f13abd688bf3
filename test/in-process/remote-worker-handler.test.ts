import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { ModelAgentFleet } from '../support/model-agent-fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';

// Executor: an agent built from its files in this process, whose capability is a
// `type: remote-worker` entry. Worker: a daemon serving /execute, its agent a model agent.
let model: ScriptedModelServer;
let fleet: ModelAgentFleet;
let daemons: ModelDaemons;
beforeEach(async () => {
  model = await startScriptedModelServer();
  fleet = new ModelAgentFleet(model);
  daemons = new ModelDaemons(model);
});
afterEach(async () => {
  await fleet.close();
  await daemons.stop();
  await model.close();
});

/** The worker's agent `fixer`: its `fix` takes `{message}`, as a remote-worker entry with `message` sends it. */
async function startWorker(): Promise<number> {
  const daemon = await daemons.start({
    id: 'fixer',
    capabilitiesYaml: `  - name: fix
    inputSchema: { type: object, properties: { message: { type: string } }, required: [message] }
`,
    agentYaml: `handlers:
  fix:
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "\${input.message}" }]
session: { capability: fix }
`,
  });
  return daemon.http.port;
}

const executorCapabilities = `  - name: fix-config
    inputSchema: { type: object, properties: { file: { type: string }, problem: { type: string } }, required: [file, problem] }
`;

function executorYaml(port: number, entry: string): string {
  return `remoteNodes:
  - { name: build-farm, apiBaseUrl: "http://127.0.0.1:${port}", authTokenRef: "\${env:WORKER_TOKEN}", timeout: 30s }
handlers:
  fix-config: ${entry}
`;
}

/** The message texts of a recorded OpenAI-shaped request, system prompt left out. */
function conversation(request: RecordedModelRequest): Array<{ role: string; content: unknown }> {
  return (request.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((message) => message.role !== 'system');
}

describe('remote worker handlers - a capability run on a remote worker', () => {
  it('remote worker handlers - the worker runs the request: instructions then the filled message, its answer and usage come back', async () => {
    const port = await startWorker();
    fleet.env['WORKER_TOKEN'] = API_TOKEN;
    await fleet.agent({
      id: 'planner',
      capabilitiesYaml: executorCapabilities,
      agentYaml: executorYaml(port, `{ type: remote-worker, worker: build-farm, agent_id: fixer, capability: fix, instructions: "You fix configuration files.", message: "Fix \${input.file}: \${input.problem}" }`),
    });
    model.script({ text: 'Fixed: host is db.internal.', usage: { inputTokens: 120, outputTokens: 15 } });
    const caller = await fleet.caller(['planner']);
    const result = await caller.requestAgent<{ text: string }>({ to: 'planner', capability: 'fix-config', payload: { file: '/etc/app.yaml', problem: 'the host is wrong' } });
    expect(result.status).toBe('ok');
    expect(result.response).toMatchObject({ text: 'Fixed: host is db.internal.' });
    // The worker's model read the instructions, then the message filled from the payload.
    expect(model.requests).toHaveLength(1);
    expect(conversation(model.requests[0]!)).toEqual([
      { role: 'user', content: 'You fix configuration files.' },
      { role: 'user', content: 'Fix /etc/app.yaml: the host is wrong' },
    ]);
    // What the worker spent is the request's usage.
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 15, modelRequests: 1 });
  });

  it('remote worker handlers - without `message` the request payload is the input, unchanged', async () => {
    const port = await startWorker();
    fleet.env['WORKER_TOKEN'] = API_TOKEN;
    await fleet.agent({
      id: 'planner',
      capabilitiesYaml: '  - name: fix-config\n',
      agentYaml: executorYaml(port, '{ type: remote-worker, worker: build-farm, agentId: fixer }'),
    });
    model.script({ text: 'Done.' });
    const caller = await fleet.caller(['planner']);
    const result = await caller.requestAgent({ to: 'planner', capability: 'fix-config', payload: { message: 'Point the config at db.internal.' } });
    expect(result.status).toBe('ok');
    expect(conversation(model.requests[0]!)).toEqual([{ role: 'user', content: 'Point the config at db.internal.' }]);
  });

  it("remote worker handlers - the worker's refusal is the request's error, with the executor's code", async () => {
    const port = await startWorker();
    fleet.env['WORKER_TOKEN'] = API_TOKEN;
    // The worker's `fix` requires `message`: a payload without it is refused there.
    await fleet.agent({ id: 'planner', capabilitiesYaml: '  - name: fix-config\n', agentYaml: executorYaml(port, '{ type: remote-worker, worker: build-farm, agentId: fixer }') });
    const caller = await fleet.caller(['planner']);
    const result = await caller.requestAgent({ to: 'planner', capability: 'fix-config', payload: { text: 'no message' } });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('EAGENTRPC_REMOTE_AGENT_FAILED');
    expect(model.requests).toHaveLength(0);
  });

  it('remote worker handlers - a worker that is not one of remoteNodes is refused when the files load, naming the field', async () => {
    const error = await fleet.agent({ id: 'planner', capabilitiesYaml: '  - name: fix-config\n', agentYaml: 'handlers:\n  fix-config: { type: remote-worker, worker: nowhere }\n' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/agent\.yaml:\d+: handlers\.fix-config\.worker: nowhere is not a remote node: no remoteNodes are configured/);
  });

  it('remote worker handlers - an entry field the type does not know is refused', async () => {
    const error = await fleet.agent({ id: 'planner', capabilitiesYaml: '  - name: fix-config\n', agentYaml: 'handlers:\n  fix-config: { type: remote-worker, worker: w, payload: {} }\n' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/handlers\.fix-config/);
  });
});
