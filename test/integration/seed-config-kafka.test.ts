import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { runKafka } from '../support/kafka-target.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { copyFleet } from '../support/seed-fleet.js';
import { VaultKvServer } from '../support/vault-kv-server.js';

// Two agents configured in the design document's shapes (list-form transports with
// `topics`, `agent:` peers, event-sources.yaml as a list), served by `agent-rpc serve` on
// the run's Kafka, with HMAC: the reviewer's key ring is the seed's
// `${secret:vault:kv/acme/rpc-keys}` (a whole Vault secret), the orchestrator's `${secret:env:RPC_KEYS}`.
const kafka = await runKafka();
const fleet = copyFleet('seed-kafka', randomBytes(4).toString('hex'));
const ring = { keys: { 'fleet-1': `base64:${randomBytes(32).toString('base64')}` } };
const vaultToken = randomBytes(16).toString('hex');
let vault: VaultKvServer;
let env: NodeJS.ProcessEnv;
const daemons: DaemonProcess[] = [];

beforeAll(async () => {
  // Vault KV v2 holds any JSON under data.data: the ring is stored as one secret.
  vault = await VaultKvServer.start({ token: vaultToken, mount: 'kv', secrets: { 'acme/rpc-keys': ring as unknown as Record<string, string> } });
  env = { KAFKA_BROKERS: kafka.brokers[0]!, VAULT_ADDR: vault.addr, VAULT_TOKEN: vaultToken, RPC_KEYS: JSON.stringify(ring), AGENT_HTTP_PORT: '0' };
  for (const agent of [fleet['pr-reviewer']!, fleet['orchestrator']!]) {
    daemons.push(await DaemonProcess.start(agent.dir, { ...env, AGENT_DATA_DIR: join(agent.dir, 'data') }, await freePort()));
  }
}, 180_000);
afterAll(async () => {
  for (const daemon of daemons) daemon.signal('SIGTERM');
  await Promise.all(daemons.map((daemon) => daemon.exited));
  await vault?.stop();
}, 60_000);

describe('config files in the design document shapes, served over Kafka', () => {
  it('seed config kafka - an agent calls another through seed-shape peers, HMAC keys from ${secret:vault:..} and ${secret:env:..}', async () => {
    const payload = { to: `agent://${fleet['pr-reviewer']!.id}`, capability: 'review-pr', payload: { prUrl: 'https://example.com/pr/1' } };
    const run = await runCliProcess(['call', `agent://${fleet['orchestrator']!.id}`, 'relay', '--payload', JSON.stringify(payload), '--timeout', '60000', '--config', fleet['orchestrator']!.dir], {
      ...env,
      AGENT_DATA_DIR: join(fleet['orchestrator']!.dir, 'data'),
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', response: { relayed: { verdict: 'comment', summary: 'reviewed https://example.com/pr/1' } } });
    expect(vault.reads).toBeGreaterThan(0);
  }, 120_000);
});
