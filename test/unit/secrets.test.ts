import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSecretResolver, parseKeyRing, parseSecretRef, SecretValue } from '../../src/secrets/index.js';

const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
writeFileSync(join(dir, 'client-secret'), 's3cr3t-from-file\n');
writeFileSync(join(dir, 'empty'), '\n');

describe('secrets - references', () => {
  it('secrets - each reference form parses; an inline value is refused without being echoed', () => {
    expect(parseSecretRef('${env:CLIENT_SECRET}')).toEqual({ scheme: 'env', name: 'CLIENT_SECRET' });
    expect(parseSecretRef('secret://billing-keys')).toEqual({ scheme: 'secret', name: 'billing-keys' });
    expect(parseSecretRef('file:./keys.json')).toEqual({ scheme: 'file', path: './keys.json' });
    expect(parseSecretRef('vault:secret/agent-rpc/keys#ring')).toEqual({ scheme: 'vault', mount: 'secret', path: 'agent-rpc/keys', key: 'ring' });
    let message = '';
    try {
      parseSecretRef('hunter2 is my password', 'clientSecretRef');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/clientSecretRef must be a secret reference .*inline secrets are refused/);
    expect(message).not.toContain('hunter2');
    expect(() => parseSecretRef('secret://../etc/passwd')).toThrow(TypeError);
    expect(() => parseSecretRef('vault:secret/../sys#k')).toThrow(TypeError);
  });

  it('secrets - env, secret:// and file: resolve; the trailing newline of a file is dropped', async () => {
    const resolver = createSecretResolver({ env: { CLIENT_SECRET: 'from-env' }, secretsDir: dir });
    expect((await resolver.resolve('${env:CLIENT_SECRET}')).reveal()).toBe('from-env');
    expect((await resolver.resolve('secret://client-secret')).reveal()).toBe('s3cr3t-from-file');
    expect((await resolver.resolve('file:client-secret', dir)).reveal()).toBe('s3cr3t-from-file');
    expect((await resolver.resolve(`file:${join(dir, 'client-secret')}`)).reveal()).toBe('s3cr3t-from-file');
  });

  it('secrets - what is missing is named, as a TypeError', async () => {
    const resolver = createSecretResolver({ env: {}, secretsDir: dir });
    await expect(resolver.resolve('${env:NOPE}')).rejects.toThrow(/environment variable NOPE is not set/);
    await expect(resolver.resolve('secret://absent')).rejects.toThrow(/cannot read .*absent \(ENOENT\)/);
    await expect(resolver.resolve('secret://empty')).rejects.toThrow(/is empty/);
    await expect(resolver.resolve('vault:secret/x#y')).rejects.toThrow(/need VAULT_ADDR and VAULT_TOKEN/);
    await expect(resolver.resolve('custom:thing')).rejects.toThrow(/no resolver for scheme custom/);
  });

  it('secrets - a pluggable resolver serves its own scheme', async () => {
    const resolver = createSecretResolver({ resolvers: [{ scheme: 'kms', resolve: async () => new SecretValue('from-kms') }] });
    expect((await resolver.resolve('kms:projects/p/keys/k')).reveal()).toBe('from-kms');
  });

  it('secrets - a SecretValue never prints its value', () => {
    const secret = new SecretValue('do-not-print');
    const printed = [String(secret), `${secret}`, JSON.stringify({ secret }), inspect({ nested: { secret } }), secret + ''];
    for (const text of printed) expect(text).not.toContain('do-not-print');
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted]"}');
    expect(secret.reveal()).toBe('do-not-print');
  });
});

describe('secrets - key rings', () => {
  const ring = (value: unknown) => new SecretValue(JSON.stringify(value));
  const key32 = Buffer.alloc(32, 1);

  it('key ring - base64 and hex keys, several at once', () => {
    const keys = parseKeyRing(ring({ keys: { old: `base64:${key32.toString('base64')}`, new: `hex:${Buffer.alloc(48, 2).toString('hex')}` } }), 'secret://ring');
    expect([...keys.keys()]).toEqual(['old', 'new']);
    expect(keys.get('old')).toEqual(key32);
    expect(keys.get('new')?.length).toBe(48);
  });

  it('key ring - short keys, bad encodings and bad JSON are refused, naming the key id but not the key', () => {
    const short = `hex:${Buffer.alloc(16, 3).toString('hex')}`;
    expect(() => parseKeyRing(ring({ keys: { weak: short } }), 'secret://ring')).toThrow(/key weak is 16 bytes, at least 32/);
    expect(() => parseKeyRing(ring({ keys: { raw: 'plain-text-key-plain-text-key-xx' } }), 'secret://ring')).toThrow(/key raw must be a string "base64:/);
    expect(() => parseKeyRing(new SecretValue('not json at all'), 'secret://ring')).toThrow(/secret:\/\/ring is not JSON/);
    expect(() => parseKeyRing(ring({ keys: {} }), 'secret://ring')).toThrow(/non-empty "keys"/);
    try {
      parseKeyRing(ring({ keys: { weak: short } }), 'secret://ring');
    } catch (error) {
      expect((error as Error).message).not.toContain(short.slice(4));
    }
  });
});
