import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { receiverAuthSchema } from '../../src/config/auth-config.js';
import { buildReceiverAuth } from '../../src/config/build-auth.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { parseYaml } from '../../src/yaml/load-yaml.js';
import { loadPeersFile, parsePeersFile } from '../../src/config/peers-file.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import { createSecretResolver } from '../../src/secrets/index.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { builtinTransports } from '../../transports/plugins.js';

const dir = mkdtempSync(join(tmpdir(), 'config-auth-'));
const ring = JSON.stringify({ keys: { 'fleet-1': `base64:${randomBytes(32).toString('base64')}` } });
writeFileSync(join(dir, 'keys.json'), ring);
const secrets = createSecretResolver({ env: { ORCH_SECRET: 'client-secret-value' } });
const options = { transports: builtinTransports, resolveSecret: (ref: string, baseDir: string) => secrets.resolve(ref, baseDir) };

const PEERS = `version: 1
peers:
  - id: agent://reviewer
    transports: [{ kind: memory }]
    auth:
      provider: oauth2-client
      tokenEndpoint: http://127.0.0.1:9/token
      clientId: orchestrator
      clientSecretRef: \${env:ORCH_SECRET}
      scopes: [rpc:call]
  - id: billing
    transports: [{ kind: memory }]
    auth: { provider: hmac, keyId: fleet-1, keysRef: "file:keys.json" }
  - id: agent://partner
    transports: [{ kind: nats, requestsTopic: partner.in }]
    auth: { provider: oidc, issuer: https://idp.example.com, audience: urn:me, scopes: [rpc:call] }
`;

async function configError(text: string): Promise<ConfigError> {
  const error = await parsePeersFile(join(dir, 'rpc-peers.yaml'), text, options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('config - auth blocks', () => {
  it('config - rpc-peers.yaml builds one provider per peer, secrets resolved by reference', async () => {
    const file = join(dir, 'rpc-peers.yaml');
    writeFileSync(file, PEERS);
    const peers = await loadPeersFile(file, options);
    expect(peers.map((p) => [p.id, p.auth?.name, p.routes])).toEqual([
      ['agent://reviewer', 'oauth2-client', [{ kind: 'memory' }]],
      ['billing', 'hmac', [{ kind: 'memory' }]],
      ['agent://partner', 'oidc', [{ kind: 'nats', requestsTopic: 'partner.in' }]],
    ]);
    // The oauth2 client only attaches; an oidc peer entry verifies what that peer sends.
    expect(peers[0]!.auth?.verify).toBeUndefined();
    expect(typeof peers[2]!.auth?.verify).toBe('function');
  });

  it('config - an inline client secret is refused, naming file, line and field, without the value', async () => {
    const error = await configError(PEERS.replace('${env:ORCH_SECRET}', 'sup3r-s3cret'));
    expect(error.message).toMatch(/rpc-peers\.yaml:9: peers\[0\]\.auth\.clientSecretRef: clientSecretRef must be a secret reference .*inline secrets are refused/);
    expect(error.message).not.toContain('sup3r-s3cret');
  });

  it('config - a wrong field, a bad URL and a missing key ring name their file, line and field', async () => {
    expect((await configError(PEERS.replace('clientId: orchestrator', 'clientID: orchestrator'))).message).toMatch(/rpc-peers\.yaml:\d+: peers\[0\]\.auth/);
    expect((await configError(PEERS.replace('http://127.0.0.1:9/token', 'not a url'))).message).toMatch(/rpc-peers\.yaml:7: peers\[0\]\.auth\.tokenEndpoint/);
    const missing = await configError(PEERS.replace('file:keys.json', 'file:absent.json'));
    expect(missing.message).toMatch(/rpc-peers\.yaml:13: peers\[1\]\.auth\.keysRef: .*cannot read .*absent\.json \(ENOENT\)/);
    expect((await configError(PEERS.replace('keyId: fleet-1', 'keyId: fleet-9'))).message).toMatch(/peers\[1\]\.auth\.keyId: .*not in keys/);
  });

  it('config - agents built from the files call each other signed, and refuse an unsigned envelope', async () => {
    const agentYaml = `rpc:\n  auth: { required: hmac, keysRef: "file:keys.json", signingKeyId: fleet-1 }\n`;
    const loaded = parseYaml(join(dir, 'agent.yaml'), agentYaml, z.object({ rpc: z.object({ auth: receiverAuthSchema }) }));
    const context = { resolveSecret: (ref: string) => secrets.resolve(ref, dir), file: loaded.file, field: 'rpc.auth' };
    const bus = new MemoryBus();
    const peersFile = join(dir, 'rpc-peers.yaml');
    writeFileSync(peersFile, PEERS);
    const peers = new PeerTable(await loadPeersFile(peersFile, options));
    const billing = new AgentNode({ id: 'billing', transports: [memoryTransport({ bus })], auth: await buildReceiverAuth(loaded.value.rpc.auth, context) });
    billing.handle('charge', () => 'charged');
    const caller = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], peers, auth: await buildReceiverAuth(loaded.value.rpc.auth, context) });
    const unsigned = new AgentNode({ id: 'stranger', transports: [memoryTransport({ bus })], peers: [{ id: 'billing', routes: [{ kind: 'memory' }] }] });
    for (const node of [billing, caller, unsigned]) await node.start();
    try {
      expect(await caller.requestAgent({ to: 'billing', capability: 'charge', payload: null })).toMatchObject({ status: 'ok', response: 'charged' });
      const refused = await unsigned.requestAgent({ to: 'billing', capability: 'charge', payload: null, timeoutMs: 2000 });
      // The stranger trusts the bus (internal), so it takes billing's signed refusal as a typed error.
      expect(refused).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: 'missing-auth' } } });
      expect((await billing.dlq.list()).map((r) => [r.kind, r.reason])).toEqual([['auth-rejected', 'missing-auth']]);
    } finally {
      for (const node of [billing, caller, unsigned]) await node.close();
    }
  });
});
