import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentConfig, type AgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { loadPeersFile } from '../../src/config/peers-file.js';
import { createSecretResolver, parseSecretRef } from '../../src/secrets/index.js';
import { builtinTransports, builtinPlugins } from '../../transports/plugins.js';
import { VaultKvServer } from '../support/vault-kv-server.js';

// The files as the design document writes them (list-form transports, `agent:` peers,
// event-sources.yaml as a list), and below the same agent in today's shapes.
const SEED = new URL('../fixtures/config/seed-shapes', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer', KAFKA_BROKERS: 'kafka-1:9092' };

const TODAY = {
  'capabilities.yaml': (seed: string) =>
    seed
      .replace('agent: agent://pr-reviewer\n', '')
      .replace(
        /transports:\n(.*\n){5}/,
        'transports:\n  kafka: { brokers: ["${env:KAFKA_BROKERS}"] }\ntopics: { requests: agents.pr-reviewer.requests, responses: agents.pr-reviewer.responses }\n',
      ),
  'rpc-peers.yaml': () => `version: 1
peers:
  - id: agent://pr-reviewer
    transports: [{ kind: kafka, brokers: ["\${env:KAFKA_BROKERS}"], requestsTopic: agents.pr-reviewer.requests }]
  - id: agent://translator
    transports: [{ kind: nats, servers: ["nats://nats.internal:4222"], requestsTopic: agents.translator.requests }]
    auth: { provider: oauth2-client, tokenEndpoint: "https://idp.example.com/oauth2/token", clientId: "decl-agent-a", clientSecretRef: "secret://platform/decl-agent-a-client-secret", scopes: ["rpc:invoke"] }
`,
  'event-sources.yaml': () => `version: 1
sources:
  - id: inbox
    type: agent-inbox
    agentId: pr-reviewer
    delivery: { mode: at-least-once, ackStrategy: after-dispatch }
    idempotency: { strategy: transport-natural, store: sqlite, ttlMs: 900000 }
    limits: { concurrency: 4, maxInflight: 64 }
`,
} as const;

/** A copy of the seed-shape fixture with files edited (or replaced). */
function variant(edits: Record<string, (text: string) => string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'seed-config-'));
  cpSync(SEED, dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  return dir;
}

