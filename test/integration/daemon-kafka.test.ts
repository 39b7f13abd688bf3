import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { copyEchoFixtureOn } from '../support/echo-fixture.js';
import { runKafka } from '../support/kafka-target.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { scopeConfig } from '../support/scoped-config.js';

const kafka = await runKafka();
const configDir = mkdtempSync(join(tmpdir(), 'daemon-kafka-'));
let env: NodeJS.ProcessEnv;
let daemon: DaemonProcess;

beforeAll(async () => {
  copyEchoFixtureOn(configDir, 'kafka: { brokers: ["${env:KAFKA_BROKERS}"] }', 'kafka');
  scopeConfig(configDir, { tenantId: kafka.tenantId });
  env = { KAFKA_BROKERS: kafka.brokers[0]!, AGENT_DATA_DIR: join(configDir, 'data'), AGENT_HTTP_PORT: '0' };
  daemon = await DaemonProcess.start(configDir, env, await freePort());
}, 180_000);
afterAll(async () => {
  daemon?.signal('SIGTERM');
  await daemon?.exited;
}, 60_000);

describe('agent-rpc serve and the operator commands, on real Kafka', () => {
  it('daemon kafka - call, $capabilities, rpc peers --verify and dlq list', async () => {
    const call = await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', '{"over":"kafka"}', '--timeout', '30000', '--config', configDir], env);
    expect(call.stderr).toBe('');
    expect(JSON.parse(call.stdout)).toMatchObject({ status: 'ok', response: { over: 'kafka' } });
    const caps = JSON.parse((await runCliProcess(['call', 'agent://echo-agent', '$capabilities', '--timeout', '30000', '--config', configDir], env)).stdout);
    expect(caps.response.capabilities.map((c: { name: string }) => c.name)).toEqual(['echo', 'slow']);
    const peers = await runCliProcess(['rpc', 'peers', '--verify', '--timeout', '30000', '--json', '--config', configDir], env);
    expect(JSON.parse(peers.stdout)).toMatchObject({ id: 'agent://echo-agent', transports: 'kafka', verify: { ok: true } });
    const unknown = await runCliProcess(['call', 'agent://echo-agent', 'nope', '--timeout', '30000', '--config', configDir], env);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
    const dlq = await runCliProcess(['dlq', 'list', '--json', '--config', configDir], env);
    expect(dlq.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['unknown-capability']);
  }, 120_000);
});
