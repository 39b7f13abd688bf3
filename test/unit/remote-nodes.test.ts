import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { remoteNodesFromConfig } from '../../src/remote-nodes/remote-nodes-config.js';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import { CredentialCipher } from '../../src/remote-nodes/credential-cipher.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { mergedResolver } from '../../src/remote-nodes/remote-node-resolver.js';
import { RemoteNodeStore } from '../../src/remote-nodes/remote-node-store.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/tmp/reviewer', FARM_TOKEN: 'farm-token-value' };

function withRemoteNodes(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'remote-config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), `${readFileSync(join(dir, 'agent.yaml'), 'utf8')}${yaml}`);
  return dir;
}

/** RFC 027's spelling: snake_case names are aliases of the camelCase fields. */
const farm = `remote_nodes:
  - name: build-farm
    description: CI agents
    api_base_url: https://farm.example:9464/
    auth_token: "\${env:FARM_TOKEN}"
    timeout: 90s
`;

const farmCamel = `remoteNodes:
  - name: build-farm
    description: CI agents
    apiBaseUrl: https://farm.example:9464/
    authTokenRef: "\${env:FARM_TOKEN}"
    timeout: 90s
`;

const key = (): SecretValue => new SecretValue(randomBytes(32).toString('base64'));

describe('remote nodes: config', () => {
  it.each([
    ['camelCase names', farmCamel],
    ['the snake_case aliases', farm],
  ])('remote nodes - config entries in %s load with defaults; the token stays a reference until resolved', async (_case, yaml) => {
    const config = await loadAgentConfig(withRemoteNodes(yaml), builtinPlugins, env);
    expect(config.agent.value.remoteNodes).toEqual([
      { name: 'build-farm', description: 'CI agents', apiBaseUrl: 'https://farm.example:9464', authType: 'token', authTokenRef: '${env:FARM_TOKEN}', skipTlsVerify: false, timeout: 90_000 },
    ]);
    const [node] = await remoteNodesFromConfig(config.agent, (ref) => createSecretResolver({ env }).resolve(ref));
    expect(node).toMatchObject({ name: 'build-farm', apiBaseUrl: 'https://farm.example:9464', authType: 'token', timeoutMs: 90_000, source: 'config' });
    expect(node!.authToken?.reveal()).toBe('farm-token-value');
    expect(JSON.stringify(node)).not.toContain('farm-token-value');
  });

  it.each([
    ['an inline token', farm.replace('"${env:FARM_TOKEN}"', 'plain-token'), /remoteNodes\[0\]\.authTokenRef: .*inline secrets are refused/],
    ['a token with auth_type none', farm.replace('    timeout: 90s', '    auth_type: none\n    timeout: 90s'), /agent\.yaml:\d+: remoteNodes\[0\]\.authTokenRef: must not be set when authType is none/],
    ['no token with auth_type token', farm.replace('    auth_token: "${env:FARM_TOKEN}"\n', ''), /remoteNodes\[0\]\.authTokenRef: is required when authType is token/],
    ['a bad URL', farm.replace('https://farm.example:9464/', 'ftp://farm'), /agent\.yaml:\d+: remoteNodes\[0\]\.apiBaseUrl: must be an http:\/\/ or https:\/\/ URL/],
    ['a bad timeout', farm.replace('90s', 'soon'), /agent\.yaml:\d+: remoteNodes\[0\]\.timeout/],
    ['a duplicate name', `${farm}  - name: build-farm\n    api_base_url: http://b\n    auth_type: none\n`, /agent\.yaml:\d+: remoteNodes\[1\]\.name: build-farm is listed twice/],
    ['an alias next to its field', farm.replace('    timeout: 90s', '    apiBaseUrl: https://other\n    timeout: 90s'), /agent\.yaml:\d+: remoteNodes\[0\]\.api_base_url: is an alias of apiBaseUrl, which is also given/],
  ])('remote nodes - %s is a config error naming file, line and field', async (_case, yaml, expected) => {
    const dir = withRemoteNodes(yaml);
    const error = await loadAgentConfig(dir, builtinPlugins, env)
      .then((config) => remoteNodesFromConfig(config.agent, (ref) => createSecretResolver({ env }).resolve(ref)))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(expected);
  });
});