async function configError(dir: string): Promise<ConfigError> {
  const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

/** What the runtime is built from: the same for both shapes. */
function runtimeView(config: AgentConfig) {
  return {
    agentId: config.agent.value.agent.id,
    transports: config.capabilities.value.transports,
    capabilities: config.capabilities.value.capabilities,
    inbox: config.inbox,
    sources: config.eventSources?.value.sources,
  };
}

const secretsDir = mkdtempSync(join(tmpdir(), 'seed-secrets-'));
mkdirSync(join(secretsDir, 'platform'));
writeFileSync(join(secretsDir, 'platform', 'decl-agent-a-client-secret'), 'client-secret-value\n');

async function peersOf(dir: string) {
  const resolver = createSecretResolver({ env, secretsDir });
  const asked: string[] = [];
  const peers = await loadPeersFile(join(dir, 'rpc-peers.yaml'), {
    transports: builtinTransports,
    resolveSecret: async (ref, baseDir) => {
      const value = await resolver.resolve(ref, baseDir);
      asked.push(`${ref}=${value.reveal()}`);
      return value;
    },
  });
  return { routes: peers.map(({ auth, ...entry }) => ({ ...entry, auth: auth !== undefined })), asked };
}

describe('config - the design document shapes', () => {
  it('config seed shapes - capabilities.yaml, event-sources.yaml and rpc-peers.yaml load as written and map to what today\'s shapes give', async () => {
    const seed = await loadAgentConfig(SEED, builtinPlugins, env);
    const today = await loadAgentConfig(variant(Object.fromEntries(Object.entries(TODAY))), builtinPlugins, env);
    expect(runtimeView(seed)).toEqual(runtimeView(today));
    expect(seed.capabilities.value.transports).toEqual({ kafka: { brokers: ['kafka-1:9092'] } });
    expect(seed.inbox).toEqual({
      topics: { requests: 'agents.pr-reviewer.requests', responses: 'agents.pr-reviewer.responses' },
      concurrency: 4,
      maxInflight: 64,
      idempotency: { strategy: 'transport-natural', store: 'sqlite', ttlMs: 900000 },
    });
    const seedPeers = await peersOf(SEED);
    expect(seedPeers.routes).toEqual([
      { id: 'agent://pr-reviewer', routes: [{ kind: 'kafka', requestsTopic: 'agents.pr-reviewer.requests' }], auth: false },
      { id: 'agent://translator', routes: [{ kind: 'nats', requestsTopic: 'agents.translator.requests' }], auth: true },
    ]);
    expect(seedPeers).toEqual(await peersOf(variant({ 'rpc-peers.yaml': TODAY['rpc-peers.yaml'] })));
    expect(seedPeers.asked).toEqual(['secret://platform/decl-agent-a-client-secret=client-secret-value']);
  });

  it('config seed shapes - an unknown field in each new shape names file, line and field', async () => {
    const cases: Array<[string, (text: string) => string, RegExp]> = [
      ['capabilities.yaml', (t) => t.replace('      responses: agents.pr-reviewer.responses', '      replies: x'), /capabilities\.yaml:7: transports\[0\]\.topics: Unrecognized key: "replies"/],
      ['capabilities.yaml', (t) => t.replace('  - kind: kafka', '  - kind: kafka\n    partitionz: 3'), /capabilities\.yaml:4: transports\[0\]: Unrecognized key: "partitionz"/],
      ['event-sources.yaml', (t) => t.replace('    id: inbox', '    id: inbox\n    retries: 3'), /event-sources\.yaml:3: \[0\]\.config: Unrecognized key: "retries"/],
      ['event-sources.yaml', (t) => t.replace('  config:', '  enabled: true\n  config:'), /event-sources\.yaml:1: \[0\]: Unrecognized key: "enabled"/],
      ['event-sources.yaml', (t) => t.replace('ackStrategy: after-dispatch', 'ackStrategy: before-dispatch'), /event-sources\.yaml:5: \[0\]\.config\.delivery\.ackStrategy: /],
      ['rpc-peers.yaml', (t) => t.replace('topics: { requests: agents.pr-reviewer.requests }', 'topics: { requests: agents.pr-reviewer.requests, responses: x }'), /rpc-peers\.yaml:7: peers\[0\]\.transports\[0\]\.topics: Unrecognized key: "responses"/],
      ['rpc-peers.yaml', (t) => t.replace('subjects: { requests', 'topics: { requests'), /rpc-peers\.yaml:10: peers\[1\]\.transports\[0\]: Unrecognized key: "topics"/],
      ['rpc-peers.yaml', (t) => t.replace('  - agent: agent://pr-reviewer', '  - agent: agent://pr-reviewer\n    id: agent://other'), /rpc-peers\.yaml:3: peers\[0\]\.agent: is an alias of id, which is also given: keep one/],
    ];
    for (const [file, edit, expected] of cases) expect((await configError(variant({ [file]: edit }))).message).toMatch(expected);
  });

  it('config seed shapes - what the shapes say twice must agree; capabilities.yaml `agent` must be this agent', async () => {
    const other = await configError(variant({ 'capabilities.yaml': (t) => t.replace('agent: agent://pr-reviewer', 'agent: agent://translator') }));
    expect(other.message).toMatch(/capabilities\.yaml:2: agent: /);
    const topics = await configError(variant({ 'capabilities.yaml': (t) => t.replace('capabilities:\n', 'topics: { requests: agents.elsewhere }\ncapabilities:\n') }));
    expect(topics.field).toMatch(/^(topics\.requests|transports\[0\]\.topics\.requests)$/);
    const twice = await configError(variant({ 'capabilities.yaml': (t) => t.replace('transports:\n', 'transports:\n  - { kind: kafka, brokers: ["k:1"] }\n') }));
    expect(twice.message).toMatch(/capabilities\.yaml:5: transports\[1\]\.kind: /);
    const both = await configError(variant({ 'rpc-peers.yaml': (t) => t.replace('topics: { requests: agents.pr-reviewer.requests }', 'topics: { requests: a }\n        requestsTopic: b') }));
    expect(both.message).toMatch(/rpc-peers\.yaml:7: peers\[0\]\.transports\[0\]\.topics\.requests: /);
    const elsewhere = await configError(variant({ 'rpc-peers.yaml': (t) => t.replace('brokers: ["${env:KAFKA_BROKERS}"]', 'brokers: ["kafka.internal:9092"]') }));
    expect(elsewhere.message).toMatch(/rpc-peers\.yaml:6: peers\[0\]\.transports\[0\]\.brokers: /);
  });

  it('config seed shapes - a broker list from one variable (`["${env:KAFKA_BROKERS}"]`, comma-separated) is the list of its brokers', async () => {
    const many = { ...env, KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092' };
    const config = await loadAgentConfig(SEED, builtinPlugins, many);
    expect(config.capabilities.value.transports).toEqual({ kafka: { brokers: ['kafka-1:9092', 'kafka-2:9092'] } });
    // The peer's route names the same variable: the same cluster, whatever the order.
    const reordered = variant({ 'rpc-peers.yaml': (t) => t.replace('brokers: ["${env:KAFKA_BROKERS}"]', 'brokers: ["kafka-2:9092,kafka-1:9092"]') });
    await expect(loadAgentConfig(reordered, builtinPlugins, many)).resolves.toBeDefined();
    const nats = await loadAgentConfig(variant({ 'capabilities.yaml': (t) => t.replace('kind: kafka', 'kind: nats').replace('brokers:', 'servers:').replace('    topics:', '    subjects:'), 'rpc-peers.yaml': () => 'version: 1\npeers: []\n' }), builtinPlugins, {
      ...many,
      KAFKA_BROKERS: 'nats://n-1:4222,nats://n-2:4222',
    }).catch((e: unknown) => e);
    expect(nats).toMatchObject({ capabilities: { value: { transports: { nats: { servers: ['nats://n-1:4222', 'nats://n-2:4222'] } } } } });
  });

  it('config seed shapes - ${secret:..} outside a …Ref field is refused rather than kept as text', async () => {
    const error = await configError(variant({ 'agent.yaml': (t) => t.replace('dataDir: ${env:REVIEWER_DATA_DIR}', 'dataDir: ${secret:env:DATA}') }));
    expect(error.message).toMatch(/agent\.yaml:12: dataDir: /);
  });
});

describe('secrets - the design document forms', () => {
  let vault: VaultKvServer;
  beforeAll(async () => {
    vault = await VaultKvServer.start({ token: 't0ken', mount: 'kv', secrets: { 'acme/rpc-keys': { keys: '{"k1":"base64:x"}', other: 'y' }, 'acme/db': { password: 'pw' } } });
  });
  afterAll(() => vault.stop());

  it('secrets - ${secret:<ref>} wraps any reference; env:NAME, secret:// names with slashes and whole Vault secrets resolve', async () => {
    expect(parseSecretRef('${secret:env:RPC_KEYS}')).toEqual({ scheme: 'env', name: 'RPC_KEYS' });
    expect(parseSecretRef('env:RPC_KEYS')).toEqual({ scheme: 'env', name: 'RPC_KEYS' });
    expect(parseSecretRef('${secret:vault:kv/acme/db#password}')).toEqual({ scheme: 'vault', mount: 'kv', path: 'acme/db', key: 'password' });
    expect(parseSecretRef('${secret:vault:kv/acme/rpc-keys}')).toEqual({ scheme: 'vault', mount: 'kv', path: 'acme/rpc-keys' });
    expect(parseSecretRef('secret://platform/decl-agent-a-client-secret')).toEqual({ scheme: 'secret', name: 'platform/decl-agent-a-client-secret' });
    expect(parseSecretRef('${secret:platform/key}')).toEqual({ scheme: 'secret', name: 'platform/key' });
    for (const bad of ['secret://platform/../etc/passwd', 'secret:///abs', 'secret://a//b', '${secret:}', '${secret:${env:X}}']) expect(() => parseSecretRef(bad), bad).toThrow(TypeError);

    const resolver = createSecretResolver({ env: { RPC_KEYS: 'from-env', VAULT_ADDR: vault.addr, VAULT_TOKEN: 't0ken' }, secretsDir });
    expect((await resolver.resolve('${secret:env:RPC_KEYS}')).reveal()).toBe('from-env');
    expect((await resolver.resolve('env:RPC_KEYS')).reveal()).toBe('from-env');
    expect((await resolver.resolve('secret://platform/decl-agent-a-client-secret')).reveal()).toBe('client-secret-value');
    expect((await resolver.resolve('${secret:vault:kv/acme/db#password}')).reveal()).toBe('pw');
    expect(JSON.parse((await resolver.resolve('${secret:vault:kv/acme/rpc-keys}')).reveal())).toEqual({ keys: '{"k1":"base64:x"}', other: 'y' });
  });
});
