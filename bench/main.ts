import { parseArgs } from 'node:util';
import { benchEnvelope } from './envelope-bench.js';
import { leakCheck } from './leak-check.js';
import { benchAgentRpcMemory, benchRawMemory, type BenchRun } from './memory-bench.js';
import { formatTable } from './stats.js';

/**
 * `npm run bench [-- --transport memory] [--seconds 3] [--runs 1] [--leak]`
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
  },
});

const transport = values.transport;
if (transport !== 'memory') {
  console.error(`bench: --transport ${transport} is not available yet (memory only)`);
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

console.log(`agent-rpc bench: transport=${transport}, ${runs} run(s) of ${warmupMs / 1000}s warm-up + ${measureMs / 1000}s, node ${process.version}\n`);
const rows: Array<Array<string | number>> = [];
for (const concurrency of [1, 64]) {
  const raw: BenchRun[] = [];
  const ours: BenchRun[] = [];
  for (let i = 0; i < runs; i++) {
    raw.push(await benchRawMemory(concurrency, warmupMs, measureMs));
    ours.push(await benchAgentRpcMemory(concurrency, warmupMs, measureMs));
  }
  const base = median(raw);
  for (const run of [base, median(ours)]) {
    const f = run.figures;
    rows.push([run.system, concurrency, f.callsPerSec, f.p50Ms, f.p99Ms, f.errors, `${(f.callsPerSec / base.figures.callsPerSec).toFixed(2)}x`]);
  }
}
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
