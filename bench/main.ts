import { parseArgs } from 'node:util';
import { benchEnvelope } from './envelope-bench.js';
import { leakCheck } from './leak-check.js';
import { benchAgentRpcMemory, benchRawMemory, type BenchRun } from './memory-bench.js';
import { benchNats } from './nats-bench.js';
import { formatTable } from './stats.js';
import { kafkaBrokersFromEnv, mqttUrlFromEnv, natsUrlFromEnv, rabbitMqUrlFromEnv, sqsEndpointFromEnv, startElasticMqServer, startKafkaServer, startMosquittoServer, startNatsServer, startRabbitMqServer } from '../tools/brokers/index.js';
import { AMQP_SYSTEMS, benchAmqp } from './amqp-bench.js';
import { benchKafka } from './kafka-bench.js';
import { benchMqtt, MQTT_SYSTEMS } from './mqtt-bench.js';
import { benchSqs } from './sqs-bench.js';
import { registerBenchTracing } from './bench-tracing.js';

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

/** RABBITMQ_URL when set, otherwise a node of our own on free ports. */
async function amqpForBench(): Promise<BenchBroker> {
  const url = rabbitMqUrlFromEnv();
  if (url) return { address: [url], stop: async () => {} };
  const server = await startRabbitMqServer();
  return { address: [server.url], stop: () => server.stop() };
}

/** MQTT_URL when set, otherwise a Mosquitto of our own on a free port. */
async function mqttForBench(): Promise<BenchBroker> {
  const url = mqttUrlFromEnv();
  if (url) return { address: [url], stop: async () => {} };
  const server = await startMosquittoServer();
  return { address: [server.url], stop: () => server.stop() };
}

/** SQS_ENDPOINT when set, otherwise an ElasticMQ of our own on a free port (persistent, as in the tests). */
async function sqsForBench(): Promise<BenchBroker> {
  const endpoint = sqsEndpointFromEnv();
  if (endpoint) return { address: [endpoint], stop: async () => {} };
  const server = await startElasticMqServer({ persistent: process.env['BENCH_SQS_IN_MEMORY'] !== '1' });
  return { address: [server.endpoint], stop: () => server.stop() };
}

const USAGE = `usage: npm run bench [-- --transport memory|nats|kafka|amqp|mqtt|sqs] [--seconds 3] [--warmup 1] [--runs 1] [--concurrency 1,64,256] [--flow implicit|ctx] [--tracing] [--leak]
  --flow ctx   agent-rpc nodes with implicitFlow: false
  --tracing    the OpenTelemetry SDK registered, every call traced
  --runs N     N interleaved runs per configuration, the median reported
  --concurrency 1,64   only these numbers of calls in flight (default 1,64,256; memory 1,64)
  --only agent-rpc     amqp, mqtt: only these systems (comma-separated), e.g. to profile one; no ratios
  --leak       heap growth over 1,000,000 memory calls`;

/**
 * Each configuration is measured next to the raw transport in the same run (interleaved
 * when --runs > 1, median reported) and printed with the ratio agent-rpc / raw.
 */
const values = parseBenchArgs();

