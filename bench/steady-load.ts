/**
 * `npm run bench:steady`: p99 under a steady load, not peak throughput. A real `agent-rpc
 * serve` daemon (HMAC required, default stores) answers an open loop of signed sync calls
 * at a fixed rate over NATS from a caller process of its own, while /metrics is scraped
 * and timed; a probe inside the daemon records its event loop delay and GC pauses per
 * second. Prints the latency distribution, p99 / p50, the scrape times and the daemon's
 * stalls. See docs/performance.md, "Under steady load".
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, natsUrlFromEnv, startNatsServer } from '../tools/brokers/index.js';
import { STEADY_AGENT_ID, STEADY_KEY_ID, writeSteadyConfig, type SteadyDedupe } from './steady-load-config.js';
import { SteadyDaemon } from './steady-load-daemon.js';
import type { DriverReport, DriverSpec } from './steady-load-driver.js';
import { steadyLoadReport, type Scrape } from './steady-load-report.js';
import { allocationTable } from './steady-load-allocations.js';

const USAGE = `usage: npm run bench:steady [-- --rate 1500] [--seconds 60] [--warmup 10] [--scrape-every 5] [--dedupe memory|sqlite] [--nested] [--daemon-node-args="--cpu-prof"] [--alloc-profile] [--keep]
  --rate N              signed sync calls per second, sent on schedule whether or not earlier ones were answered
  --seconds N           measured seconds, after --warmup seconds at the same rate
  --scrape-every N      GET /metrics every N seconds, timed
  --nested              each call made by a handler of the caller, as agents call each other (it carries its flow)
  --dedupe sqlite       the daemon's dedupe store in SQLite (event-sources.yaml idempotency.store); default memory, as a plain serve
  --daemon-node-args=  flags for the daemon's Node (--cpu-prof, --trace-gc, --max-semi-space-size=...)
  --alloc-profile       a heap profile of everything the daemon allocates in 10 s of the measured load (allocations.heapprofile, kept)
  --keep                keep the config directory (daemon log, probe lines, profiles)`;

const DRIVER = fileURLToPath(new URL('./steady-load-driver.js', import.meta.url));

function options() {
  try {
    const { values } = parseArgs({
      options: {
        rate: { type: 'string', default: '1500' },
        seconds: { type: 'string', default: '60' },
        warmup: { type: 'string', default: '10' },
        'scrape-every': { type: 'string', default: '5' },
        dedupe: { type: 'string', default: 'memory' },
        'daemon-node-args': { type: 'string', default: '' },
        keep: { type: 'boolean', default: false },
        nested: { type: 'boolean', default: false },
        'alloc-profile': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const numbers = { rate: Number(values.rate), seconds: Number(values.seconds), warmup: Number(values.warmup), scrapeEvery: Number(values['scrape-every']) };
    for (const [name, value] of Object.entries(numbers)) if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    if (values.dedupe !== 'memory' && values.dedupe !== 'sqlite') throw new Error(`--dedupe must be memory or sqlite, got ${values.dedupe}`);
    const daemonNodeArgs = values['daemon-node-args'].split(' ').filter((arg) => arg.length > 0);
    return { ...numbers, dedupe: values.dedupe as SteadyDedupe, daemonNodeArgs, nested: values.nested, allocProfile: values['alloc-profile'], keep: values.keep || values['alloc-profile'] };
  } catch (error) {
    console.error(`bench:steady: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

/** The caller process: resolves with its report once every call settled. */
function runDriver(spec: DriverSpec): Promise<DriverReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as DriverReport) : reject(new Error(`the caller process exited ${code}`))));
  });
}

/** GETs /metrics every `everyMs` until stopped, timing each answer to its last byte. */
function scrapeEvery(url: string, everyMs: number): { stop(): Promise<Scrape[]> } {
  const scrapes: Scrape[] = [];
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    const at = Date.now();
    inFlight = (async () => {
      const started = process.hrtime.bigint();
      const response = await fetch(url);
      const body = await response.arrayBuffer();
      scrapes.push({ at, ms: Number(process.hrtime.bigint() - started) / 1e6, bytes: body.byteLength, status: response.status });
    })().catch(() => {
      scrapes.push({ at, ms: Number.NaN, bytes: 0, status: 0 });
    });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      return scrapes;
    },
  };
}

const o = options();
const ownNats = natsUrlFromEnv() ? undefined : await startNatsServer();
const natsUrl = natsUrlFromEnv() ?? ownNats!.url;
const config = writeSteadyConfig(natsUrl, o.dedupe);
console.log(
  `agent-rpc bench:steady: ${o.rate} signed sync calls/s over NATS for ${o.seconds} s after ${o.warmup} s warm-up, /metrics every ${o.scrapeEvery} s, ${o.nested ? 'nested calls' : 'calls from outside a flow'}, dedupe ${o.dedupe}, node ${process.version}${o.daemonNodeArgs.length > 0 ? `, daemon node ${o.daemonNodeArgs.join(' ')}` : ''}\n`,
);
const allocationProfile = o.allocProfile ? { file: join(config.dir, 'allocations.heapprofile'), startMs: (o.warmup + 2) * 1000, durationMs: Math.min(10, o.seconds - 2) * 1000 } : undefined;
const daemon = await SteadyDaemon.start(config.dir, await freePort(), o.daemonNodeArgs, allocationProfile);
try {
  const scraper = scrapeEvery(daemon.metricsUrl, o.scrapeEvery * 1000);
  const driver = await runDriver({
    natsUrl,
    agentId: STEADY_AGENT_ID,
    keyId: STEADY_KEY_ID,
    keyHex: config.keys.get(STEADY_KEY_ID)!.toString('hex'),
    rate: o.rate,
    warmupSeconds: o.warmup,
    seconds: o.seconds,
    nested: o.nested,
  });
  const scrapes = await scraper.stop();
  // The probe's last line and the log's last bytes are written before the daemon exits.
  const exitCode = await daemon.stop();
  console.log(steadyLoadReport(driver, scrapes, daemon.probe(), daemon.logLines()));
  if (allocationProfile) console.log(`\n${allocationTable(allocationProfile.file, (o.rate * allocationProfile.durationMs) / 1000)}`);
  if (exitCode !== 0) console.log(`the daemon exited ${exitCode}`);
  if (o.keep) console.log(`config directory kept: ${config.dir}`);
} finally {
  await daemon.stop();
  await ownNats?.stop();
  if (!o.keep) rmSync(config.dir, { recursive: true, force: true });
}
