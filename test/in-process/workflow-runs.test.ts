import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { RpcError } from '../../src/errors.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import type { HandlerContext } from '../../src/rpc/handler.js';
import { reportUsage } from '../../src/index.js';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { runRecordPath, type WorkflowRunRecord } from '../../src/workflows/run-record.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { memoryTransport } from '../../transports/memory/index.js';
import { ModelAgentFleet } from '../support/model-agent-fleet.js';

let model: ScriptedModelServer;
let fleet: ModelAgentFleet;
let reviewer: AgentNode;
let reviewed: unknown[];
beforeEach(async () => {
  model = await startScriptedModelServer();
  fleet = new ModelAgentFleet(model);
  reviewed = [];
  reviewer = new AgentNode({ id: 'reviewer', transports: [memoryTransport({ bus: fleet.bus })], peers: [] });
  await reviewer.start();
});
afterEach(async () => {
  await reviewer.close();
  await fleet.close();
  await model.close();
});

const WORKFLOW = `version: 1
name: fix-config
params: { DB_HOST: db.internal, CONFIG_PATH: /etc/app.yaml }
steps:
  - name: analyze
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Find what is wrong with \${CONFIG_PATH}." }]
    output: ANALYSIS
  - name: review
    type: call
    to: agent://reviewer
    capability: review-text
    payload: { text: "\${ANALYSIS}" }
    output: REVIEW
    depends: [analyze]
  - name: fix
    type: agent
    agent: { model: fast, tools: { enabled: [] } }
    messages: [{ role: user, content: "Fix it to point to \${DB_HOST}. Review said: \${REVIEW}" }]
    depends: [analyze, review]
`;

/** The planner agent: serves `fix` as the workflow file `workflow` (written next to its agent.yaml). */
function planner(workflow: string = WORKFLOW, extra = '') {
  mkdirSync(join(fleet.root, 'planner'), { recursive: true });
  writeFileSync(join(fleet.root, 'planner', 'fix.workflow.yaml'), workflow);
  return fleet.agent({
    id: 'planner',
    peers: ['reviewer'],
    capabilitiesYaml: '  - name: fix\n    description: Fixes the config.\n',
    agentYaml: `handlers:\n  fix: { type: workflow, file: ./fix.workflow.yaml }\n${extra}`,
  });
}

