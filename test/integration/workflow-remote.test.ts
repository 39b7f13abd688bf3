import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { WorkflowRunRecord } from '../../src/workflows/run-record.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { FLEET_SECRETS, ModelAgentFleet } from '../support/model-agent-fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { auditRecordsOnceWritten } from '../support/audit-file.js';

// Executor: `agent-rpc run` in its own process. Worker: `agent-rpc serve` in its own process.
// Both ask the same scripted model server, one step after the other.
let model: ScriptedModelServer;
let daemons: ModelDaemons;
let worker: DaemonProcess | undefined;
beforeEach(async () => {
  model = await startScriptedModelServer();
  daemons = new ModelDaemons(model);
});
afterEach(async () => {
  if (worker) {
    worker.signal('SIGTERM');
    await worker.exited;
    worker = undefined;
  }
  await model.close();
});

/** The worker's agent (`fixer` by default): its session capability takes `{message}`, as worker steps send it. */
async function startWorker(port: number, id = 'fixer', agent = '{ tools: { enabled: [] } }'): Promise<void> {
  const { dir, env } = daemons.writeConfig(
    {
      id,
      capabilitiesYaml: `  - name: fix
    inputSchema: { type: object, properties: { message: { type: string } }, required: [message] }
`,
      agentYaml: `handlers:
  fix:
    type: agent
    agent: ${agent}
    messages: [{ role: user, content: "\${input.message}" }]
session: { capability: fix }
`,
    },
    port,
  );
  worker = await DaemonProcess.start(dir, env, port);
}

