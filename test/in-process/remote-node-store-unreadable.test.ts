import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { silentLogger } from '../../src/logger.js';
import { CredentialCipher } from '../../src/remote-nodes/credential-cipher.js';
import { mergedResolver } from '../../src/remote-nodes/remote-node-resolver.js';
import { RemoteNodeStore } from '../../src/remote-nodes/remote-node-store.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import { SessionApiClient } from '../support/session-api-client.js';
import { builtinPlugins } from '../../transports/plugins.js';

// A node store with one good entry and three bad ones: a credential sealed with another
// key, a corrupted ciphertext, and a record that is not a node at all.
const ADMIN = 'bob-admin-token';
const SECRET = 'farm-token-PLAINTEXT-93';
const storeKey = randomBytes(32).toString('base64');
const configDir = mkdtempSync(join(tmpdir(), 'unreadable-store-'));
const storeFile = join(configDir, 'data', 'remote-nodes.json');
let daemon: RunningDaemon;

const record = (name: string, sealed?: string): Record<string, unknown> => ({
  name,
  description: `${name} agents`,
  api_base_url: `http://127.0.0.1:1/${name}`,
  auth_type: 'token',
  ...(sealed !== undefined ? { auth_token_sealed: sealed } : {}),
  skip_tls_verify: false,
  timeout: 60_000,
  updated_at: 1,
});

function writeStore(file: string, key: string): void {
  const right = new CredentialCipher(new SecretValue(key));
  const other = new CredentialCipher(new SecretValue(randomBytes(32).toString('base64')));
  const [v, iv, tag, ciphertext] = right.seal(SECRET, 'corrupted').split(':') as [string, string, string, string];
  const flipped = Buffer.from(ciphertext, 'base64');
  flipped[0] = flipped[0]! ^ 0xff;
  const nodes = [
    record('good', right.seal(SECRET, 'good')),
    record('other-key', other.seal(SECRET, 'other-key')),
    record('corrupted', [v, iv, tag, flipped.toString('base64')].join(':')),
    { name: 'not-a-node', api_base_url: 42 },
  ];
  writeFileSync(file, JSON.stringify({ version: 1, nodes }, null, 2));
}

/** Records warn lines, as a pino logger would receive them. */
function recordingLogger(lines: Array<{ fields: Record<string, unknown>; message: string }>): Logger {
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (fields, message) => lines.push({ fields, message }),
    error: () => {},
    isLevelEnabled: () => true,
    child: () => logger,
  };
  return logger;
}

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
  appendFileSync(
    join(configDir, 'agent.yaml'),
    `remoteNodeStore: { keyRef: "\${env:STORE_KEY}" }
remoteNodes:
  - { name: from-config, apiBaseUrl: "http://127.0.0.1:1", authTokenRef: "\${env:ALICE_TOKEN}" }
`,
  );
  mkdirSync(join(configDir, 'data'), { recursive: true });
  writeStore(storeFile, storeKey);
  const env = { ALICE_TOKEN: 'a', BOB_TOKEN: ADMIN, CAROL_TOKEN: 'c', VIC_TOKEN: 'v', STORE_KEY: storeKey, AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data') };
  daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
});
afterAll(() => daemon?.stop());

const UNREADABLE = [
  { name: 'corrupted', code: 'EAGENTRPC_CREDENTIAL_INVALID', reason: expect.any(String) },
  { name: 'not-a-node', code: 'EAGENTRPC_REMOTE_NODE_UNREADABLE', reason: expect.any(String) },
  { name: 'other-key', code: 'EAGENTRPC_CREDENTIAL_INVALID', reason: expect.any(String) },
];

describe('remote node store - unreadable entries', () => {
  it('store - the resolver lists every readable node, skips the bad entries and logs each once, without a secret', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'unreadable-resolver-')), 'remote-nodes.json');
    writeStore(file, storeKey);
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = recordingLogger(lines);
    const store = await RemoteNodeStore.open(file, new CredentialCipher(new SecretValue(storeKey)), logger);
    const configNode: RemoteNode = { name: 'other-key', description: 'config', apiBaseUrl: 'http://config', authType: 'none', skipTlsVerify: false, timeoutMs: 1000, source: 'config' };
    const resolver = mergedResolver([configNode], store);
    expect((await resolver.list()).map((node) => node.name)).toEqual(['good']);
    expect((await resolver.get('good'))?.authToken?.reveal()).toBe(SECRET);
    // The store's entry overrides the config node of its name even unreadable: neither is used.
    expect(await resolver.get('other-key')).toBeUndefined();
    expect(await resolver.get('corrupted')).toBeUndefined();
    expect(store.unreadable()).toEqual(UNREADABLE);
    expect(lines.map((line) => line.fields['node']).sort()).toEqual(['corrupted', 'not-a-node', 'other-key']);
    expect(lines.every((line) => typeof line.fields['code'] === 'string')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('store - a write keeps the unreadable entries in the file; replacing or deleting one clears it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'unreadable-write-')), 'remote-nodes.json');
    writeStore(file, storeKey);
    const store = await RemoteNodeStore.open(file, new CredentialCipher(new SecretValue(storeKey)));
    await store.put({ name: 'fresh', description: '', api_base_url: 'http://127.0.0.1:2', auth_type: 'token', auth_token: 'fresh-token', skip_tls_verify: false, timeout: 1000 });
    const names = (): string[] => JSON.parse(readFileSync(file, 'utf8')).nodes.map((n: { name: string }) => n.name).sort();
    expect(names()).toEqual(['corrupted', 'fresh', 'good', 'not-a-node', 'other-key']);
    await store.put({ name: 'other-key', description: '', api_base_url: 'http://127.0.0.1:3', auth_type: 'token', auth_token: 'replaced', skip_tls_verify: false, timeout: 1000 });
    expect(await store.delete('not-a-node')).toBe(true);
    expect(store.unreadable().map((entry) => entry.name)).toEqual(['corrupted']);
    expect(store.get('other-key')?.authToken?.reveal()).toBe('replaced');
    expect(names()).toEqual(['corrupted', 'fresh', 'good', 'other-key']);
  });

  it('admin API - the list shows every readable node and reports the unreadable ones by name and code', async () => {
    const api = new SessionApiClient(`http://127.0.0.1:${daemon.http.port}`);
    const listed = await api.call('GET', '/api/v1/remote-nodes', ADMIN);
    expect(listed.status).toBe(200);
    expect(listed.body.nodes.map((node: { name: string; source: string }) => [node.name, node.source])).toEqual([
      ['from-config', 'config'],
      ['good', 'store'],
    ]);
    expect(listed.body.unreadable).toEqual(UNREADABLE);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    const one = await api.call('GET', '/api/v1/remote-nodes/corrupted', ADMIN);
    expect(one.status).toBe(422);
    expect(one.body).toEqual({ error: expect.any(String) });
  });
});