/** The message texts of a recorded OpenAI-shaped request, system prompt left out. */
function conversation(request: RecordedModelRequest): Array<{ role: string; content: unknown }> {
  return (request.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((message) => message.role !== 'system');
}

const REVIEW_USAGE = { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, costUsd: 0.001, modelRequests: 1 };

function reviewWith(answer: (payload: { text: string }, ctx: HandlerContext) => unknown): void {
  reviewer.handle('review-text', (payload: { text: string }, ctx) => {
    reviewed.push(payload);
    return answer(payload, ctx);
  });
}

describe('workflow runs - a workflow served as a capability', () => {
  it('workflow runs - agent, call and agent steps: outputs and messages flow, progress per step, the record sums usage', async () => {
    await planner();
    reviewWith((payload, ctx) => {
      reportUsage(ctx, REVIEW_USAGE);
      return { verdict: `right: ${payload.text}` };
    });
    model.script({ text: 'The host is wrong.', usage: { inputTokens: 100, outputTokens: 20 } }, { text: 'Fixed.', usage: { inputTokens: 200, outputTokens: 30 } });
    const caller = await fleet.caller(['planner']);
    const progress: Array<{ type: string; step: { name: string; status?: string } }> = [];
    const result = await caller.requestAgent<WorkflowRunRecord>({
      to: 'planner',
      capability: 'fix',
      payload: { params: { CONFIG_PATH: '/srv/app.yaml' } },
      onProgress: (data) => progress.push(data as (typeof progress)[number]),
    });
    expect(result.status).toBe('ok');
    const record = result.response!;
    expect(record.status).toBe('succeeded');
    expect(record.steps.map((step) => [step.name, step.status])).toEqual([['analyze', 'succeeded'], ['review', 'succeeded'], ['fix', 'succeeded']]);
    expect(record.steps[2]!.output).toBe('Fixed.');

    // The call step's peer got the first step's output; the last step got both outputs and the first step's messages.
    expect(reviewed).toEqual([{ text: 'The host is wrong.' }]);
    expect(model.requests).toHaveLength(2);
    expect(conversation(model.requests[0]!)).toEqual([{ role: 'user', content: 'Find what is wrong with /srv/app.yaml.' }]);
    expect(conversation(model.requests[1]!)).toEqual([
      { role: 'user', content: 'Find what is wrong with /srv/app.yaml.' },
      { role: 'assistant', content: 'The host is wrong.' },
      { role: 'user', content: 'Fix it to point to db.internal. Review said: {"verdict":"right: The host is wrong."}' },
    ]);

    expect(progress.map((event) => `${event.type} ${event.step.name}`)).toEqual([
      'step-started analyze',
      'step-finished analyze',
      'step-started review',
      'step-finished review',
      'step-started fix',
      'step-finished fix',
    ]);

    // 300 input at $2/M and 50 output at $10/M from the model, plus what the reviewer reported.
    expect(record.usage).toMatchObject({ inputTokens: 307, outputTokens: 53, modelRequests: 3 });
    expect(record.usage.costUsd).toBeCloseTo((300 * 2 + 50 * 10) / 1e6 + 0.001, 12);
    expect(record.steps[1]!.usage).toEqual(REVIEW_USAGE);
    expect(result.usage).toEqual(record.usage);
    const onDisk = JSON.parse(readFileSync(runRecordPath(fleet.dataDirOf('planner'), 'fix-config', record.runId), 'utf8')) as WorkflowRunRecord;
    expect(onDisk).toEqual(record);
  });

  it('workflow runs - a failing call step skips its dependant and the run answers EAGENTRPC_WORKFLOW_STEP_FAILED with the record', async () => {
    await planner();
    reviewWith(() => {
      throw new RpcError('EAGENTRPC_PERMISSION_DENIED', 'reviews are closed');
    });
    model.script({ text: 'The host is wrong.' });
    const caller = await fleet.caller(['planner']);
    const result = await caller.requestAgent({ to: 'planner', capability: 'fix', payload: {} });
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('EAGENTRPC_WORKFLOW_STEP_FAILED');
    const record = result.error?.details?.['record'] as WorkflowRunRecord;
    expect(record.status).toBe('failed');
    expect(record.steps.map((step) => [step.name, step.status])).toEqual([['analyze', 'succeeded'], ['review', 'failed'], ['fix', 'skipped']]);
    expect(record.steps[1]!.error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');
    expect(record.steps[2]!.reason).toBe('dependency review failed');
    expect(record.error?.details).toEqual({ step: 'review', cause: 'EAGENTRPC_PERMISSION_DENIED' });
    expect(model.requests).toHaveLength(1);
    const onDisk = JSON.parse(readFileSync(runRecordPath(fleet.dataDirOf('planner'), 'fix-config', record.runId), 'utf8')) as WorkflowRunRecord;
    expect(onDisk.status).toBe('failed');
  });

  it('workflow runs - a worker step whose worker is down fails with EAGENTRPC_REMOTE_UNREACHABLE, never run here instead', async () => {
    await planner(WORKFLOW.replace('    agent: { model: fast, tools: { enabled: [] } }\n', '    worker: build-farm\n    agent: { model: fast, tools: { enabled: [] } }\n'), 'remoteNodes:\n  - { name: build-farm, apiBaseUrl: "http://127.0.0.1:9", authType: none }\n');
    reviewWith(() => ({ verdict: 'fine' }));
    model.script({ text: 'The host is wrong.' });
    const caller = await fleet.caller(['planner']);
    const result = await caller.requestAgent({ to: 'planner', capability: 'fix', payload: {} });
    expect(result.error?.code).toBe('EAGENTRPC_WORKFLOW_STEP_FAILED');
    const fix = (result.error?.details?.['record'] as WorkflowRunRecord).steps[2]!;
    expect(fix).toMatchObject({ status: 'failed', error: { code: 'EAGENTRPC_REMOTE_UNREACHABLE' } });
    expect(result.error?.details?.['record']).toMatchObject({ error: { details: { step: 'fix', cause: 'EAGENTRPC_REMOTE_UNREACHABLE' } } });
    // The analysis ran here; the fix did not.
    expect(model.requests).toHaveLength(1);
  });
});

describe('workflow runs - config errors of the workflow file', () => {
  async function loadError(workflow: string | undefined): Promise<string> {
    const dir = join(fleet.root, 'broken');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.yaml'), 'version: 1\nagent: { id: broken }\nmodels:\n  - { id: fast, provider: openai-compatible, model: m, baseUrl: "http://127.0.0.1:9/v1", default: true }\nhandlers:\n  fix: { type: workflow, file: ./fix.workflow.yaml }\n');
    writeFileSync(join(dir, 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities:\n  - name: fix\n');
    if (workflow !== undefined) writeFileSync(join(dir, 'fix.workflow.yaml'), workflow);
    const error = await loadAgentConfig(dir, builtinPlugins, fleet.env).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('ConfigError');
    return (error as Error).message;
  }

  it('workflow runs - an agent step naming a model agent.yaml does not have is refused at its line', async () => {
    const message = await loadError(WORKFLOW.replace('model: fast', 'model: large'));
    expect(message).toMatch(/fix\.workflow\.yaml:19: steps\[2\]\.agent\.model: /);
    expect(message).toContain('large');
  });

  it('workflow runs - a step on a worker agent.yaml does not list under remoteNodes is refused at its line', async () => {
    const message = await loadError(WORKFLOW.replace('    agent: { model: fast', '    worker: build-farm\n    agent: { model: fast'));
    expect(message).toMatch(/fix\.workflow\.yaml:19: steps\[2\]\.worker: unknown worker build-farm; no workers are configured/);
  });

  it('workflow runs - a workflow file that does not exist is refused at the agent.yaml line naming it', async () => {
    const message = await loadError(undefined);
    expect(message).toMatch(/agent\.yaml:6: handlers\.fix\.file: .*fix\.workflow\.yaml does not exist/);
  });
});
