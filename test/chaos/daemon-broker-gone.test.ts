import { afterAll, describe, expect, it } from 'vitest';
import { startElasticMqServer, startKafkaServer, startMosquittoServer, startNatsServer, startRabbitMqServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import type { KillableBroker } from '../support/chaos-kit.js';
import type { DaemonProcess } from '../support/daemon-process.js';
import { exitWithin, startEchoDaemonOn } from '../support/daemon-on-broker.js';
import { until } from '../support/fleet.js';

/** Bound on the exit after SIGTERM: well past what a drain with nothing in flight takes, well short of a hang. */
const EXIT_MS = 20_000;

interface Case {
  readonly kind: string;
  /** Starts the broker; gives capabilities.yaml's entry for it and the env that entry reads. */
  readonly start: () => Promise<{ broker: KillableBroker & { stop(): Promise<void> }; transport: string; env: NodeJS.ProcessEnv }>;
  /** What the daemon logs once its client noticed the broker is gone. */
  readonly noticed: string;
}

const CASES: readonly Case[] = [
  {
    kind: 'nats',
    start: async () => {
      const broker = await startNatsServer();
      return { broker, transport: 'nats: { servers: "${env:URL}" }', env: { URL: broker.url } };
    },
    noticed: 'transport connection lost',
  },
  {
    kind: 'mqtt',
    start: async () => {
      const broker = await startMosquittoServer();
      return { broker, transport: 'mqtt: { url: "${env:URL}" }', env: { URL: broker.url } };
    },
    noticed: 'mqtt client error',
  },
  {
    kind: 'amqp',
    start: async () => {
      const broker = await startRabbitMqServer();
      return { broker, transport: 'amqp: { url: "${env:URL}" }', env: { URL: broker.url } };
    },
    noticed: 'amqp connection error',
  },
  {
    kind: 'sqs',
    start: async () => {
      const broker = await startElasticMqServer();
      const transport = 'sqs: { endpoint: "${env:URL}", region: elasticmq, waitTimeSeconds: 1, credentials: { accessKeyId: x, secretAccessKeyRef: "${env:SQS_SECRET_KEY}" } }';
      return { broker, transport, env: { URL: broker.endpoint, SQS_SECRET_KEY: 'x' } };
    },
    noticed: 'sqs: receive failed',
  },
  {
    kind: 'kafka',
    start: async () => {
      const broker = await startKafkaServer();
      // The broker's minimum session: leaving the group is given that long before the close goes on without.
      return { broker, transport: 'kafka: { brokers: ["${env:URL}"], sessionTimeoutMs: 6000 }', env: { URL: broker.brokers[0]! } };
    },
    noticed: 'transport connection lost',
  },
];

describe('daemon - SIGTERM after the broker went away', () => {
  for (const { kind, start, noticed } of CASES) {
    it(`daemon - on ${kind}, exits 0 after one SIGTERM once the broker was killed`, async () => {
      const { broker, transport, env } = await start();
      try {
        const daemon = await startEchoDaemonOn(transport, kind, env);
        await broker.kill();
        await until(() => daemon.stdout.includes(noticed), 30_000);
        daemon.signal('SIGTERM');
        expect(await exitWithin(daemon, EXIT_MS), daemon.stdout + daemon.stderr).toBe(0);
      } finally {
        await broker.stop();
      }
    }, 240_000);
  }
});

describe('daemon - log lines', () => {
  let nats: NatsServerHandle | undefined;
  afterAll(async () => nats?.stop(), 60_000);

  it('daemon - log lines name their transport once', async () => {
    nats = await startNatsServer();
    const daemon: DaemonProcess = await startEchoDaemonOn('nats: { servers: "${env:NATS_URL}" }', 'nats', { NATS_URL: nats.url });
    await nats.kill();
    await until(() => daemon.stdout.includes('nats connection status'), 20_000);
    await nats.restart();
    daemon.signal('SIGTERM');
    await exitWithin(daemon, EXIT_MS);
    const transportLines = daemon.stdout.split('\n').filter((line) => line.includes('"transport":'));
    expect(transportLines.length).toBeGreaterThan(0);
    for (const line of transportLines) expect(line.split('"transport":').length - 1, line).toBe(1);
  }, 90_000);
});
