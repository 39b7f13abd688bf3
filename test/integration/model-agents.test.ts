import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPinoLogger } from '../../src/observability/pino-logger.js';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedAnswer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { FLEET_SECRETS, ModelAgentFleet } from '../support/model-agent-fleet.js';
import { firstUserText, lastToolResults, processesRunning, systemOf, toolsOf } from '../support/model-requests.js';

let model: ScriptedModelServer;
let fleet: ModelAgentFleet;
beforeEach(async () => {
  model = await startScriptedModelServer();
  fleet = new ModelAgentFleet(model);
});
afterEach(async () => {
  await fleet.close();
  await model.close();
});

const TRIAGE_CAPABILITY = `  - name: triage
    description: Triages a report.
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text] }
`;

/** A triage agent whose bash runs only the commands `allow` matches; everything else is blocked. */
function triageAgent(options: { allow?: string; extra?: string; maxIterations?: number; id?: string; provider?: 'anthropic'; logger?: ReturnType<typeof createPinoLogger> } = {}) {
  return fleet.agent(
    {
    id: options.id ?? 'triage',
    ...(options.provider ? { provider: options.provider } : {}),
    capabilitiesYaml: TRIAGE_CAPABILITY,
    agentYaml: `handlers:
  triage:
    type: agent
    agent:
      max_iterations: ${options.maxIterations ?? 10}
      tools:
        enabled: [bash, read, think]
        bash_policy:
          default_behavior: deny
          deny_behavior: block
          rules:
            - { name: read-only, pattern: "${options.allow ?? '^(cat|ls|echo|env|sleep)\\\\b'}", action: allow }
            - { name: destructive, pattern: "^(rm|chmod)\\\\b", action: deny }
    messages:
      - { role: user, content: "Triage: \${input.text}" }
${options.extra ?? ''}`,
    },
    options.logger ? { logger: options.logger } : {},
  );
}

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] });

