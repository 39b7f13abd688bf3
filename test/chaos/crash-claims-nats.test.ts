import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';
import { jetStreamName } from '../../transports/nats/jetstream-subscription.js';
import { AgentProcess } from '../support/agent-process-client.js';
import { AnswerTally } from '../support/answer-tally.js';
import { linesOf } from '../support/chaos-kit.js';
import { expectAnsweredOnceAcrossCrash, runCrashScenario } from '../support/crash-scenario.js';
import { until } from '../support/fleet.js';

const CONCURRENCY = 6;

describe('chaos - claims across a crash on a JetStream inbox', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connect({ servers: server.url });
    jsm = await nc.jetstreamManager();
  }, 60_000);

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  }, 60_000);

  /** The agent's durable consumer has nothing unacked and nothing undelivered. */
  const inboxSettled = (agentId: string) => async (): Promise<boolean> => {
    const topic = `agents.${agentId}.requests`;
    const info = await jsm.consumers.info(jetStreamName(topic), jetStreamName(`${agentId}.${topic}`));
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };

  it('chaos - agent killed with SIGKILL after ~75 of 300 runs and restarted at once: nothing dead-lettered, each request answered once, runs repeated at most once per handler in flight', async () => {
    const outcome = await runCrashScenario({
      agent: { transport: { kind: 'nats', servers: server.url, durable: true }, peers: [] },
      callerTransport: async () => natsTransport({ servers: server.url, durable: true }),
      settledAtBroker: inboxSettled('counter'),
      requests: 300,
      concurrency: CONCURRENCY,
      killAfterRuns: 75,
      handlerMs: 20,
    });
    const repeated = expectAnsweredOnceAcrossCrash(outcome, 300, CONCURRENCY);
    console.info(`jetstream crash: ${outcome.runsAtKill} runs before the kill, ${repeated} run twice, ${outcome.tally.deliveries} answer deliveries for 300 requests`);
  }, 240_000);

  it('chaos - a claim held by a live replica defers the redelivery on the other replica without spending attempts: no max-deliver, one answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-claim-'));
    // One dedupe file shared by both replicas (each its own instance): each sees the other's claims.
    const transport = { kind: 'nats' as const, servers: server.url, durable: { ackWaitMs: 1_000, maxDeliver: 3 } };
    const shared = { id: 'slowpoke', transport, peers: [], sqlitePath: join(dir, 'dedupe.db'), effectsFile: join(dir, 'effects.log') };
    const replicas = await Promise.all(
      ['r1', 'r2'].map((instanceId) => AgentProcess.start({ ...shared, instanceId, dlqPath: join(dir, `dlq-${instanceId}.jsonl`) })),
    );
    const tally = new AnswerTally();
    const caller = new AgentNode({
      id: 'asker',
      transports: [tally.wrap(natsTransport({ servers: server.url, durable: transport.durable }))],
      peers: [{ id: 'slowpoke', routes: [{ kind: 'nats' }] }],
    });
    await caller.start();
    try {
      // Runs longer than max_deliver × ack_wait: JetStream redelivers it while it runs.
      const result = await caller.requestAgent({ to: 'slowpoke', capability: 'slow-count', payload: { ms: 6_000 }, timeoutMs: 60_000 });
      expect(result).toMatchObject({ status: 'ok', response: 'counted' });
      await until(inboxSettled('slowpoke'), 30_000);
      expect(await caller.requestAgent({ to: 'slowpoke', capability: 'echo', payload: 'last', timeoutMs: 30_000 })).toMatchObject({ status: 'ok' });
      const topic = 'agents.slowpoke.requests';
      const info = await jsm.consumers.info(jetStreamName(topic), jetStreamName(`slowpoke.${topic}`));
      // It was redelivered (the situation under test), and not dead-lettered on either replica.
      expect(info.delivered.consumer_seq).toBeGreaterThan(2);
      expect([...linesOf(join(dir, 'dlq-r1.jsonl')), ...linesOf(join(dir, 'dlq-r2.jsonl'))]).toEqual([]);
      expect(linesOf(shared.effectsFile)).toEqual([result.messageId]);
      expect([...tally.distinct(result.messageId!)]).toHaveLength(1);
      expect(tally.byRequest.get(result.messageId!)!.every((answer) => answer.ok)).toBe(true);
    } finally {
      await caller.close();
      for (const replica of replicas) await replica.stop();
    }
  }, 120_000);
});