function parseBenchArgs() {
  try {
    const { values } = parseArgs({
      options: {
        transport: { type: 'string', default: 'memory' },
        seconds: { type: 'string', default: '3' },
        warmup: { type: 'string', default: '1' },
        runs: { type: 'string', default: '1' },
        concurrency: { type: 'string' },
        only: { type: 'string' },
        leak: { type: 'boolean', default: false },
        flow: { type: 'string', default: 'implicit' },
        tracing: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return values;
  } catch (error) {
    // An unknown option or a missing value: say which, and how it is called.
    console.error(`bench: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const transport = values.transport;
if (transport !== 'memory' && transport !== 'nats' && transport !== 'kafka' && transport !== 'amqp' && transport !== 'mqtt' && transport !== 'sqs') {
  console.error(`bench: --transport must be memory, nats, kafka, amqp, mqtt or sqs, got ${transport}`);
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

if (values.tracing) await registerBenchTracing();
console.log(`agent-rpc bench: transport=${transport}, flow=${flow}${values.tracing ? ', tracing' : ''}, ${runs} run(s) of ${warmupMs / 1000}s warm-up + ${measureMs / 1000}s, node ${process.version}\n`);

/** One configuration per entry; the first is the raw baseline the others are compared with. */
type System = (concurrency: number) => Promise<BenchRun>;
const brokers = { nats: natsForBench, kafka: kafkaForBench, amqp: amqpForBench, mqtt: mqttForBench, sqs: sqsForBench } as const;
const broker = transport === 'memory' ? undefined : await brokers[transport]();
const url = (): string => broker!.address[0]!;
const only = values.only?.split(',');
const chosen = (name: string): boolean => only === undefined || only.includes(name);
const systemsOf: Record<typeof transport, () => System[]> = {
  memory: () => [(c) => benchRawMemory(c, warmupMs, measureMs), (c) => benchAgentRpcMemory(c, warmupMs, measureMs, 'internal', flow), (c) => benchAgentRpcMemory(c, warmupMs, measureMs, 'internal', flow, true), (c) => benchAgentRpcMemory(c, warmupMs, measureMs, 'hmac', flow)],
  nats: () => (['raw', 'moleculer', 'agent-rpc', 'agent-rpc-hmac'] as const).map((name) => (c: number) => benchNats(name, url(), c, warmupMs, measureMs, flow)),
  kafka: () => (['raw', 'agent-rpc'] as const).map((name) => (c: number) => benchKafka(name, broker!.address, c, warmupMs, measureMs)),
  amqp: () => AMQP_SYSTEMS.filter(chosen).map((name) => (c: number) => benchAmqp(name, url(), c, warmupMs, measureMs)),
  mqtt: () => MQTT_SYSTEMS.filter(chosen).map((name) => (c: number) => benchMqtt(name, url(), c, warmupMs, measureMs)),
  sqs: () => (['raw', 'agent-rpc'] as const).map((name) => (c: number) => benchSqs(name, url(), c, warmupMs, measureMs)),
};
const systems = systemsOf[transport]();
/**
 * AMQP and MQTT have a second raw row with the guarantees an agent-rpc inbox gives (durable,
 * persistent, confirmed; persistent MQTT sessions, PUBACK after the reply): ratios to it too.
 */
const sameGuarantees = only === undefined && (transport === 'amqp' || transport === 'mqtt') ? 1 : undefined;
const concurrencies = values.concurrency === undefined ? (transport === 'memory' ? [1, 64] : [1, 64, 256]) : values.concurrency.split(',').map(Number);
if (concurrencies.some((c) => !Number.isInteger(c) || c <= 0)) {
  console.error('bench: --concurrency must be positive integers, comma-separated');
  process.exit(2);
}

const rows: Array<Array<string | number>> = [];
for (const concurrency of concurrencies) {
  // Interleaved: run i of every system before run i+1 of any, so drift hits all alike.
  const results: BenchRun[][] = systems.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, system] of systems.entries()) results[index]!.push(await system(concurrency));
  }
  const medians = results.map(median);
  const ratio = (run: BenchRun, base: BenchRun | undefined): string => (base === undefined ? '' : `${(run.figures.callsPerSec / base.figures.callsPerSec).toFixed(2)}x`);
  for (const run of medians) {
    const f = run.figures;
    const row = [run.system, concurrency, f.callsPerSec, f.p50Ms, f.p99Ms, f.cpuUsPerCall, f.errors, ratio(run, only === undefined ? medians[0] : undefined)];
    rows.push(sameGuarantees === undefined ? row : [...row, ratio(run, medians[sameGuarantees])]);
  }
}
await broker?.stop();
console.log(formatTable(['system', 'C', 'calls/s', 'p50 ms', 'p99 ms', 'CPU µs/call', 'errors', 'vs raw', ...(sameGuarantees === undefined ? [] : ['vs raw, same guarantees'])], rows));
// Not with --only: a profile of the chosen systems would take in the envelope loops too.
if (only === undefined) {
  console.log('');
  console.log(formatTable(['envelope operation', 'ops/s'], benchEnvelope().map((r) => [r.name, r.opsPerSec])));
}

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
