import type { DriverReport } from './steady-load-driver.js';
import type { ProbeSecond } from './steady-load-probe.js';
import { formatTable } from './stats.js';

export interface Scrape {
  /** Epoch ms the request was sent. */
  readonly at: number;
  readonly ms: number;
  readonly bytes: number;
  readonly status: number;
}

const sortedCopy = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);
const quantile = (sorted: readonly number[], q: number): number => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
const fixed = (n: number, digits = 3): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The tables `npm run bench:steady` prints: the caller's latencies, the scrapes, the daemon's event loop and collector. */
export function steadyLoadReport(driver: DriverReport, scrapes: readonly Scrape[], probe: readonly ProbeSecond[], logLines: number): string {
  const l = driver.latencyMs;
  const out: string[] = [];
  const errors = Object.entries(driver.errors).map(([code, n]) => `${code}: ${n}`).join(', ') || 'none';
  out.push(
    formatTable(
      ['calls', 'answered', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'p99 / p50'],
      [[driver.sent, driver.answered, fixed(l.p50), fixed(l.p90), fixed(l.p99), fixed(l.p999), fixed(l.max, 1), `${fixed(l.p99 / l.p50, 1)}x`]],
    ),
  );
  out.push(`errors: ${errors}; caller sent late by p99 ${fixed(driver.sendLateMs.p99)} ms, max ${fixed(driver.sendLateMs.max, 1)} ms; caller's own loop delay max ${fixed(driver.driverLoopDelayMaxMs, 1)} ms`);
  const slowSeconds = driver.slowestPerSecondMs.filter((ms) => ms >= 20).length;
  const slowest = driver.slowestPerSecondMs
    .map((ms, second) => ({ second, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 8);
  out.push(`seconds with a call of 20 ms or more: ${slowSeconds} of ${driver.slowestPerSecondMs.length}; slowest (second of the run: ms): ${slowest.map((s) => `${s.second}: ${fixed(s.ms, 1)}`).join(', ')}`);

  // Scrapes of the warm-up are left out: the first one meets code not yet compiled.
  const scraped = scrapes.filter((s) => s.at >= driver.measuredFromEpochMs && s.at <= driver.measuredToEpochMs);
  const scrapeMs = sortedCopy(scraped.filter((s) => s.status === 200).map((s) => s.ms));
  const failed = scraped.filter((s) => s.status !== 200).length;
  out.push('');
  out.push(
    formatTable(
      ['/metrics scrapes', 'p50 ms', 'max ms', 'bytes', 'not 200'],
      [[scraped.length, fixed(quantile(scrapeMs, 0.5), 2), fixed(scrapeMs.at(-1) ?? Number.NaN, 2), scraped.at(-1)?.bytes ?? 0, failed]],
    ),
  );

  const measured = probe.filter((s) => s.at > driver.measuredFromEpochMs + 1000 && s.at <= driver.measuredToEpochMs + 1000);
  if (measured.length > 0) {
    const delays = sortedCopy(measured.map((s) => s.delayMaxMs));
    const sum = (pick: (s: ProbeSecond) => number): number => measured.reduce((total, s) => total + pick(s), 0);
    const seconds = measured.length;
    // The rate the caller kept: its calls over the span it sent them in.
    const callsPerSecond = driver.sent / Math.max(1, (driver.measuredToEpochMs - driver.measuredFromEpochMs) / 1000);
    out.push('');
    out.push(
      formatTable(
        ['daemon, per second', 'seconds', 'CPU µs per call', 'loop delay max ms', 'median of per-second max', 'seconds > 10 ms', 'seconds > 20 ms', 'GC pause ms/s: minor', 'major', 'incremental', 'longest GC ms', 'heap MB first → last'],
        [
          [
            'measured',
            seconds,
            fixed((sum((s) => s.cpuMs) * 1000) / (seconds * callsPerSecond), 1),
            fixed(delays.at(-1)!, 1),
            fixed(quantile(delays, 0.5), 1),
            delays.filter((d) => d > 10).length,
            delays.filter((d) => d > 20).length,
            fixed(sum((s) => s.gcMs.minor) / seconds, 2),
            fixed(sum((s) => s.gcMs.major) / seconds, 2),
            fixed(sum((s) => s.gcMs.incremental) / seconds, 2),
            fixed(Math.max(...measured.map((s) => s.gcMaxMs)), 1),
            `${fixed(measured[0]!.heapUsedMb, 1)} → ${fixed(measured.at(-1)!.heapUsedMb, 1)}`,
          ],
        ],
      ),
    );
    const worst = [...measured].sort((a, b) => b.delayMaxMs - a.delayMaxMs).slice(0, 5);
    const start = driver.measuredFromEpochMs;
    out.push(
      `worst seconds (second of the run: loop delay max / GC ms in it, major+incremental): ${worst
        .map((s) => `${Math.round((s.at - start) / 1000)}: ${fixed(s.delayMaxMs, 1)} / ${fixed(s.gcMs.minor + s.gcMs.major + s.gcMs.incremental, 1)} (${fixed(s.gcMs.major + s.gcMs.incremental, 1)})`)
        .join(', ')}`,
    );
  }
  out.push(`daemon log lines: ${logLines}`);
  return out.join('\n');
}
