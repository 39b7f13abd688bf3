import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { copyEchoFixtureOn } from '../support/echo-fixture.js';
import { runKafka } from '../support/kafka-target.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { scopeConfig } from '../support/scoped-config.js';

const kafka = await runKafka();

describe('kafka - restart of a killed instance', () => {
  it('kafka - sessionTimeoutMs in capabilities.yaml sets how long a killed instance holds its partitions after its restart', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'kafka-restart-'));
    // Well past the 10 s the consumers used before the setting existed (plus a daemon's start): the restart must wait for it.
    const sessionTimeoutMs = 30_000;
    copyEchoFixtureOn(configDir, `kafka: { brokers: ["\${env:KAFKA_BROKERS}"], sessionTimeoutMs: ${sessionTimeoutMs}, heartbeatIntervalMs: 2000 }`, 'kafka');
    scopeConfig(configDir, { tenantId: kafka.tenantId });
    const env = { KAFKA_BROKERS: kafka.brokers[0]!, AGENT_DATA_DIR: join(configDir, 'data'), AGENT_HTTP_PORT: '0' };
    const port = await freePort();
    let daemon = await DaemonProcess.start(configDir, env, port);
    try {
      daemon.signal('SIGKILL');
      await daemon.exited;
      const killedAt = Date.now();
      // The same instance again: it is ready once its consumers have joined their groups,
      // which the broker lets happen when the dead member's session has ended.
      daemon = await DaemonProcess.start(configDir, env, port);
      // Its last heartbeat was at most heartbeatIntervalMs before the kill.
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(sessionTimeoutMs - 2_000);
      const call = await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', '{"after":"restart"}', '--timeout', '30000', '--config', configDir], env);
      expect(JSON.parse(call.stdout)).toMatchObject({ status: 'ok', response: { after: 'restart' } });
    } finally {
      daemon.signal('SIGTERM');
      await daemon.exited;
    }
  }, 120_000);
});
