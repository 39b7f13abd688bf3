import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import type { CallResult } from '../../src/call-result.js';
import type { RpcTransport } from '../../src/transport.js';
import { AgentProcess } from './agent-process-client.js';
import type { AgentProcessConfig } from './agent-process.js';
import { AnswerTally } from './answer-tally.js';
import { linesOf } from './chaos-kit.js';
import { until } from './fleet.js';

export interface CrashScenario {
  readonly agent: Omit<AgentProcessConfig, 'id' | 'instanceId' | 'sqlitePath' | 'effectsFile' | 'dlqPath' | 'concurrency'>;
  /** A fresh transport for the caller node in the test process (connected by the node). */
  readonly callerTransport: () => Promise<RpcTransport>;
  /** The broker holds nothing of the agent's inbox unsettled: nothing more can come. */
  readonly settledAtBroker: () => Promise<boolean>;
  readonly requests: number;
  readonly concurrency: number;
  /** SIGKILL once this many handler runs have started. */
  readonly killAfterRuns: number;
  readonly handlerMs: number;
}

export interface CrashOutcome {
  readonly results: CallResult[];
  readonly tally: AnswerTally;
  /** Request messageIds, one line per handler run, both lives. */
  readonly effects: string[];
  readonly runsAtKill: number;
  readonly deadLetters: string[];
}

/**
 * The user's crash: one agent (`counter`, SQLite dedupe, `concurrency` handlers) gets
 * `requests` calls from a caller node; after `killAfterRuns` handler runs it is killed with
 * SIGKILL and started again at once with the same instance id and files. Returns once every
 * call has its result, the broker has nothing of the inbox left unsettled, and a last
 * round trip came back behind every answer the agent sent.
 */
export async function runCrashScenario(scenario: CrashScenario): Promise<CrashOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'crash-claims-'));
  const config: AgentProcessConfig = {
    ...scenario.agent,
    id: 'counter',
    instanceId: 'counter-0',
    sqlitePath: join(dir, 'dedupe.db'),
    effectsFile: join(dir, 'effects.log'),
    dlqPath: join(dir, 'dlq.jsonl'),
    concurrency: scenario.concurrency,
  };
  const tally = new AnswerTally();
  const caller = new AgentNode({
    id: 'caller',
    ...(scenario.agent.tenantId ? { tenantId: scenario.agent.tenantId } : {}),
    transports: [tally.wrap(await scenario.callerTransport())],
    peers: [{ id: 'counter', routes: [{ kind: scenario.agent.transport.kind }] }],
  });
  let agent = await AgentProcess.start(config);
  try {
    await caller.start();
    const calls: Array<Promise<CallResult>> = [];
    for (let i = 0; i < scenario.requests; i++) {
      calls.push(caller.requestAgent({ to: 'counter', capability: 'slow-count', payload: { ms: scenario.handlerMs }, timeoutMs: 150_000 }));
    }
    await until(() => linesOf(config.effectsFile!).length >= scenario.killAfterRuns, 60_000);
    await agent.kill();
    const runsAtKill = linesOf(config.effectsFile!).length;
    agent = await AgentProcess.start(config);
    const results = await Promise.all(calls);
    await until(scenario.settledAtBroker, 60_000);
    const marker = await caller.requestAgent({ to: 'counter', capability: 'echo', payload: 'last', timeoutMs: 30_000 });
    if (marker.status !== 'ok') throw new Error(`the last round trip failed: ${marker.error?.code}`);
    return { results, tally, effects: linesOf(config.effectsFile!), runsAtKill, deadLetters: linesOf(config.dlqPath!) };
  } finally {
    await caller.close();
    if (agent.running) await agent.stop();
  }
}

/** How often each request's handler ran. */
export function runsPerRequest(effects: readonly string[]): Map<string, number> {
  const runs = new Map<string, number>();
  for (const id of effects) runs.set(id, (runs.get(id) ?? 0) + 1);
  return runs;
}

/**
 * What a crash must leave behind, whichever broker: every call ok, nothing dead-lettered,
 * each request answered once and with no failed answer, and each handler run at most
 * twice, the repeats no more than the handlers that were in flight. Returns how many ran twice.
 */
export function expectAnsweredOnceAcrossCrash(outcome: CrashOutcome, requests: number, concurrency: number): number {
  const { results, tally, effects, deadLetters } = outcome;
  expect(outcome.runsAtKill).toBeLessThan(requests);
  expect(deadLetters).toEqual([]);
  expect(results.filter((r) => r.status !== 'ok').map((r) => r.error?.code ?? r.status)).toEqual([]);
  const answered = results.map((r) => tally.distinct(r.messageId!).size);
  expect(answered.filter((n) => n !== 1)).toEqual([]);
  expect([...tally.byRequest.values()].flat().filter((answer) => !answer.ok)).toEqual([]);
  const runs = runsPerRequest(effects);
  expect(runs.size).toBe(requests);
  const repeated = [...runs.values()].filter((n) => n > 1);
  expect(repeated.filter((n) => n > 2)).toEqual([]);
  expect(repeated.length).toBeLessThanOrEqual(concurrency);
  return repeated.length;
}
