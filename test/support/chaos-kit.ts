import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { AgentProcess, type RemoteCallResult } from './agent-process-client.js';
import type { AgentProcessConfig } from './agent-process.js';
import { until } from './fleet.js';

/** The statuses a call may end with; anything else is an untyped failure. */
const TYPED_STATUSES = ['ok', 'timeout', 'error', 'busy', 'abandoned'];

/** Lines of a file that may not exist yet (an effects log, a DLQ file). */
export const linesOf = (path: string): string[] => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

/** What a chaos test does to a broker started by tools/brokers. */
export interface KillableBroker {
  kill(): Promise<void>;
  restart(): Promise<void>;
}

type CallOptions = Parameters<AgentProcess['call']>[0];

/** Agent processes a test starts, so that one afterAll stops whichever still run. */
export class AgentRoster {
  private readonly running: AgentProcess[] = [];

  readonly start = async (config: AgentProcessConfig): Promise<AgentProcess> => {
    const agent = await AgentProcess.start(config);
    this.running.push(agent);
    return agent;
  };

  async stopAll(): Promise<void> {
    for (const agent of this.running) {
      if (!agent.running) continue;
      agent.resume(); // a paused process cannot drain and exit
      await agent.stop();
    }
  }
}

/**
 * The broker a chaos test file faults: started before its tests; after them, the agent
 * processes they started are stopped, then the broker.
 */
export function chaosBroker<S extends KillableBroker & { stop(): Promise<void> }>(startServer: () => Promise<S>, startTimeoutMs: number): { readonly server: S; readonly start: AgentRoster['start'] } {
  const agents = new AgentRoster();
  let server: S | undefined;
  beforeAll(async () => {
    server = await startServer();
  }, startTimeoutMs);
  afterAll(async () => {
    await agents.stopAll();
    await server?.stop();
  }, 60_000);
  return {
    get server(): S {
      if (server === undefined) throw new Error('the broker is not started yet');
      return server;
    },
    start: agents.start,
  };
}

/** Calls cut off by a broker kill end typed, and the kill landed during the load: some got through, some did not. */
export function expectTypedOutcomes(results: readonly RemoteCallResult[]): void {
  for (const result of results) {
    expect(TYPED_STATUSES).toContain(result.status);
    if (result.status !== 'ok') expect(result.error?.code).toMatch(/^EAGENTRPC_/);
  }
  expect(results.some((r) => r.status === 'ok')).toBe(true);
  expect(results.some((r) => r.status !== 'ok')).toBe(true);
}

/**
 * Echo calls from `from` to `to` while the broker dies: `before` calls, the kill once
 * `settledBeforeKill` of them have ended, then `after` more against the dead broker.
 * Resolves with every call's result; the broker is left down.
 */
export async function echoLoadAcrossKill(load: {
  readonly from: AgentProcess;
  readonly to: string;
  readonly broker: KillableBroker;
  readonly before: number;
  readonly settledBeforeKill: number;
  readonly after: number;
  readonly timeoutMs: number;
  readonly waitMs?: number;
}): Promise<RemoteCallResult[]> {
  const inFlight: Array<Promise<RemoteCallResult>> = [];
  let settled = 0;
  const fire = (count: number): void => {
    for (let i = 0; i < count; i++) {
      const call = load.from.call({ to: load.to, capability: 'echo', payload: i, timeoutMs: load.timeoutMs });
      void call.then(() => settled++);
      inFlight.push(call);
    }
  };
  fire(load.before);
  await until(() => settled >= load.settledBeforeKill, load.waitMs);
  await load.broker.kill();
  fire(load.after);
  return Promise.all(inFlight);
}

/**
 * An `alpha` and a `beta` on `transport`, and echo calls between them while the broker is
 * killed (echoLoadAcrossKill with `load`): every call ends typed; after the restart a call
 * succeeds within `recovery.withinMs` (each try `recovery.callTimeoutMs`), so does one the
 * other way (`recovery.backTimeoutMs`), and neither process crashed.
 */
export async function expectEchoRecoversFromKill(run: {
  readonly start: AgentRoster['start'];
  readonly broker: KillableBroker;
  readonly transport: AgentProcessConfig['transport'];
  readonly load: Omit<Parameters<typeof echoLoadAcrossKill>[0], 'from' | 'to' | 'broker'>;
  readonly recovery: { readonly callTimeoutMs: number; readonly withinMs: number; readonly backTimeoutMs: number };
}): Promise<void> {
  const alpha = await run.start({ id: 'alpha', transport: run.transport, peers: ['beta'] });
  const beta = await run.start({ id: 'beta', transport: run.transport, peers: ['alpha'] });
  expectTypedOutcomes(await echoLoadAcrossKill({ ...run.load, from: alpha, to: 'beta', broker: run.broker }));
  await run.broker.restart();
  const recovered = await callUntilOk(alpha, { to: 'beta', capability: 'echo', payload: 'after restart', timeoutMs: run.recovery.callTimeoutMs }, run.recovery.withinMs);
  expect(recovered).toMatchObject({ status: 'ok', response: 'after restart' });
  expect(await beta.call({ to: 'alpha', capability: 'echo', payload: 'both ways', timeoutMs: run.recovery.backTimeoutMs })).toMatchObject({ status: 'ok' });
  expect(alpha.running && beta.running).toBe(true);
}