describe('remote nodes: credentials at rest', () => {
  it('cipher - round trip; every IV is fresh', () => {
    const cipher = new CredentialCipher(key());
    const a = cipher.seal('tok', 'farm');
    expect(cipher.open(a, 'farm')).toBe('tok');
    expect(cipher.seal('tok', 'farm')).not.toBe(a);
    const hex = new CredentialCipher(new SecretValue(randomBytes(32).toString('hex')));
    expect(hex.open(hex.seal('tok', 'farm'), 'farm')).toBe('tok');
  });

  it('cipher - tampered ciphertext, tag or IV, a truncated tag, another record name or another key are rejected', () => {
    const secret = key();
    const cipher = new CredentialCipher(secret);
    const sealed = cipher.seal('the-token', 'farm');
    const [v, iv, tag, ct] = sealed.split(':') as [string, string, string, string];
    const flip = (b64: string): string => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    const attempts = [
      [v, iv, tag, flip(ct)].join(':'),
      [v, iv, flip(tag), ct].join(':'),
      [v, flip(iv), tag, ct].join(':'),
      [v, iv, Buffer.from(tag, 'base64').subarray(0, 12).toString('base64'), ct].join(':'),
      ['v2', iv, tag, ct].join(':'),
    ];
    for (const attempt of attempts) expect(() => cipher.open(attempt, 'farm')).toThrow(expect.objectContaining({ code: 'EAGENTRPC_CREDENTIAL_INVALID' }));
    expect(() => cipher.open(sealed, 'other-node')).toThrow(expect.objectContaining({ code: 'EAGENTRPC_CREDENTIAL_INVALID' }));
    expect(() => new CredentialCipher(key()).open(sealed, 'farm')).toThrow(expect.objectContaining({ code: 'EAGENTRPC_CREDENTIAL_INVALID' }));
    expect(() => new CredentialCipher(new SecretValue('c2hvcnQ='))).toThrow(RangeError);
  });

  it('store - credentials are sealed in the file, survive a reopen, and concurrent writes are all kept', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'node-store-')), 'remote-nodes.json');
    const secret = key();
    const store = await RemoteNodeStore.open(file, new CredentialCipher(secret));
    const base = { description: '', api_base_url: 'http://127.0.0.1:1', auth_type: 'token' as const, skip_tls_verify: false, timeout: 60_000 };
    const created = await Promise.all(Array.from({ length: 10 }, (_, i) => store.put({ ...base, name: `node-${i}`, auth_token: `token-${i}-plaintext` }, false)));
    expect(created.every(Boolean)).toBe(true);
    expect(await store.put({ ...base, name: 'node-0', auth_token: 'again' }, false)).toBe(false);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('plaintext');
    const reopened = await RemoteNodeStore.open(file, new CredentialCipher(secret));
    expect(reopened.names()).toHaveLength(10);
    expect(reopened.get('node-7')?.authToken?.reveal()).toBe('token-7-plaintext');

    // A sealed token moved to another record does not open there.
    const parsed = JSON.parse(text);
    parsed.nodes.find((n: { name: string }) => n.name === 'node-1').auth_token_sealed = parsed.nodes.find((n: { name: string }) => n.name === 'node-2').auth_token_sealed;
    writeFileSync(file, JSON.stringify(parsed));
    const tampered = await RemoteNodeStore.open(file, new CredentialCipher(secret));
    expect(tampered.get('node-1')).toBeUndefined();
    expect(tampered.unreadable()).toEqual([{ name: 'node-1', code: 'EAGENTRPC_CREDENTIAL_INVALID', reason: expect.any(String) }]);
    expect(tampered.get('node-2')?.authToken?.reveal()).toBe('token-2-plaintext');
  });

  it('resolver - config nodes and stored nodes merge; on a name collision the store wins', async () => {
    const store = await RemoteNodeStore.open(join(mkdtempSync(join(tmpdir(), 'node-store-')), 'nodes.json'), new CredentialCipher(key()));
    await store.put({ name: 'farm', description: 'from the store', api_base_url: 'http://store', auth_type: 'none', skip_tls_verify: false, timeout: 1000 });
    const fromConfig = (name: string): RemoteNode => ({ name, description: 'from config', apiBaseUrl: 'http://config', authType: 'none', skipTlsVerify: false, timeoutMs: 1000, source: 'config' });
    const resolver = mergedResolver([fromConfig('farm'), fromConfig('alpha')], store);
    expect((await resolver.list()).map((n) => [n.name, n.source])).toEqual([['alpha', 'config'], ['farm', 'store']]);
    expect((await resolver.get('farm'))?.description).toBe('from the store');
    expect(await resolver.get('nope')).toBeUndefined();
  });
});
