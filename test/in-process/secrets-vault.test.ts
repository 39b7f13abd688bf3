import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretResolver, SecretValue, VaultKvReader } from '../../src/secrets/index.js';
import { VaultKvServer } from '../support/vault-kv-server.js';

const TOKEN = 'hvs.test-token-value';
let vault: VaultKvServer;
beforeAll(async () => {
  vault = await VaultKvServer.start({ token: TOKEN, mount: 'secret', secrets: { 'agent-rpc/oauth': { clientSecret: 'from-vault', other: 'x' } } });
});
afterAll(() => vault.stop());

describe('secrets - vault KV v2 over HTTP', () => {
  it('vault - a key of a secret resolves, and is served from the cache afterwards', async () => {
    const resolver = createSecretResolver({ env: { VAULT_ADDR: vault.addr, VAULT_TOKEN: TOKEN } });
    const before = vault.reads;
    expect((await resolver.resolve('vault:secret/agent-rpc/oauth#clientSecret')).reveal()).toBe('from-vault');
    expect((await resolver.resolve('vault:secret/agent-rpc/oauth#other')).reveal()).toBe('x');
    expect(vault.reads - before).toBe(1);
  });

  it('vault - a wrong token, a missing path and a missing key are named errors without the token', async () => {
    const wrong = createSecretResolver({ env: { VAULT_ADDR: vault.addr, VAULT_TOKEN: 'hvs.wrong-token' } });
    const messages: string[] = [];
    for (const [resolver, ref] of [
      [wrong, 'vault:secret/agent-rpc/oauth#clientSecret'],
      [createSecretResolver({ env: { VAULT_ADDR: vault.addr, VAULT_TOKEN: TOKEN } }), 'vault:secret/agent-rpc/missing#clientSecret'],
      [createSecretResolver({ env: { VAULT_ADDR: vault.addr, VAULT_TOKEN: TOKEN } }), 'vault:secret/agent-rpc/oauth#absent'],
    ] as const) {
      const error = await resolver.resolve(ref).catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(TypeError);
      messages.push((error as Error).message);
    }
    expect(messages[0]).toMatch(/permission denied \(HTTP 403\)/);
    expect(messages[1]).toMatch(/no such secret \(HTTP 404\)/);
    expect(messages[2]).toMatch(/has no string field "absent"/);
    for (const message of messages) expect(message).not.toMatch(/hvs\./);
  });

  it('vault - an unreachable Vault is a clear error', async () => {
    const reader = new VaultKvReader({ addr: 'http://127.0.0.1:1', token: new SecretValue(TOKEN), timeoutMs: 2000 });
    await expect(reader.read('secret', 'agent-rpc/oauth', 'clientSecret')).rejects.toThrow(/vault:secret\/agent-rpc\/oauth#clientSecret: Vault at http:\/\/127.0.0.1:1 unreachable/);
  });
});
