import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { modelsOf } from '../../src/model-agents/handler-type/index.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

/** A copy of the fixture with one file edited. */
function variant(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  return dir;
}

async function configError(dir: string): Promise<string> {
  const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe('config files', () => {
  it('config - a complete directory loads, with ${env:..} expanded', async () => {
    const config = await loadAgentConfig(FIXTURE, builtinPlugins, env);
    expect(config.agent.value).toMatchObject({ agent: { id: 'pr-reviewer' }, dataDir: '/var/lib/reviewer', limits: { concurrency: 16 } });
    expect(config.capabilities.value.capabilities[0]).toMatchObject({ name: 'review-pr', idempotent: true, timeoutMs: 30000 });
    expect(config.peers?.value.peers[0]?.id).toBe('agent://linter');
    expect(config.eventSources?.value.sources[0]?.idempotency).toEqual({ strategy: 'message-id', store: 'sqlite', ttlMs: 3600000 });
  });

  it('config - bad YAML names the file and line', async () => {
    const message = await configError(variant('capabilities.yaml', (t) => t.replace('  memory: {}', '  memory: {')));
    expect(message).toMatch(/capabilities\.yaml:\d+: /);
  });

  it('config - an unknown field names file, line and field', async () => {
    const message = await configError(variant('agent.yaml', (t) => t.replace('limits: { concurrency: 16 }', 'limits: { concurrency: 16, parallelism: 2 }')));
    expect(message).toMatch(/agent\.yaml:10: limits: Unrecognized key: "parallelism"/);
  });

  it('config - guard.implicitFlow takes a boolean and nothing else', async () => {
    const off = variant('agent.yaml', (t) => t.replace('limits: { concurrency: 16 }', 'limits: { concurrency: 16 }\nguard: { implicitFlow: false }'));
    expect((await loadAgentConfig(off, builtinPlugins, env)).agent.value.guard?.implicitFlow).toBe(false);
    const wrong = variant('agent.yaml', (t) => t.replace('limits: { concurrency: 16 }', 'limits: { concurrency: 16 }\nguard: { implicitFlow: sometimes }'));
    expect(await configError(wrong)).toMatch(/agent\.yaml:11: guard\.implicitFlow: /);
  });

  it('config - a replay memory in Redis needs guard.store, whose server it shares', async () => {
    const auth = (t: string) => t.replace('auth: { required: internal }', 'auth: { required: hmac, keysRef: "file:keys.json", replay: { store: redis } }');
    const error = await loadAgentConfig(variant('agent.yaml', auth), builtinPlugins, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field: 'rpc.auth.replay.store', line: 7 });
    const shared = variant('agent.yaml', (t) => auth(t) + 'guard: { store: { kind: redis, url: "redis://127.0.0.1:6379" } }\n');
    expect((await loadAgentConfig(shared, builtinPlugins, env)).agent.value.rpc?.auth).toMatchObject({ replay: { store: 'redis' } });
  });

  it('config - a model agent whose model does not resolve fails at load, naming file, line and field', async () => {
    const handler = (model: string) => (t: string) =>
      t.replace('  review-pr: ./handlers/review-pr.js', `  review-pr:\n    type: agent\n    agent: { model: ${model} }\n    messages: [{ role: user, content: "Review \${input.prUrl}" }]`);
    const models = 'models:\n  - { id: fast, provider: openai-compatible, model: m, baseUrl: "http://127.0.0.1:1/v1" }\n';
    const unknown = await configError(variant('agent.yaml', (t) => models + handler('slow')(t)));
    expect(unknown).toMatch(/agent\.yaml:\d+: handlers\.review-pr\.agent\.model: no model slow; the models are fast/);
    const none = await configError(variant('agent.yaml', handler('fast')));
    expect(none).toMatch(/agent\.yaml:\d+: handlers\.review-pr\.agent\.model: no model fast: agent\.yaml lists no models/);
    const badTool = await configError(variant('agent.yaml', (t) => models + t.replace('  review-pr: ./handlers/review-pr.js', '  review-pr:\n    type: agent\n    agent: { tools: { enabled: [navigate] } }\n    messages: [{ role: user, content: hi }]')));
    expect(badTool).toMatch(/agent\.yaml:\d+: handlers\.review-pr.*unknown tool navigate/);
  });

  it('config - a wrong type names file, line and field', async () => {
    const message = await configError(variant('capabilities.yaml', (t) => t.replace('timeoutMs: 30000', 'timeoutMs: soon')));
    expect(message).toMatch(/capabilities\.yaml:7: capabilities\[0\]\.timeoutMs: /);
  });

  it('config - an unset environment variable names file, line and field', async () => {
    const error = await loadAgentConfig(FIXTURE, builtinPlugins, {}).catch((e: Error) => e.message);
    expect(error).toMatch(/agent\.yaml:13: dataDir: environment variable REVIEWER_DATA_DIR is not set/);
  });

  it('config - a handler for an undeclared capability, a duplicate capability and a foreign inbox are refused', async () => {
    expect(await configError(variant('agent.yaml', (t) => t.replace('review-pr: ./handlers', 'reveiw-pr: ./handlers')))).toMatch(
      /agent\.yaml:9: handlers\.reveiw-pr: capability reveiw-pr is not declared in capabilities\.yaml/,
    );
    const twice = (t: string) => `${t}  - name: review-pr\n`;
    expect(await configError(variant('capabilities.yaml', twice))).toMatch(/capabilities\.yaml:\d+: capabilities\[1\]\.name: review-pr is declared twice/);
    expect(await configError(variant('event-sources.yaml', (t) => t.replace('agentId: pr-reviewer', 'agentId: someone-else')))).toMatch(
      /event-sources\.yaml:5: sources\[0\]\.agentId: is someone-else, but agent\.yaml declares agent pr-reviewer/,
    );
  });

  it.each(['quickstart/agents', 'fleet-nats', 'fleet-kafka'])('config - every agent of examples/%s loads and names handler files that exist', async (fleet) => {
    const root = new URL(`../../examples/${fleet}/`, import.meta.url).pathname;
    const exampleEnv = { QUICKSTART_DATA_DIR: '/tmp/q', NATS_URL: 'nats://127.0.0.1:4222', KAFKA_BROKERS: '127.0.0.1:9092', HOSTNAME: 'h-1', HTTP_PORT: '9464', AGENT_DATA_DIR: '/tmp/a' };
    // The quickstart's model agent, as main.ts configures it for the scripted model server.
    const modelEnv = { QUICKSTART_MODEL_ID: 'scripted', QUICKSTART_MODEL: 'gpt-5-mini', QUICKSTART_SCRIPTED_MODEL_URL: 'http://127.0.0.1:9' };
    const agents = ['frontdesk', 'pr-reviewer', 'linter', 'auditor', ...(fleet === 'quickstart/agents' ? ['triager'] : [])];
    for (const agent of agents) {
      const config = await loadAgentConfig(join(root, agent), builtinPlugins, { ...exampleEnv, ...modelEnv });
      for (const path of Object.values(config.agent.value.handlers)) {
        if (typeof path === 'string') expect(existsSync(join(root, agent, path)), path).toBe(true);
      }
    }
  });

  it.each([
    ['scripted', 'openai-compatible'],
    ['openai', 'openai'],
    ['anthropic', 'anthropic'],
  ])('config - the quickstart triager runs on its %s model when main.ts names it', async (id, provider) => {
    const dir = new URL('../../examples/quickstart/agents/triager/', import.meta.url).pathname;
    const config = await loadAgentConfig(dir, builtinPlugins, { QUICKSTART_DATA_DIR: '/tmp/q', QUICKSTART_MODEL_ID: id, QUICKSTART_MODEL: 'some-model', QUICKSTART_SCRIPTED_MODEL_URL: 'http://127.0.0.1:9' });
    expect(config.agent.value.handlers['triage-issue']).toMatchObject({ type: 'agent', agent: { model: id } });
    expect(modelsOf(config).find((model) => model.id === id)).toMatchObject({ provider, pricing: { inputPer1M: expect.any(Number) } });
  });

  it('config - a peer on other NATS servers than the agent is refused, naming the field', async () => {
    const dir = variant('rpc-peers.yaml', (t) => t.replace('transports: [{ kind: memory }]', 'transports: [{ kind: nats, servers: nats://other:4222 }]'));
    writeFileSync(join(dir, 'capabilities.yaml'), readFileSync(join(dir, 'capabilities.yaml'), 'utf8').replace('  memory: {}', '  memory: {}\n  nats: { servers: nats://ours:4222 }'));
    expect(await configError(dir)).toMatch(/rpc-peers\.yaml:4: peers\[0\]\.transports\[0\]\.servers: nats:\/\/other:4222 is not where this agent connects for nats \(nats:\/\/ours:4222\)/);
  });

  it('config - a missing required file is named', async () => {
    expect(await configError(join(tmpdir(), 'no-such-config-dir'))).toMatch(/agent\.yaml: cannot read: ENOENT/);
  });
});
