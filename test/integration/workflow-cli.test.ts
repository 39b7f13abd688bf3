import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { WorkflowRunRecord } from '../../src/workflows/run-record.js';
import { runNats } from '../support/nats-target.js';
import { runCliProcess } from '../support/run-cli-process.js';

let model: ScriptedModelServer;
let dir: string;
let echoer: AgentNode;
beforeEach(async () => {
  model = await startScriptedModelServer();
  // The call steps' peer: an agent of this process on NATS (an agent may not call itself: the guard refuses self-calls).
  const nats = await runNats();
  echoer = new AgentNode({ id: 'echoer', transports: [await nats.transport()], peers: [] });
  echoer.handle('echo', (payload: { text: string }) => ({ echoed: payload.text }));
  echoer.handle('broken', () => {
    throw new Error('the echo is broken');
  });
  await echoer.start();
  dir = mkdtempSync(join(tmpdir(), 'workflow-cli-'));
  const agent = join(dir, 'agent');
  mkdirSync(agent);
  writeFileSync(
    join(agent, 'agent.yaml'),
    `version: 1
agent: { id: runner }
log: { level: warn }
dataDir: ./data
models:
  - { id: fast, provider: openai-compatible, model: scripted-small, baseUrl: "\${env:MODEL_URL}/v1", default: true, pricing: { inputPer1M: 2, outputPer1M: 10 } }
`,
  );
  writeFileSync(join(agent, 'capabilities.yaml'), `version: 1\ntransports:\n  nats: { servers: "${nats.url}", subjectPrefix: "${nats.subjectPrefix}" }\ncapabilities: []\n`);
  writeFileSync(join(agent, 'rpc-peers.yaml'), 'version: 1\npeers:\n  - id: agent://echoer\n    transports: [{ kind: nats }]\n');
});
afterEach(async () => {
  await echoer.close();
  await model.close();
});

/** A draft by the model, then a call of `capability` with the draft. */
function workflowFile(capability: string): string {
  const file = join(dir, `${capability}.workflow.yaml`);
  writeFileSync(
    file,
    `version: 1
name: draft-and-${capability}
steps:
  - name: draft
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Draft a note about \${TOPIC}." }]
    output: DRAFT
  - name: send
    type: call
    to: agent://echoer
    capability: ${capability}
    payload: { text: "\${DRAFT}" }
    depends: [draft]
`,
  );
  return file;
}

const recordPathIn = (stdout: string): string => /^record: (.+)$/m.exec(stdout)?.[1] ?? '';

describe('workflow cli - agent-rpc run', () => {
  it('workflow cli - run shows a line per step and the record path, and exits 0 when every step succeeded', async () => {
    model.script({ text: 'Databases need backups.', usage: { inputTokens: 100, outputTokens: 20 } });
    const run = await runCliProcess(['run', workflowFile('echo'), '--config', join(dir, 'agent'), '--param', 'TOPIC=databases'], { MODEL_URL: model.url });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('▸ draft (agent) started');
    expect(run.stdout).toMatch(/✓ draft succeeded {2}\d+\.\ds {2}120 tokens {2}\$0\.000400/);
    expect(run.stdout).toMatch(/✓ send succeeded/);
    expect(run.stdout).toMatch(/^\[#{20}\] 2\/2 steps/m);
    expect(run.stdout).toContain('run succeeded: 2/2 steps succeeded');
    const record = JSON.parse(readFileSync(recordPathIn(run.stdout), 'utf8')) as WorkflowRunRecord;
    expect(recordPathIn(run.stdout)).toContain(join(dir, 'agent', 'data', 'runs', 'draft-and-echo'));
    expect(record).toMatchObject({ status: 'succeeded', params: { TOPIC: 'databases' }, usage: { inputTokens: 100, outputTokens: 20 } });
    expect(record.steps[1]!.output).toEqual({ echoed: 'Databases need backups.' });
    expect(JSON.stringify(model.requests[0]!.body)).toContain('Draft a note about databases.');
  });

  it('workflow cli - a run whose call step fails exits 1 and its record names the step', async () => {
    model.script({ text: 'Databases need backups.' });
    const run = await runCliProcess(['run', workflowFile('broken'), '--config', join(dir, 'agent'), '--param', 'TOPIC=databases'], { MODEL_URL: model.url });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✗ send failed .*EAGENTRPC_HANDLER_FAILED: the echo is broken/);
    expect(run.stdout).toContain('run failed: 1/2 steps succeeded');
    const record = JSON.parse(readFileSync(recordPathIn(run.stdout), 'utf8')) as WorkflowRunRecord;
    expect(record.status).toBe('failed');
    expect(record.error?.details).toEqual({ step: 'send', cause: 'EAGENTRPC_HANDLER_FAILED' });
  });

  it('workflow cli - --json prints only the run record, with its path', async () => {
    model.script({ text: 'Databases need backups.' });
    const run = await runCliProcess(['run', workflowFile('echo'), '--config', join(dir, 'agent'), '--param', 'TOPIC=databases', '--json'], { MODEL_URL: model.url });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as WorkflowRunRecord & { recordPath: string };
    expect(printed.status).toBe('succeeded');
    const { recordPath, ...record } = printed;
    expect(JSON.parse(readFileSync(recordPath, 'utf8'))).toEqual(record);
  });

  it('workflow cli - a variable no param fills is a config error naming the file and line', async () => {
    const run = await runCliProcess(['run', workflowFile('echo'), '--config', join(dir, 'agent')], { MODEL_URL: model.url });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/echo\.workflow\.yaml:7: steps\[0\]\.messages\[0\]\.content: undefined variable \$\{TOPIC\}/);
    expect(model.requests).toHaveLength(0);
  });
});
