/**
 * Bytes allocated per operation, measured with V8's sampling heap profiler through
 * node:inspector. The profiler is told to keep the samples of objects that the young and
 * the old generation's collectors freed (`includeObjectsCollectedByMinorGC/MajorGC`), so
 * short-lived garbage — nearly everything a call allocates — is counted, not only what
 * survives. V8 scales each sample by its sampling probability, so the sum of a profile's
 * sizes estimates every byte allocated on the JS heap while it ran; a small sampling
 * interval over many operations keeps that estimate tight.
 *
 * Not counted: memory outside the JS heap, such as the contents of Buffers and
 * ArrayBuffers (their JS objects are counted, their backing stores are not).
 *
 * Shared by the bench programs (bench/allocations.ts, and any other that wants a bytes
 * column): `measureAllocations(run)` runs `run(i)` for i = 0..ops-1 after a warm-up.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface AllocationOptions {
  /** Measured operations. Default 20,000. */
  readonly ops?: number;
  /** Unmeasured operations first, so that the optimizing compiler has settled. Default 5,000. */
  readonly warmup?: number;
  /** Mean bytes between samples. Smaller is more exact and slower. Default 256. */
  readonly samplingInterval?: number;
  /** How many of the largest allocation sites to keep. Default 15. */
  readonly sites?: number;
}

export interface AllocationSite {
  /** The allocating function, `(anonymous)` when it has no name. */
  readonly functionName: string;
  /** Where that function starts: `src/…ts:line` through the source map, else the script's URL, else `(native)`. */
  readonly location: string;
  /** The function that called it, as `name (location)`, for context. */
  readonly caller: string;
  readonly bytesPerOp: number;
  /** Share of all bytes measured, 0..1. */
  readonly share: number;
}

export interface AllocationFigures {
  readonly ops: number;
  readonly bytesPerOp: number;
  /** The largest sites by bytes allocated in the function itself (not in what it calls). */
  readonly sites: readonly AllocationSite[];
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

// One session per process: V8 runs one sampling heap profile at a time.
let session: Session | undefined;

async function profiler(): Promise<Session> {
  if (session === undefined) {
    session = new Session();
    session.connect();
    await session.post('HeapProfiler.enable');
  }
  return session;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

let sink: unknown;
const DEFAULT_OPS = 20_000;
const DEFAULT_WARMUP = 5_000;

/** How many times `measureAllocations` calls `run` with these options. */
export function opsCalled(options: AllocationOptions = {}): number {
  return 1 + (options.warmup ?? DEFAULT_WARMUP) + (options.ops ?? DEFAULT_OPS);
}

/**
 * Calls `run` once to see whether it is asynchronous, `warmup` times to warm up, then `ops`
 * times under the profiler: `opsCalled(options)` calls in all, `i` counting them from 0
 * (so an operation that must not see the same input twice can index prepared inputs). A
 * `run` that returns a promise is awaited, one operation at a time; one that returns
 * anything else is called in a plain loop, so the measurement adds no promise of its own.
 */
export async function measureAllocations(run: (i: number) => unknown, options: AllocationOptions = {}): Promise<AllocationFigures> {
  const ops = options.ops ?? DEFAULT_OPS;
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const asynchronous = isThenable(run(0));
  await repeat(run, 1, warmup, asynchronous);
  const inspector = await profiler();
  await inspector.post('HeapProfiler.collectGarbage');
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: options.samplingInterval ?? 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  let measured: unknown;
  try {
    await repeat(run, 1 + warmup, ops, asynchronous);
  } catch (error) {
    measured = error;
  }
  const { profile } = await inspector.post('HeapProfiler.stopSampling');
  if (measured !== undefined) throw measured;
  return summarize(profile.head as ProfileNode, ops, options.sites ?? 15);
}

async function repeat(run: (i: number) => unknown, from: number, count: number, asynchronous: boolean): Promise<void> {
  const to = from + count;
  if (asynchronous) for (let i = from; i < to; i++) sink = await run(i);
  else for (let i = from; i < to; i++) sink = run(i);
  void sink;
}

function summarize(head: ProfileNode, ops: number, keep: number): AllocationFigures {
  const bySite = new Map<string, { frame: CallFrame; caller: CallFrame | undefined; bytes: number }>();
  let total = 0;
  const walk: Array<[ProfileNode, CallFrame | undefined]> = [[head, undefined]];
  while (walk.length > 0) {
    const [node, parent] = walk.pop()!;
    for (const child of node.children) walk.push([child, node.callFrame]);
    if (node.selfSize === 0) continue;
    total += node.selfSize;
    const frame = node.callFrame;
    const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`;
    const site = bySite.get(key);
    if (site === undefined) bySite.set(key, { frame, caller: parent, bytes: node.selfSize });
    else site.bytes += node.selfSize;
  }
  const sites = [...bySite.values()]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, keep)
    .map(({ frame, caller, bytes }) => ({
      functionName: frame.functionName || '(anonymous)',
      location: locate(frame),
      caller: caller === undefined ? '' : `${caller.functionName || '(anonymous)'} (${locate(caller)})`,
      bytesPerOp: bytes / ops,
      share: total === 0 ? 0 : bytes / total,
    }));
  return { ops, bytesPerOp: total / ops, sites };
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** `src/envelope/decode.ts:72` for compiled project code, else the URL and line as V8 gave them. */
function locate(frame: CallFrame): string {
  if (frame.url === '') return '(native)';
  if (!frame.url.startsWith('file:')) return `${frame.url}:${frame.lineNumber + 1}`;
  const file = fileURLToPath(frame.url);
  let map = sourceMaps.get(file);
  if (!sourceMaps.has(file)) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = undefined; // a dependency without a map
    }
    sourceMaps.set(file, map);
  }
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : resolve(dirname(file), entry.originalSource);
    return `${relative(process.cwd(), source)}:${entry.originalLine + 1}`;
  }
  return `${relative(process.cwd(), file)}:${frame.lineNumber + 1}`;
}
