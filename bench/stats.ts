/** Latency samples in nanoseconds → the figures a bench table prints. */
export interface LoadFigures {
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /**
   * CPU time of the whole process (every thread) per completed call while measuring: both
   * sides of the call when they share the process. Steadier than calls/s on a shared
   * machine, where other work takes the cores but not this process's CPU time.
   */
  cpuUsPerCall: number;
}

export function summarize(samplesNs: bigint[], elapsedNs: bigint, errors: number, cpuUs = Number.NaN): LoadFigures {
  const sorted = samplesNs.map(Number).sort((a, b) => a - b);
  const at = (q: number): number => (sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) / 1e6);
  return { callsPerSec: (sorted.length / Number(elapsedNs)) * 1e9, p50Ms: at(0.5), p99Ms: at(0.99), errors, cpuUsPerCall: cpuUs / (sorted.length + errors) };
}

/**
 * Keeps `concurrency` calls in flight for `warmupMs` (discarded), then for `measureMs`,
 * recording each call's latency with process.hrtime.bigint().
 */
export async function closedLoop(
  call: () => Promise<boolean>,
  concurrency: number,
  warmupMs: number,
  measureMs: number,
): Promise<LoadFigures> {
  const samples: bigint[] = [];
  let errors = 0;
  let recording = false;
  let stopAt = process.hrtime.bigint() + BigInt(warmupMs) * 1_000_000n;
  const worker = async (): Promise<void> => {
    for (;;) {
      const start = process.hrtime.bigint();
      if (start >= stopAt) return;
      const ok = await call();
      if (!recording) continue;
      if (ok) samples.push(process.hrtime.bigint() - start);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  recording = true;
  const begin = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  stopAt = begin + BigInt(measureMs) * 1_000_000n;
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return summarize(samples, process.hrtime.bigint() - begin, errors, used.user + used.system);
}

export function formatTable(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((row) => row.map((c) => (typeof c === 'number' ? formatNumber(c) : c)));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (Number.isInteger(n) || Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(3);
}
