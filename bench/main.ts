import { parseArgs } from 'node:util';
import { benchEnvelope } from './envelope-bench.js';
import { leakCheck } from './leak-check.js';
import { benchAgentRpcMemory, benchRawMemory, type BenchRun } from './memory-bench.js';
import { benchNats } from './nats-bench.js';
import { formatTable } from './stats.js';
import { kafkaBrokersFromEnv, natsUrlFromEnv, startKafkaServer, startNatsServer } from '../tools/brokers/index.js';
import { benchKafka } from './kafka-bench.js';

interface BenchBroker {
  address: string[];
  stop(): Promise<void>;
}

/** NATS_URL when set, otherwise a server of our own on a free port. */
async function natsForBench(): Promise<BenchBroker> {
  const url = natsUrlFromEnv();
  if (url) return { address: [url], stop: async () => {} };
  const server = await startNatsServer();
  return { address: [server.url], stop: () => server.stop() };
}

/** KAFKA_BROKERS when set, otherwise a broker of our own on free ports. */
async function kafkaForBench(): Promise<BenchBroker> {
  const brokers = kafkaBrokersFromEnv();
  if (brokers) return { address: brokers, stop: async () => {} };
  const server = await startKafkaServer();
  return { address: server.brokers, stop: () => server.stop() };
}

/**
 * `npm run bench [-- --transport memory|nats|kafka] [--seconds 3] [--runs 1] [--flow implicit|ctx] [--leak]`
 * (`--flow ctx`: agent-rpc nodes with `implicitFlow: false`)
 * Each configuration is measured next to the raw transport in the same run (interleaved
 * when --runs > 1, median reported) and printed with the ratio agent-rpc / raw.
 */
const { values } = parseArgs({
  options: {
    transport: { type: 'string', default: 'memory' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    leak: { type: 'boolean', default: false },
    flow: { type: 'string', default: 'implicit' },
  },
});

const transport = values.transport;
if (transport !== 'memory' && transport !== 'nats' && transport !== 'kafka') {
  console.error(`bench: --transport must be memory, nats or kafka, got ${transport}`);
  process.exit(2);
}
// One per process: on Node 20 and 22 the first AsyncLocalStorage run leaves promise hooks
// on for good, so rows with the flow context off must not follow rows with it on.
const flow = values.flow;
if (flow !== 'implicit' && flow !== 'ctx') {
  console.error(`bench: --flow must be implicit or ctx, got ${flow}`);
  process.exit(2);
}
const measureMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const runs = Number(values.runs);
for (const [name, value] of [['seconds', measureMs], ['warmup', warmupMs], ['runs', runs]] as const) {
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`bench: --${name} must be a positive number`);
    process.exit(2);
  }
}

function median(list: BenchRun[]): BenchRun {
  const sorted = [...list].sort((a, b) => a.figures.callsPerSec - b.figures.callsPerSec);
  return sorted[Math.floor(sorted.length / 2)]!;
}

console.log(`agent-rpc bench: transport=${transport}, flow=${flow}, ${runs} run(s) of ${warmupMs / 1000}s warm-up + ${measureMs / 1000}s, node ${process.version}\n`);

/** One configuration per entry; the first is the raw baseline the others are compared with. */
type System = (concurrency: number) => Promise<BenchRun>;
const broker = transport === 'nats' ? await natsForBench() : transport === 'kafka' ? await kafkaForBench() : undefined;
const systems: System[] =
  transport === 'nats'
    ? (['raw', 'moleculer', 'agent-rpc', 'agent-rpc-hmac'] as const).map((name) => (c: number) => benchNats(name, broker!.address[0]!, c, warmupMs, measureMs, flow))
    : transport === 'kafka'
      ? (['raw', 'agent-rpc'] as const).map((name) => (c: number) => benchKafka(name, broker!.address, c, warmupMs, measureMs))
      : [(c) => benchRawMemory(c, warmupMs, measureMs), (c) => benchAgentRpcMemory(c, warmupMs, measureMs, 'internal', flow), (c) => benchAgentRpcMemory(c, warmupMs, measureMs, 'hmac', flow)];
const concurrencies = transport === 'memory' ? [1, 64] : [1, 64, 256];

const rows: Array<Array<string | number>> = [];
for (const concurrency of concurrencies) {
  // Interleaved: run i of every system before run i+1 of any, so drift hits all alike.
  const results: BenchRun[][] = systems.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, system] of systems.entries()) results[index]!.push(await system(concurrency));
  }
  const medians = results.map(median);
  const base = medians[0]!;
  for (const run of medians) {
    const f = run.figures;
    rows.push([run.system, concurrency, f.callsPerSec, f.p50Ms, f.p99Ms, f.errors, `${(f.callsPerSec / base.figures.callsPerSec).toFixed(2)}x`]);
  }
}
await broker?.stop();
console.log(formatTable(['system', 'C', 'calls/s', 'p50 ms', 'p99 ms', 'errors', 'vs raw'], rows));
console.log('');
console.log(formatTable(['envelope operation', 'ops/s'], benchEnvelope().map((r) => [r.name, r.opsPerSec])));

if (values.leak) {
  const figures = await leakCheck(1_000_000, 10_000);
  console.log('');
  console.log(
    formatTable(
      ['leak check (memory, sync calls, dedupe store of 10,000)', 'heap after 10,000 MB', 'heap after 1,000,000 MB', 'growth MB'],
      [['1,000,000 calls at C=64', figures.heapAfterWarmupMb.toFixed(1), figures.heapAfterAllMb.toFixed(1), figures.growthMb.toFixed(1)]],
    ),
  );
}
