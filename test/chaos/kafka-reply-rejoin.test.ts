import { Kafka, logLevel, type Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startKafkaServer } from '../../tools/brokers/index.js';
import { type RemoteCallResult } from '../support/agent-process-client.js';
import { chaosBroker } from '../support/chaos-kit.js';
import { until } from '../support/fleet.js';

/**
 * A caller's reply consumer that is away (its consumer crashed in a broker outage and has
 * not rejoined yet) while replies to it are published must read them once it rejoins.
 */
describe('chaos - Kafka reply consumer rejoining after a broker outage', () => {
  const broker = chaosBroker(startKafkaServer, 120_000);
  const { start } = broker;

  const withAdmin = async <T>(work: (admin: Admin) => Promise<T>): Promise<T> => {
    const admin = new Kafka({ brokers: broker.server.brokers, clientId: 'reply-rejoin-test', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  };
  /** Messages in the topic: the sum of its partitions' end offsets. */
  const published = (topic: string): Promise<number> =>
    withAdmin(async (admin) => (await admin.fetchTopicOffsets(topic)).reduce((sum, { high }) => sum + Number(high), 0));
  /** The group has committed everything in the topic: it will deliver none of it again. */
  const caughtUp = (groupId: string, topic: string): Promise<boolean> =>
    withAdmin(async (admin) => {
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      return ends.every(({ partition, high }) => committed?.partitions.find((p) => p.partition === partition)?.offset === high);
    });

  it('chaos - replies published while the caller consumer is away are delivered after it rejoins; retrying callers get theirs, none is lost', async () => {
    const transport = { kind: 'kafka' as const, brokers: broker.server.brokers };
    const instanceId = `caller-${Math.random().toString(36).slice(2, 8)}`;
    const replyTopic = `agents.caller.responses.${instanceId}`;
    const svc = await start({ id: 'svc', transport, peers: [] });
    // A stable instance id: the restarted instance finds its reply topic already there.
    const firstLife = await start({ id: 'caller', instanceId, transport, peers: ['svc'] });
    expect(await firstLife.stop()).toBe(0);
    const caller = await start({ id: 'caller', instanceId, transport, peers: ['svc'], forwardLogs: true });
    const before = await published(replyTopic);

    const calls: Array<Promise<RemoteCallResult>> = [];
    for (let n = 0; n < 10; n++) calls.push(caller.call({ to: 'svc', capability: 'held', payload: { n }, timeoutMs: 60_000 }));
    for (let n = 10; n < 20; n++) {
      calls.push(caller.call({ to: 'svc', capability: 'held', payload: { n }, timeoutMs: 90_000, retry: { attempts: 20, attemptTimeoutMs: 10_000, backoffMs: 250 } }));
    }
    await until(() => svc.busEvents.filter((e) => e.name === 'held').length >= 20, 60_000);

    await broker.server.kill();
    svc.release();
    // The caller's reply consumer gives up on the dead broker; kafkajs will start it again.
    const replyConsumerFailed = (): boolean =>
      caller.busEvents.some((e) => {
        const { topic, restart } = e.event as { topic?: string; restart?: boolean };
        return e.name === 'log' && topic === replyTopic && restart === true;
      });
    await until(replyConsumerFailed, 90_000);
    // Held still while the broker comes back and the replies are written.
    caller.pause();
    await broker.server.restart();
    await until(async () => (await published(replyTopic).catch(() => before)) >= before + 20, 90_000);
    // The responder has committed the requests: it will not answer them again by itself.
    await until(() => caughtUp('svc.agents.svc.requests', 'agents.svc.requests').catch(() => false), 90_000);
    caller.resume();

    const results = await Promise.all(calls);
    // Calls 0-9 waited without retrying, 10-19 retried: which ones failed, and how.
    expect(results.flatMap((r, n) => (r.status === 'ok' ? [] : [`${n}: ${r.error?.code ?? r.status}`]))).toEqual([]);
    expect(results.map((r) => r.response)).toEqual(Array.from({ length: 20 }, (_, n) => ({ n })));
    expect(caller.running && svc.running).toBe(true);
  }, 300_000);
});
