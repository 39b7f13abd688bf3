import { describe, it } from 'vitest';
import { startNatsServer } from '../../tools/brokers/index.js';
import { chaosBroker, expectEchoRecoversFromKill } from '../support/chaos-kit.js';

describe('chaos - NATS server killed during load', () => {
  const broker = chaosBroker(() => startNatsServer({ jetstream: true }), 60_000);

  it('chaos - in-flight calls end typed, new calls succeed after restart, no process crashes', async () => {
    await expectEchoRecoversFromKill({
      start: broker.start,
      broker: broker.server,
      transport: { kind: 'nats', servers: broker.server.url },
      load: { before: 300, settledBeforeKill: 50, after: 100, timeoutMs: 3_000 },
      recovery: { callTimeoutMs: 1_000, withinMs: 15_000, backTimeoutMs: 5_000 },
    });
  }, 90_000);
});
