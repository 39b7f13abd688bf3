/**
 * Loaded into the daemon under test with `--import` (NODE_OPTIONS) by `npm run bench:steady`:
 * once a second it appends one JSON line (ProbeSecond) to $STEADY_LOAD_PROBE_FILE with the
 * event loop's delay, the garbage collector's pauses by kind and the heap in use, so a stall
 * can be told apart from the caller's and put down to the collector or to code. With
 * $STEADY_LOAD_ALLOC_PROFILE (`<file>,<start ms>,<duration ms>`) it also writes a sampling
 * heap profile that keeps the samples of collected objects: every byte allocated in that
 * span, by allocating function (open it in Chrome DevTools' Memory tab). Not part of the
 * product: the daemon runs unchanged.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface ProbeSecond {
  /** Epoch ms at the end of the second. */
  readonly at: number;
  readonly delayMaxMs: number;
  readonly delayP99Ms: number;
  /** Pause time (ms) of each kind of collection in this second: scavenge, mark-compact, incremental marking, weak callbacks. */
  readonly gcMs: Record<GcKind, number>;
  readonly gcMaxMs: number;
  readonly heapUsedMb: number;
  /** CPU time the process used in this second (user + system, every thread), ms. */
  readonly cpuMs: number;
}

type GcKind = 'minor' | 'major' | 'incremental' | 'weak';

const KINDS: ReadonlyArray<[number, GcKind]> = [
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak'],
];

const file = process.env['STEADY_LOAD_PROBE_FILE'];
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let gcMs: Record<GcKind, number> = { minor: 0, major: 0, incremental: 0, weak: 0 };
  let gcMaxMs = 0;
  let cpu = process.cpuUsage();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      const name = KINDS.find(([k]) => k === kind)?.[1] ?? 'weak';
      gcMs[name] += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(() => {
    const second: ProbeSecond = {
      at: Date.now(),
      delayMaxMs: delay.max / 1e6,
      delayP99Ms: delay.percentile(99) / 1e6,
      gcMs,
      gcMaxMs,
      heapUsedMb: getHeapStatistics().used_heap_size / 1024 / 1024,
      cpuMs: ((used) => (used.user + used.system) / 1000)(process.cpuUsage(cpu)),
    };
    cpu = process.cpuUsage();
    delay.reset();
    gcMs = { minor: 0, major: 0, incremental: 0, weak: 0 };
    gcMaxMs = 0;
    appendFileSync(file, `${JSON.stringify(second)}\n`);
  }, 1000).unref();
}

const allocation = process.env['STEADY_LOAD_ALLOC_PROFILE'];
if (allocation) {
  const [out, startMs, durationMs] = allocation.split(',');
  setTimeout(() => {
    void (async () => {
      const session = new Session();
      session.connect();
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      await new Promise((resolve) => setTimeout(resolve, Number(durationMs)));
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(out!, JSON.stringify(profile));
      session.disconnect();
    })();
  }, Number(startMs)).unref();
}
