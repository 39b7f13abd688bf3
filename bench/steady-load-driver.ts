/**
 * The caller of `npm run bench:steady`, in a process of its own so that neither the daemon
 * nor the scrapes share its event loop: an open loop of signed sync calls at a fixed rate.
 * A call is sent when its time comes, whether or not earlier ones were answered, so a stall
 * of the daemon shows as the latency of every call it held up. Prints one JSON line
 * (DriverReport) on stdout when done.
 */
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { AgentNode, hmacAuth, PeerTable, type CallResult } from '../src/index.js';
import { MemoryBus, memoryTransport } from '../transports/memory/index.js';
import { natsTransport } from '../transports/nats/index.js';
import { BENCH_PAYLOAD } from './payload.js';

export interface DriverSpec {
  readonly natsUrl: string;
  readonly agentId: string;
  readonly keyId: string;
  readonly keyHex: string;
  readonly rate: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  /**
   * Each call made by a handler of the caller, as agents call each other, so it carries
   * its flow (causedBy, the guard's flow header); else from outside any flow, as a service
   * calls an agent.
   */
  readonly nested: boolean;
}

export interface DriverReport {
  readonly sent: number;
  readonly answered: number;
  readonly errors: Record<string, number>;
  /** Latency of the measured calls, send to settle, ms. */
  readonly latencyMs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  /** How late the driver sent calls against their schedule (its own stalls), ms. */
  readonly sendLateMs: { p99: number; max: number };
  /** The driver's own event loop delay, ms. */
  readonly driverLoopDelayMaxMs: number;
  /** Slowest call of each measured second, ms, for lining up with the daemon's stalls. */
  readonly slowestPerSecondMs: number[];
  readonly elapsedSeconds: number;
  /** Epoch ms of the first and the last measured send. */
  readonly measuredFromEpochMs: number;
  readonly measuredToEpochMs: number;
}

const NS_PER_MS = 1e6;

/** How one call ended (`ok`, else its error code or status) and its latency (ns) from send to settle. */
type Timed = { readonly outcome: string; readonly tookNs: number };

const outcomeOf = (result: CallResult): string => (result.status === 'ok' ? 'ok' : (result.error?.code ?? result.status));

/** Makes the calls: from outside any flow, or (nested) from a handler the memory transport starts. */
async function callerOf(spec: DriverSpec): Promise<{ call: () => Promise<Timed>; close: () => Promise<void> }> {
  const auth = () => hmacAuth({ keys: new Map([[spec.keyId, Buffer.from(spec.keyHex, 'hex')]]), signingKeyId: spec.keyId });
  const timed = async (call: () => Promise<CallResult>): Promise<Timed> => {
    const sentAt = process.hrtime.bigint();
    const result = await call();
    return { outcome: outcomeOf(result), tookNs: Number(process.hrtime.bigint() - sentAt) };
  };
  const request = { to: spec.agentId, capability: 'echo', payload: BENCH_PAYLOAD };
  const bus = new MemoryBus();
  const peers = new PeerTable([
    { id: spec.agentId, routes: [{ kind: 'nats' }] },
    { id: 'steady-caller', routes: [{ kind: 'memory' }] },
  ]);
  // Its inbox takes every relay at once (the default 256 would refuse the caller's own load while the daemon stalls).
  const caller = new AgentNode({ id: 'steady-caller', transports: [natsTransport({ servers: spec.natsUrl }), memoryTransport({ bus })], peers, auth: auth(), limits: { concurrency: 100_000 } });
  if (!spec.nested) {
    await caller.start();
    return { call: () => timed(() => caller.requestAgent(request)), close: () => caller.close() };
  }
  caller.handle('relay', (_input, ctx) => timed(() => ctx.requestAgent(request)));
  const kicker = new AgentNode({ id: 'steady-kicker', transports: [memoryTransport({ bus })], peers, auth: auth() });
  await caller.start();
  await kicker.start();
  return {
    call: async () => {
      const relayed = await kicker.requestAgent<Timed>({ to: 'steady-caller', capability: 'relay', payload: null });
      return relayed.status === 'ok' && relayed.response !== undefined ? relayed.response : { outcome: `relay: ${outcomeOf(relayed)}`, tookNs: 0 };
    },
    close: async () => {
      await kicker.close();
      await caller.close();
    },
  };
}

async function drive(spec: DriverSpec): Promise<DriverReport> {
  const caller = await callerOf(spec);
  const latency = createHistogram();
  const late = createHistogram();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const errors: Record<string, number> = {};
  const slowest: number[] = [];
  const intervalNs = 1e9 / spec.rate;
  const warmupCalls = Math.round(spec.warmupSeconds * spec.rate);
  const totalCalls = warmupCalls + Math.round(spec.seconds * spec.rate);
  let sent = 0;
  let settled = 0;
  let answered = 0;
  const start = process.hrtime.bigint();
  let measuredFrom = 0n;
  let measuredFromEpochMs = 0;
  let finish: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => (finish = resolve));

  const send = (index: number, dueNs: bigint): void => {
    const sentAt = process.hrtime.bigint();
    const measured = index >= warmupCalls;
    if (measured) late.record(Math.max(1, Number(sentAt - dueNs)));
    void caller.call().then(
      ({ outcome, tookNs }) => {
        if (measured && outcome === 'ok') {
          answered++;
          latency.record(Math.max(1, tookNs));
          const second = Math.floor(Number(sentAt - measuredFrom) / 1e9);
          slowest[second] = Math.max(slowest[second] ?? 0, tookNs / NS_PER_MS);
        } else if (measured) {
          errors[outcome] = (errors[outcome] ?? 0) + 1;
        }
        if (++settled === totalCalls) finish();
      },
      (error: unknown) => {
        errors['thrown'] = (errors['thrown'] ?? 0) + 1;
        process.stderr.write(`steady-load driver: call threw: ${String(error)}\n`);
        if (++settled === totalCalls) finish();
      },
    );
  };

  // Timers fire at best every millisecond: each tick sends every call whose time has come.
  let measuredToEpochMs = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = process.hrtime.bigint();
      while (sent < totalCalls) {
        const due = start + BigInt(Math.round(sent * intervalNs));
        if (due > now) break;
        if (sent === warmupCalls) {
          measuredFrom = due;
          measuredFromEpochMs = Date.now();
          loop.enable();
        }
        send(sent++, due);
      }
      if (sent < totalCalls) setTimeout(tick, 1);
      else {
        measuredToEpochMs = Date.now();
        resolve();
      }
    };
    tick();
  });
  await allSettled;
  loop.disable();
  const elapsedSeconds = Number(process.hrtime.bigint() - measuredFrom) / 1e9;
  await caller.close();
  const ms = (ns: number): number => ns / NS_PER_MS;
  return {
    sent: totalCalls - warmupCalls,
    answered,
    errors,
    latencyMs: {
      p50: ms(latency.percentile(50)),
      p90: ms(latency.percentile(90)),
      p99: ms(latency.percentile(99)),
      p999: ms(latency.percentile(99.9)),
      max: ms(latency.max),
      mean: ms(latency.mean),
    },
    sendLateMs: { p99: ms(late.percentile(99)), max: ms(late.max) },
    driverLoopDelayMaxMs: ms(loop.max),
    slowestPerSecondMs: Array.from(slowest, (v) => v ?? 0),
    elapsedSeconds,
    measuredFromEpochMs,
    measuredToEpochMs,
  };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as DriverSpec;
drive(spec).then(
  (report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`steady-load driver failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
