import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { silentLogger } from '../../src/logger.js';
import { buildAgent, type BuiltAgent } from '../../src/runtime/build-agent.js';
import { startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import { builtinPlugins } from '../../transports/plugins.js';

let server: KafkaServerHandle;

// Always our own broker: one from KAFKA_BROKERS would not have the SASL listener.
beforeAll(async () => {
  server = await startKafkaServer({ saslUsers: { billing: 'billing-secret', caller: 'caller-secret' } });
}, 180_000);
afterAll(() => server?.stop(), 60_000);

/** An agent's config directory whose capabilities.yaml logs in with SASL/PLAIN, the password a secret reference. */
async function agentFromYaml(id: string, password: string, options: { handler?: boolean; peer?: string } = {}): Promise<BuiltAgent> {
  const dir = mkdtempSync(join(tmpdir(), `kafka-sasl-${id}-`));
  if (options.handler) writeFileSync(join(dir, 'charge.js'), 'export default (input) => ({ charged: input });\n');
  writeFileSync(join(dir, 'agent.yaml'), `version: 1\nagent: { id: ${id} }\npermissions: { allow: ["RequestAgent:*"] }\n${options.handler ? 'handlers: { charge: ./charge.js }\n' : ''}dataDir: ./data\n`);
  writeFileSync(
    join(dir, 'capabilities.yaml'),
    `version: 1
transports:
  kafka:
    brokers: ["\${env:KAFKA_SASL_BROKERS}"]
    client:
      sasl: { mechanism: plain, username: ${id}, passwordRef: "\${env:KAFKA_PASSWORD}" }
capabilities:
${options.handler ? '  - name: charge\n' : '  []\n'}`,
  );
  if (options.peer) writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n  - id: agent://${options.peer}\n    transports: [{ kind: kafka }]\n`);
  const env = { KAFKA_SASL_BROKERS: server.saslBrokers![0]!, KAFKA_PASSWORD: password };
  return buildAgent(await loadAgentConfig(dir, builtinPlugins, env), { logger: silentLogger, env });
}

describe('kafka - SASL configured from YAML', () => {
  it('kafka sasl - agents that log in with SASL/PLAIN from their capabilities.yaml call each other', async () => {
    const billing = await agentFromYaml('billing', 'billing-secret', { handler: true });
    const caller = await agentFromYaml('caller', 'caller-secret', { peer: 'billing' });
    try {
      await billing.node.start();
      await caller.node.start();
      const result = await caller.node.requestAgent({ to: 'agent://billing', capability: 'charge', payload: 7, timeoutMs: 30_000 });
      expect(result).toMatchObject({ status: 'ok', response: { charged: 7 } });
    } finally {
      await caller.close();
      await billing.close();
    }
  }, 120_000);

  it('kafka sasl - a wrong password fails the start with EAGENTRPC_CONNECT_FAILED', async () => {
    const stranger = await agentFromYaml('caller', 'not-the-password');
    try {
      await expect(stranger.node.start()).rejects.toMatchObject({ code: 'EAGENTRPC_CONNECT_FAILED', details: { brokers: server.saslBrokers } });
    } finally {
      await stranger.close();
    }
  }, 120_000);
});