describe('model agents - the tool loop', () => {
  it('model agents - bash, then read, then a final answer; the caller gets text and usage', async () => {
    await triageAgent();
    model.script(
      { ...bash("echo 'db_url=postgres://db.internal' > notes.txt"), usage: { inputTokens: 100, outputTokens: 20 } },
      { toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }], usage: { inputTokens: 150, outputTokens: 10 } },
      { text: 'The database URL points at db.internal.', usage: { inputTokens: 200, outputTokens: 30, cachedInputTokens: 100 } },
    );
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent<{ text: string; usage: Record<string, number> }>({ to: 'triage', capability: 'triage', payload: { text: 'config check' } });
    expect(result.status).toBe('ok');
    expect(result.response?.text).toBe('The database URL points at db.internal.');
    expect(result.response?.usage).toMatchObject({ inputTokens: 450, outputTokens: 60, cachedInputTokens: 100, modelRequests: 3 });
    // 450 input at $2/M, 60 output at $10/M (no cached price: cached input billed as input).
    expect(result.response?.usage.costUsd).toBeCloseTo((450 * 2 + 60 * 10) / 1e6, 12);
    expect(result.usage).toEqual(result.response?.usage);
    const [first, second, third] = model.requests;
    expect(firstUserText(first!)).toBe('Triage: config check');
    expect(toolsOf(first!).map((tool) => tool.name)).toEqual(['bash', 'read', 'think']);
    expect(systemOf(first!)).toContain('agent://triage');
    expect(lastToolResults(second!)).toEqual([expect.stringContaining('[exit code 0]')]);
    expect(lastToolResults(third!)).toEqual([expect.stringContaining('db_url=postgres://db.internal')]);
    expect(existsSync(join(fleet.dataDirOf('triage'), 'workspace', 'notes.txt'))).toBe(true);
  });

  it('model agents - the same loop over the Anthropic Messages API', async () => {
    await triageAgent({ provider: 'anthropic' });
    model.script(bash('echo hello'), { text: 'Said hello.', usage: { inputTokens: 40, outputTokens: 4 } });
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent<{ text: string }>({ to: 'triage', capability: 'triage', payload: { text: 'greet' } });
    expect(result.response?.text).toBe('Said hello.');
    expect(model.requests.map((request) => request.api)).toEqual(['anthropic', 'anthropic']);
    expect(lastToolResults(model.requests[1]!)).toEqual([expect.stringContaining('hello')]);
  });

  it('model agents - a blocked command comes back as an error result and the model takes another way', async () => {
    await triageAgent();
    model.script(bash('rm -rf ./cache'), bash('ls'), { text: 'Listed instead of deleting.' });
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent<{ text: string }>({ to: 'triage', capability: 'triage', payload: { text: 'clean up' } });
    expect(result.response?.text).toBe('Listed instead of deleting.');
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/destructive/);
    expect(lastToolResults(model.requests[2]!)[0]).toContain('[exit code 0]');
  });

  it('model agents - a command line is not one command: `cat x; rm -rf y` and `cat $(rm -rf y)` are refused under a ^cat allow rule', async () => {
    await triageAgent({ allow: '^cat\\\\b' });
    const workspace = join(fleet.dataDirOf('triage'), 'workspace');
    mkdirSync(join(workspace, 'keep'), { recursive: true });
    writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
    model.script(bash('cat notes.txt; rm -rf keep'), bash('cat $(rm -rf keep)'), bash('cat notes.txt | rm -rf keep'), { text: 'Could not delete.' });
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent<{ text: string }>({ to: 'triage', capability: 'triage', payload: { text: 'x' } });
    expect(result.response?.text).toBe('Could not delete.');
    for (const request of model.requests.slice(1)) expect(lastToolResults(request)[0]).toMatch(/rm -rf keep/);
    expect(existsSync(join(workspace, 'keep'))).toBe(true);
  });

  it('model agents - `env` run by the model shows no secret, and no secret is in any request body', async () => {
    await triageAgent();
    model.script(bash('env'), { text: 'done' });
    const caller = await fleet.caller(['triage']);
    // A secret that reaches the payload is masked too.
    await caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: `the password is ${FLEET_SECRETS.DB_PASSWORD}` } });
    const output = lastToolResults(model.requests[1]!)[0]!;
    expect(output).toContain('PATH=');
    for (const name of Object.keys(FLEET_SECRETS)) expect(output).not.toContain(`${name}=`);
    for (const value of Object.values(FLEET_SECRETS)) expect(fleet.bodies()).not.toContain(value);
    expect(firstUserText(model.requests[0]!)).toBe('Triage: the password is [secret]');
  });

  it('model agents - every iteration is logged: model request n/max, the answer, the tool call with masked arguments, the policy decision, the result', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) });
    await triageAgent({ logger: createPinoLogger({ level: 'info', destination }) });
    model.script(bash(`echo ${FLEET_SECRETS.GITHUB_TOKEN}`), bash('rm -rf x'), { text: 'done' });
    const caller = await fleet.caller(['triage']);
    await caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: 'x' } });
    const messages = lines.map((line) => String(line.msg));
    expect(messages).toEqual(expect.arrayContaining(['model request 1/10', 'model answered', 'tool call bash', 'tool result bash: ok', 'tool result bash: error', 'model request 3/10']));
    expect(messages.find((m) => m.startsWith('bash policy: deny'))).toMatch(/rm -rf x matched rule destructive/);
    expect(lines.find((line) => line.msg === 'model request 1/10')).toMatchObject({ model: 'fast', messages: 1, tools: 3, iteration: 1, maxIterations: 10, capability: 'triage' });
    expect(JSON.stringify(lines)).not.toContain(FLEET_SECRETS.GITHUB_TOKEN);
    expect(lines.find((line) => line.msg === 'tool call bash')?.arguments).toContain('[secret]');
  });

  it('model agents - max_iterations ends the loop with EAGENTRPC_AGENT_MAX_ITERATIONS and the partial transcript', async () => {
    await triageAgent({ maxIterations: 2 });
    model.script(bash('echo one'), bash('echo two'));
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: 'loop' } });
    expect(result.error?.code).toBe('EAGENTRPC_AGENT_MAX_ITERATIONS');
    expect(result.error?.retriable).toBe(false);
    const transcript = result.error?.details?.transcript as Array<{ role: string; content: string }>;
    expect(transcript.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(transcript[4]?.content).toContain('two');
    expect(model.requests).toHaveLength(2);
    // Usage of the failed loop still reaches the caller.
    expect(result.usage?.modelRequests).toBe(2);
  });

  it('model agents - the call deadline stops the loop and kills the running command', async () => {
    await triageAgent();
    model.script(bash('sleep 31'));
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: 'wait' }, timeoutMs: 1_500 });
    expect(result.status).toBe('timeout');
    await expect.poll(() => processesRunning('sleep', '31'), { timeout: 10_000 }).toBe(0);
  });

  it('model agents - cancelling the call kills a running sleep', async () => {
    await triageAgent();
    model.script(bash('sleep 32'));
    const caller = await fleet.caller(['triage']);
    const controller = new AbortController();
    const call = caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: 'wait' }, signal: controller.signal, timeoutMs: 60_000 });
    await expect.poll(() => processesRunning('sleep', '32'), { timeout: 10_000 }).toBe(1);
    controller.abort();
    expect((await call).status).toBe('abandoned');
    await expect.poll(() => processesRunning('sleep', '32'), { timeout: 10_000 }).toBe(0);
  });

  it('model agents - memory: the prompt holds the memory files, patch changes them, the next call sees the change', async () => {
    await fleet.agent({
      id: 'keeper',
      capabilitiesYaml: TRIAGE_CAPABILITY,
      agentYaml: `handlers:
  triage:
    type: agent
    agent: { memory: { enabled: true }, tools: { enabled: [patch] } }
    messages: [{ role: user, content: "\${input.text}" }]
`,
    });
    const memoryDir = join(fleet.dataDirOf('keeper'), 'memory', 'global');
    mkdirSync(memoryDir, { recursive: true });
    writeFileSync(join(memoryDir, 'team.md'), 'The on-call engineer is Ada.\n');
    const patch = `--- ${join(memoryDir, 'team.md')}\n+++ ${join(memoryDir, 'team.md')}\n@@ -1 +1 @@\n-The on-call engineer is Ada.\n+The on-call engineer is Grace.\n`;
    model.script({ toolCalls: [{ name: 'patch', arguments: { patch } }] }, { text: 'Noted.' }, { text: 'Grace.' });
    const caller = await fleet.caller(['keeper']);
    await caller.requestAgent({ to: 'keeper', capability: 'triage', payload: { text: 'Grace is on call now.' } });
    expect(systemOf(model.requests[0]!)).toContain('The on-call engineer is Ada.');
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/edited .*team\.md/);
    await caller.requestAgent({ to: 'keeper', capability: 'triage', payload: { text: 'Who is on call?' } });
    expect(systemOf(model.requests[2]!)).toContain('The on-call engineer is Grace.');
  });

  it('model agents - an outputSchema makes the answer JSON of that shape; a wrong shape gets one more turn', async () => {
    await fleet.agent({
      id: 'classifier',
      capabilitiesYaml: `  - name: classify
    inputSchema: { type: object, properties: { text: { type: string } } }
    outputSchema: { type: object, properties: { label: { enum: [bug, feature] } }, required: [label], additionalProperties: false }
`,
      agentYaml: `handlers:
  classify:
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Classify: \${input.text}" }]
`,
    });
    model.script({ text: 'It is a bug.' }, { text: '{"label":"bug"}' });
    const caller = await fleet.caller(['classifier']);
    const result = await caller.requestAgent({ to: 'classifier', capability: 'classify', payload: { text: 'crash on start' } });
    expect(result.response).toEqual({ label: 'bug' });
    expect((model.requests[0]!.body as { response_format?: unknown }).response_format).toMatchObject({ type: 'json_schema' });
    expect(JSON.stringify(model.requests[1]!.body)).toContain('not valid JSON');
  });
});

