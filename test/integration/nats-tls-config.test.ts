import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { silentLogger } from '../../src/logger.js';
import { buildAgent } from '../../src/runtime/build-agent.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.js';

let certs: TestCertificates;
let server: NatsServerHandle;

beforeAll(async () => {
  certs = createTestCertificates();
  server = await startNatsServer({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, caFile: certs.caFile } });
}, 60_000);
afterAll(() => server?.stop());

/**
 * The config directory of an agent on the TLS server: its certificate, key and the CA
 * sit next to the YAML files and are named by relative `file:` references.
 */
function agentDir(id: string, client: { cert: string; key: string }, options: { handler?: boolean; peer?: string; connectTimeoutMs?: number } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `nats-tls-${id}-`));
  mkdirSync(join(dir, 'tls'));
  copyFileSync(certs.caFile, join(dir, 'tls', 'ca.pem'));
  copyFileSync(client.cert, join(dir, 'tls', 'agent.pem'));
  copyFileSync(client.key, join(dir, 'tls', 'agent.key'));
  const handlers = options.handler ? 'handlers: { charge: ./charge.js }\n' : '';
  if (options.handler) writeFileSync(join(dir, 'charge.js'), 'export default (input) => ({ charged: input });\n');
  writeFileSync(join(dir, 'agent.yaml'), `version: 1\nagent: { id: ${id} }\npermissions: { allow: ["RequestAgent:*"] }\n${handlers}log: { level: warn }\ndataDir: ./data\n`);
  writeFileSync(
    join(dir, 'capabilities.yaml'),
    `version: 1
transports:
  nats:
    servers: "\${env:NATS_URL}"
${options.connectTimeoutMs ? `    connectTimeoutMs: ${options.connectTimeoutMs}\n` : ''}    connection:
      tls: { caRef: "file:tls/ca.pem", certRef: "file:tls/agent.pem", keyRef: "file:tls/agent.key" }
capabilities:
${options.handler ? '  - name: charge\n' : '  []\n'}`,
  );
  if (options.peer) writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n  - id: agent://${options.peer}\n    transports: [{ kind: nats }]\n`);
  return dir;
}

describe('nats - TLS configured from YAML', () => {
  it('nats tls config - agents whose capabilities.yaml names their certificates call each other over mutual TLS', async () => {
    const client = { cert: certs.clientCertFile, key: certs.clientKeyFile };
    const daemon = await startDaemon([agentDir('billing', client, { handler: true }), agentDir('caller', client, { peer: 'billing' })], builtinPlugins, {
      env: { NATS_URL: server.url },
      logger: silentLogger,
      http: { port: 0 },
    });
    try {
      const caller = daemon.agents.find((agent) => agent.node.id === 'caller')!.node;
      expect(await caller.requestAgent({ to: 'agent://billing', capability: 'charge', payload: 42 })).toMatchObject({ status: 'ok', response: { charged: 42 } });
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('nats tls config - an agent whose certificate another CA signed fails to start with EAGENTRPC_CONNECT_FAILED', async () => {
    const dir = agentDir('stranger', { cert: certs.strangerCertFile, key: certs.strangerKeyFile }, { connectTimeoutMs: 1_500 });
    const agent = await buildAgent(await loadAgentConfig(dir, builtinPlugins, { NATS_URL: server.url }), { logger: silentLogger, env: { NATS_URL: server.url } });
    try {
      await expect(agent.node.start()).rejects.toMatchObject({ code: 'EAGENTRPC_CONNECT_FAILED' });
    } finally {
      await agent.close();
    }
  }, 30_000);
});
