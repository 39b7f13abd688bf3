import { describe, expect, it } from 'vitest';
import { expectOperatorCommandsWork, serveEchoFixtureOn } from '../support/daemon-on-broker.js';
import { runKafka } from '../support/kafka-target.js';
import { runCliProcess } from '../support/run-cli-process.js';

const kafka = await runKafka();
const served = serveEchoFixtureOn({ kind: 'kafka', transport: 'kafka: { brokers: ["${env:KAFKA_BROKERS}"] }', env: { KAFKA_BROKERS: kafka.brokers[0]! }, scope: { tenantId: kafka.tenantId } });

describe('agent-rpc serve and the operator commands, on real Kafka', () => {
  it('daemon kafka - call, $capabilities, rpc peers --verify and dlq list', async () => {
    expect((await expectOperatorCommandsWork(served, 'kafka')).stderr).toBe('');
    const caps = JSON.parse((await runCliProcess(['call', 'agent://echo-agent', '$capabilities', '--timeout', '30000', '--config', served.configDir], served.env)).stdout);
    expect(caps.response.capabilities.map((c: { name: string }) => c.name)).toEqual(['echo', 'slow']);
  }, 120_000);
});