describe('model agents - peers as tools, usage and the guard', () => {
  const helperAgent = () =>
    fleet.agent({
      id: 'helper',
      capabilitiesYaml: `  - name: summarize
    description: Summarizes a text in one line.
    inputSchema: { type: object, properties: { text: { type: string, description: The text to summarize. } }, required: [text], additionalProperties: false }
`,
      agentYaml: `handlers:
  summarize:
    type: agent
    agent: { tools: { enabled: [] } }
    messages: [{ role: user, content: "Summarize: \${input.text}" }]
`,
    });

  const leadAgent = (extra = '') =>
    fleet.agent({
      id: 'lead',
      peers: ['helper'],
      capabilitiesYaml: TRIAGE_CAPABILITY,
      agentYaml: `handlers:
  triage:
    type: agent
    agent: { tools: { enabled: [think, "peer:agent://helper/*"] } }
    messages: [{ role: user, content: "Triage: \${input.text}" }]
${extra}`,
    });

  it('model agents - peer capabilities are tools with their description and schema; usage and cost add up over the flow', async () => {
    await helperAgent();
    await leadAgent();
    model.script(
      { toolCalls: [{ name: 'helper__summarize', arguments: { text: 'a long report' } }], usage: { inputTokens: 100, outputTokens: 20 } },
      { text: 'short report', usage: { inputTokens: 50, outputTokens: 10 } },
      { text: 'Triaged: short report', usage: { inputTokens: 120, outputTokens: 30 } },
    );
    const caller = await fleet.caller(['lead']);
    const result = await caller.requestAgent<{ text: string; usage: Record<string, number> }>({ to: 'lead', capability: 'triage', payload: { text: 'report' } });
    expect(result.response?.text).toBe('Triaged: short report');
    const tool = toolsOf(model.requests[0]!).find((t) => t.name === 'helper__summarize');
    expect(tool?.description).toContain('Summarizes a text in one line.');
    expect(tool?.parameters).toEqual({ type: 'object', properties: { text: { type: 'string', description: 'The text to summarize.' } }, required: ['text'], additionalProperties: false });
    expect(firstUserText(model.requests[1]!)).toBe('Summarize: a long report');
    expect(result.usage).toMatchObject({ inputTokens: 270, outputTokens: 60, modelRequests: 3 });
    expect(result.usage?.costUsd).toBeCloseTo((270 * 2 + 60 * 10) / 1e6, 12);
    expect(result.response?.usage).toEqual(result.usage);
  });

  it('model agents - a flow budget refuses the next model request once the tokens are spent', async () => {
    await triageAgent({ extra: 'guard: { maxTokens: 100 }\n' });
    model.script({ toolCalls: [{ name: 'think', arguments: { thought: 'plan' } }], usage: { inputTokens: 90, outputTokens: 20 } });
    const caller = await fleet.caller(['triage']);
    const result = await caller.requestAgent({ to: 'triage', capability: 'triage', payload: { text: 'x' } });
    expect(result.error?.code).toBe('EAGENTRPC_GUARD_REJECTED');
    expect(result.error?.details).toMatchObject({ rule: 'tokens', value: 110, limit: 100 });
    expect(model.requests).toHaveLength(1);
  });

  it('model agents - two model agents told to call each other are stopped by the guard', async () => {
    const bouncer = (id: string, other: string) =>
      fleet.agent({
        id,
        peers: [other],
        capabilitiesYaml: `  - name: bounce
    inputSchema: { type: object }
`,
        agentYaml: `handlers:
  bounce:
    type: agent
    agent: { tools: { enabled: ["peer:agent://${other}/*"] } }
    messages: [{ role: user, content: "Ask ${other} to bounce." }]
`,
      });
    await bouncer('ping', 'pong');
    await bouncer('pong', 'ping');
    let refused = 0;
    // Each agent calls the other until a call is refused; then every level answers.
    const turn = (request: RecordedModelRequest): ScriptedAnswer => {
      const results = lastToolResults(request);
      if (results.length > 0) {
        if (results[0]!.includes('EAGENTRPC_GUARD_REJECTED')) refused++;
        return { text: 'stopped' };
      }
      const other = systemOf(request).includes('agent://ping') ? 'pong' : 'ping';
      return { toolCalls: [{ name: `${other}__bounce`, arguments: {} }] };
    };
    model.script(...Array.from({ length: 80 }, () => turn));
    const caller = await fleet.caller(['ping']);
    const result = await caller.requestAgent<{ text: string }>({ to: 'ping', capability: 'bounce', payload: {}, timeoutMs: 60_000 });
    expect(result.response?.text).toBe('stopped');
    expect(refused).toBe(1);
    // A-B-A-B collapses to a depth of two: the rate rule (20 agent calls a minute) is the one that stops it, on the 21st call.
    expect(model.requests.map(lastToolResults).flat().find((text) => text.includes('EAGENTRPC_GUARD_REJECTED'))).toMatch(/call rate limit exceeded/);
    expect(model.requests).toHaveLength(2 * 21);
  });
});