/** Calls again until one ends ok or `withinMs` has passed; returns the last result. */
export async function callUntilOk(from: AgentProcess, options: CallOptions, withinMs: number): Promise<RemoteCallResult | undefined> {
  const deadline = Date.now() + withinMs;
  let result: RemoteCallResult | undefined;
  while (Date.now() < deadline) {
    result = await from.call(options);
    if (result.status === 'ok') break;
  }
  return result;
}

/**
 * A `counter` agent (SQLite dedupe, effects log) and a `caller`; `calls` idempotent
 * `count` calls with `retry`, the broker killed once `settledBeforeKill` have ended and
 * restarted at once. Resolves when every call has its result.
 */
export async function idempotentCallsAcrossKill(run: {
  readonly start: AgentRoster['start'];
  readonly broker: KillableBroker;
  readonly transport: AgentProcessConfig['transport'];
  readonly dirPrefix: string;
  readonly calls: number;
  readonly settledBeforeKill: number;
  readonly timeoutMs: number;
  readonly retry: NonNullable<CallOptions['retry']>;
}) {
  const dir = mkdtempSync(join(tmpdir(), run.dirPrefix));
  const effectsFile = join(dir, 'effects.log');
  const counter = await run.start({ id: 'counter', transport: run.transport, peers: [], sqlitePath: join(dir, 'dedupe.db'), effectsFile });
  const caller = await run.start({ id: 'caller', transport: run.transport, peers: ['counter'] });
  let settled = 0;
  const calls: Array<Promise<RemoteCallResult>> = [];
  for (let i = 0; i < run.calls; i++) {
    const call = caller.call({ to: 'counter', capability: 'count', payload: i, timeoutMs: run.timeoutMs, retry: run.retry });
    void call.then(() => settled++);
    calls.push(call);
  }
  await until(() => settled >= run.settledBeforeKill, 60_000);
  await run.broker.kill();
  const settledAtKill = settled;
  await run.broker.restart();
  const results = await Promise.all(calls);
  return { results, settledAtKill, settled, effects: linesOf(effectsFile), counter, caller };
}

/** The end of idempotentCallsAcrossKill: every call ended ok, each side effect happened exactly once, and neither process crashed. */
export function expectEachCallAppliedOnce(run: Awaited<ReturnType<typeof idempotentCallsAcrossKill>>): void {
  expect(run.results.filter((r) => r.status !== 'ok').map((r) => r.error?.code)).toEqual([]);
  expect(new Set(run.effects).size).toBe(run.results.length);
  expect(run.effects).toHaveLength(run.results.length);
  expect(run.counter.running && run.caller.running).toBe(true);
}

/**
 * A `worker` (SQLite dedupe, effects log) that is killed with SIGKILL when it acks a
 * `count` request, and a `boss` that has just sent it one. `base` starts the worker
 * again with the same instance id and files.
 */
export async function consumerKilledBeforeAck(setup: {
  readonly start: AgentRoster['start'];
  readonly transport: AgentProcessConfig['transport'];
  readonly dirPrefix: string;
  readonly call: Omit<CallOptions, 'to' | 'capability' | 'payload'>;
}) {
  const dir = mkdtempSync(join(tmpdir(), setup.dirPrefix));
  const effectsFile = join(dir, 'effects.log');
  const base: AgentProcessConfig = { id: 'worker', instanceId: 'worker-0', transport: setup.transport, peers: [], sqlitePath: join(dir, 'dedupe.db'), effectsFile };
  const doomed = await setup.start({ ...base, killOnAckOf: '"capability":"count"' });
  const caller = await setup.start({ id: 'boss', transport: setup.transport, peers: ['worker'] });
  const call = caller.call({ ...setup.call, to: 'worker', capability: 'count', payload: 'once' });
  return { base, doomed, call, effects: (): string[] => linesOf(effectsFile) };
}

/**
 * The end of consumerKilledBeforeAck: the doomed worker died by SIGKILL after one side
 * effect, a worker of the same instance starts, and the waiting call is answered with that
 * one effect (redelivered, the dedupe store answering it once).
 */
export async function expectAnsweredOnceAfterRestart(scenario: Awaited<ReturnType<typeof consumerKilledBeforeAck>>, start: AgentRoster['start']): Promise<void> {
  const { base, doomed, call, effects } = scenario;
  expect(await doomed.exited).toBeNull(); // killed by SIGKILL, no exit code
  expect(effects()).toHaveLength(1);
  await start(base);
  const result = await call;
  expect(result).toMatchObject({ status: 'ok', response: 'counted' });
  expect(effects()).toEqual([result.messageId]);
}