/** The executor's agent and a workflow whose middle step runs on the worker at `port`. */
function executor(port: number): { agentDir: string; workflowFile: string } {
  const agentDir = join(daemons.root, 'planner');
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, 'agent.yaml'),
    `version: 1
agent: { id: planner }
log: { level: warn }
dataDir: ./data
models:
  - { id: fast, provider: openai-compatible, model: scripted-small, baseUrl: "\${env:MODEL_URL}/v1", apiKeyRef: "\${env:MODEL_KEY}", default: true, pricing: { inputPer1M: 2, outputPer1M: 10 } }
remoteNodes:
  - { name: build-farm, apiBaseUrl: "http://127.0.0.1:${port}", authTokenRef: "\${env:WORKER_TOKEN}", timeout: 30s }
`,
  );
  writeFileSync(join(agentDir, 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities: []\n');
  const workflowFile = join(daemons.root, 'fix-config.workflow.yaml');
  writeFileSync(
    workflowFile,
    `version: 1
name: fix-config
params: { DB_HOST: db.internal }
steps:
  - name: analyze
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Find what is wrong with /etc/app.yaml." }]
    output: ANALYSIS
  - name: fix
    type: agent
    worker: build-farm
    agent_id: fixer
    messages: [{ role: user, content: "Fix it to point to \${DB_HOST}. The analysis said: \${ANALYSIS}" }]
    output: FIX
    depends: [analyze]
    timeout_sec: 60
  - name: report
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Write the change note for: \${FIX}" }]
    depends: [fix]
`,
  );
  return { agentDir, workflowFile };
}

/** An executor with no models at all, and a workflow whose only steps run on the worker at `port`. */
function workersOnlyExecutor(port: number): { agentDir: string; workflowFile: string } {
  const agentDir = join(daemons.root, 'dispatcher');
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, 'agent.yaml'),
    `version: 1
agent: { id: dispatcher }
log: { level: warn }
dataDir: ./data
remoteNodes:
  - { name: build-farm, apiBaseUrl: "http://127.0.0.1:${port}", authTokenRef: "\${env:WORKER_TOKEN}", timeout: 30s }
`,
  );
  writeFileSync(join(agentDir, 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities: []\n');
  const workflowFile = join(daemons.root, 'remote-only.workflow.yaml');
  writeFileSync(
    workflowFile,
    `version: 1
name: remote-only
steps:
  - name: analyze
    type: agent
    worker: build-farm
    agent_id: fixer
    messages: [{ role: user, content: "Find what is wrong with /etc/app.yaml." }]
    output: ANALYSIS
  - name: fix
    type: agent
    worker: build-farm
    agent_id: fixer
    messages: [{ role: user, content: "Fix it. The analysis said: \${ANALYSIS}" }]
    depends: [analyze]
`,
  );
  return { agentDir, workflowFile };
}

const run = (files: { agentDir: string; workflowFile: string }) =>
  runCliProcess(['run', files.workflowFile, '--config', files.agentDir, '--json'], { ...FLEET_SECRETS, MODEL_URL: model.url, WORKER_TOKEN: API_TOKEN });

const texts = (request: RecordedModelRequest): string[] =>
  (request.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role !== 'system').map((m) => String(m.content));

describe('workflow remote - worker steps through the remote execution protocol', () => {
  it('workflow remote - a three-step run with its middle step on an agent-rpc serve worker adds up every step', async () => {
    const port = await freePort();
    await startWorker(port);
    model.script(
      { text: 'The host is localhost.', usage: { inputTokens: 100, outputTokens: 10 } },
      { text: 'Changed the host to db.internal.', usage: { inputTokens: 200, outputTokens: 20 } },
      { text: 'Note: host now db.internal.', usage: { inputTokens: 300, outputTokens: 30 } },
    );
    const result = await run(executor(port));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as WorkflowRunRecord;
    expect(record.steps.map((step) => [step.name, step.status])).toEqual([
      ['analyze', 'succeeded'],
      ['fix', 'succeeded'],
      ['report', 'succeeded'],
    ]);
    expect(record.steps[1]!.output).toBe('Changed the host to db.internal.');
    // The worker's model read the dependency's conversation first, then the step's message once.
    const onWorker = texts(model.requests[1]!);
    expect(onWorker).toEqual(['Find what is wrong with /etc/app.yaml.', 'The host is localhost.', 'Fix it to point to db.internal. The analysis said: The host is localhost.']);
    // The worker's answer flowed on: as the variable and as the dependant's conversation.
    const last = texts(model.requests[2]!);
    expect(last).toContain('Changed the host to db.internal.');
    expect(last.at(-1)).toBe('Write the change note for: Changed the host to db.internal.');
    // 600 input tokens at $2/1M and 60 output tokens at $10/1M, the worker's step included.
    expect(record.steps[1]!.usage).toMatchObject({ inputTokens: 200, outputTokens: 20, modelRequests: 1 });
    expect(record.usage).toMatchObject({ inputTokens: 600, outputTokens: 60, modelRequests: 3 });
    expect(record.usage.costUsd).toBeCloseTo(0.0018, 9);
    expect(JSON.parse(readFileSync((record as WorkflowRunRecord & { recordPath: string }).recordPath, 'utf8'))).toMatchObject({ usage: record.usage });
  });

  it('workflow remote - a worker that is down fails its step as unreachable and skips its dependants', async () => {
    const port = await freePort();
    model.script({ text: 'The host is localhost.' });
    const result = await run(executor(port));
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout) as WorkflowRunRecord;
    expect(record.status).toBe('failed');
    expect(record.steps[1]).toMatchObject({ name: 'fix', status: 'failed', error: { code: 'EAGENTRPC_REMOTE_UNREACHABLE' } });
    expect(record.steps[2]).toMatchObject({ name: 'report', status: 'skipped', reason: 'dependency fix failed' });
    expect(record.error?.details).toEqual({ step: 'fix', cause: 'EAGENTRPC_REMOTE_UNREACHABLE' });
    expect(model.requests).toHaveLength(1);
  });

  it('workflow remote - a workflow whose steps all run on workers loads and runs on an executor without models', async () => {
    const port = await freePort();
    await startWorker(port);
    model.script({ text: 'The host is localhost.', usage: { inputTokens: 100, outputTokens: 10 } }, { text: 'Fixed.', usage: { inputTokens: 200, outputTokens: 20 } });
    const result = await run(workersOnlyExecutor(port));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as WorkflowRunRecord;
    expect(record.steps.map((step) => [step.name, step.status, step.output])).toEqual([
      ['analyze', 'succeeded', 'The host is localhost.'],
      ['fix', 'succeeded', 'Fixed.'],
    ]);
    expect(record.usage).toMatchObject({ inputTokens: 300, outputTokens: 30, modelRequests: 2 });
  });

  it('workflow remote - usage a worker returns with its failure counts in the failed step and the run total', async () => {
    const port = await freePort();
    // One model request allowed: the model asks for a tool, so the worker's agent fails after spending it.
    await startWorker(port, 'fixer', '{ tools: { enabled: [think] }, max_iterations: 1 }');
    model.script(
      { text: 'The host is localhost.', usage: { inputTokens: 100, outputTokens: 10 } },
      { toolCalls: [{ name: 'think', arguments: { thought: 'which file?' } }], usage: { inputTokens: 200, outputTokens: 20 } },
    );
    const result = await run(executor(port));
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout) as WorkflowRunRecord;
    expect(record.steps[1]).toMatchObject({ name: 'fix', status: 'failed', error: { code: 'EAGENTRPC_REMOTE_AGENT_FAILED' } });
    expect(record.steps[1]!.usage).toMatchObject({ inputTokens: 200, outputTokens: 20, modelRequests: 1 });
    expect(record.usage).toMatchObject({ inputTokens: 300, outputTokens: 30, modelRequests: 2 });
    expect(JSON.parse(readFileSync((record as WorkflowRunRecord & { recordPath: string }).recordPath, 'utf8'))).toMatchObject({ usage: record.usage });
  });

  it('workflow remote - served as a capability, a sync worker step runs the same agent there and its usage reaches the caller', async () => {
    const port = await freePort();
    // The default agent_id is the workflow's own agent: the same agent, defined here, run there.
    await startWorker(port, 'planner');
    const fleet = new ModelAgentFleet(model);
    fleet.env['WORKER_TOKEN'] = API_TOKEN;
    try {
      const dir = join(fleet.root, 'planner');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'fix.workflow.yaml'),
        `version: 1
name: fix-config
steps:
  - name: analyze
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Find what is wrong." }]
  - name: fix
    type: agent
    worker: build-farm
    messages: [{ role: user, content: "Fix it." }]
    depends: [analyze]
`,
      );
      await fleet.agent({
        id: 'planner',
        capabilitiesYaml: '  - name: fix-config\n',
        agentYaml: `handlers:\n  fix-config: { type: workflow, file: ./fix.workflow.yaml }\nremoteNodes:\n  - { name: build-farm, apiBaseUrl: "http://127.0.0.1:${port}", authTokenRef: "\${env:WORKER_TOKEN}" }\n`,
      });
      model.script({ text: 'Wrong host.', usage: { inputTokens: 100, outputTokens: 10 } }, { text: 'Fixed there.', usage: { inputTokens: 200, outputTokens: 20 } });
      const caller = await fleet.caller(['planner']);
      const result = await caller.requestAgent<WorkflowRunRecord>({ to: 'planner', capability: 'fix-config', payload: {} });
      expect(result.status).toBe('ok');
      expect(result.response!.steps[1]).toMatchObject({ status: 'succeeded', output: 'Fixed there.', usage: { inputTokens: 200, outputTokens: 20 } });
      expect(texts(model.requests[1]!)).toEqual(['Find what is wrong.', 'Wrong host.', 'Fix it.']);
      expect(result.response!.usage).toMatchObject({ inputTokens: 300, outputTokens: 30, modelRequests: 2 });
      expect(result.usage).toEqual(result.response!.usage);
      // The worker ran it through its inbox as a request of the execute API to the same agent.
      const fromExecuteApi = await auditRecordsOnceWritten([daemons.dataDirOf('planner')], (record) => record.peerId === 'agent://execute-api');
      expect(fromExecuteApi.length).toBeGreaterThan(0);
    } finally {
      await fleet.close();
    }
  });
});
