import { describe, expect, it } from 'vitest';
import { startRabbitMqServer } from '../../tools/brokers/index.js';
import { amqpTransport } from '../../transports/amqp/index.js';
import { chaosBroker, consumerKilledBeforeAck, expectAnsweredOnceAfterRestart, expectEachCallAppliedOnce, expectEchoRecoversFromKill, idempotentCallsAcrossKill } from '../support/chaos-kit.js';
import { Collector } from '../support/collector.js';

describe('chaos - RabbitMQ faults', () => {
  const broker = chaosBroker(startRabbitMqServer, 120_000);
  const { start } = broker;

  it('brokers - rabbitmq runs as a node of its own on free ports; an inbox keeps its messages across kill -9 and restart', async () => {
    expect(broker.server.port).not.toBe(5672);
    expect(broker.server.nodeName).toMatch(/^agentrpc-[0-9a-f]+@localhost$/);
    let reconnects = 0;
    const transport = amqpTransport({ url: broker.server.url, prefix: 'harness.', metrics: { transportReconnected: () => reconnects++ } });
    await transport.connect();
    await transport.publish('agents.keeper.requests', { body: Buffer.from('kept') });
    const pid = broker.server.pid;
    await broker.server.kill();
    await broker.server.restart();
    expect(broker.server.pid).not.toBe(pid);
    const got = new Collector({ autoAck: true });
    // The client reconnects by itself; the durable classic queue and its message survived the crash.
    await transport.subscribe('agents.keeper.requests', got.handler, { group: 'keeper' });
    expect((await got.waitFor(1, 30_000)).map((d) => Buffer.from(d.body).toString())).toEqual(['kept']);
    expect(reconnects).toBe(1);
    await transport.close();
  }, 120_000);

  it('chaos - broker killed during 500 idempotent calls: every call ends typed and ok after restart, the side effect happens exactly 500 times', async () => {
    const run = await idempotentCallsAcrossKill({
      start,
      broker: broker.server,
      transport: { kind: 'amqp', url: broker.server.url, prefix: 'kill.' },
      dirPrefix: 'amqp-kill-',
      calls: 500,
      settledBeforeKill: 50,
      timeoutMs: 180_000,
      retry: { attempts: 40, attemptTimeoutMs: 5_000, backoffMs: 250 },
    });
    // The broker died with calls still open.
    expect(run.settledAtKill).toBeLessThan(500);
    expectEachCallAppliedOnce(run);
  }, 240_000);

  it('chaos - without retries, calls cut off by a kill -9 end typed; new calls succeed after the restart, no process crashes', async () => {
    await expectEchoRecoversFromKill({
      start,
      broker: broker.server,
      transport: { kind: 'amqp', url: broker.server.url, prefix: 'typed.' },
      load: { before: 300, settledBeforeKill: 50, after: 100, timeoutMs: 3_000, waitMs: 60_000 },
      recovery: { callTimeoutMs: 1_000, withinMs: 30_000, backTimeoutMs: 5_000 },
    });
  }, 120_000);

  it('chaos - a consumer killed after the side effect but before its ack: redelivered, answered once', async () => {
    const scenario = await consumerKilledBeforeAck({
      start,
      transport: { kind: 'amqp', url: broker.server.url, prefix: 'crash.' },
      dirPrefix: 'amqp-crash-',
      call: { timeoutMs: 120_000, retry: { attempts: 30, attemptTimeoutMs: 4_000 } },
    });
    await expectAnsweredOnceAfterRestart(scenario, start);
  }, 180_000);
});
