import { spawn } from 'node:child_process';
import { groupEnded } from './process-group.js';
import { OutputWindow } from './output-window.js';

export interface RunBashOptions {
  readonly cwd: string;
  /** The whole environment of the command (nothing is inherited). */
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Longer output keeps its head and tail around a marker. */
  readonly maxOutputChars: number;
}

export interface BashRun {
  /** Null when the command was killed by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

/** Between SIGTERM and SIGKILL to the command's process group. */
const KILL_GRACE_MS = 2_000;
/** After SIGKILL, how long to wait for the pipes to close (a process that left the group may hold them). */
const CLOSE_GRACE_MS = 1_000;

/**
 * Runs `command` with `bash -c` in a process group of its own. On timeout or abort the
 * whole group gets SIGTERM, then SIGKILL after a grace; when bash exits, whatever it left
 * running in its group (background jobs) is ended the same way. Resolves once bash has
 * exited and its output is read, so nothing it started is left behind (except processes
 * that made a session of their own, e.g. with setsid).
 */
export async function runBash(command: string, options: RunBashOptions): Promise<BashRun> {
  if (typeof command !== 'string' || command === '') throw new TypeError('command must be a non-empty string');
  if (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1) throw new RangeError('timeoutMs must be a positive integer');
  if (!Number.isInteger(options.maxOutputChars) || options.maxOutputChars < 1) throw new RangeError('maxOutputChars must be a positive integer');
  if (options.signal?.aborted) return { exitCode: null, signal: null, output: '', timedOut: false, aborted: true };

  const child = spawn('bash', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new OutputWindow(options.maxOutputChars);
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => output.push(chunk));
  }

  let timedOut = false;
  let aborted = false;
  const timers: NodeJS.Timeout[] = [];
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  let ending = false;
  /** SIGTERM to the group, SIGKILL after a grace, and stop waiting for pipes held by escaped processes. */
  const endGroup = (): void => {
    if (ending) return;
    ending = true;
    signalGroup('SIGTERM');
    timers.push(
      setTimeout(() => {
        signalGroup('SIGKILL');
        timers.push(
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, CLOSE_GRACE_MS),
        );
      }, KILL_GRACE_MS),
    );
  };
  const onAbort = (): void => {
    aborted = true;
    endGroup();
  };
  timers.push(
    setTimeout(() => {
      timedOut = true;
      endGroup();
    }, options.timeoutMs),
  );
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // bash itself has exited: end what it left running in its group.
  child.once('exit', () => endGroup());

  try {
    const run = await new Promise<BashRun>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, signal) => resolve({ exitCode, signal, output: output.text(), timedOut, aborted }));
    });
    // Only a line that left processes behind waits here: a lone bash's group is gone with it.
    if (child.pid !== undefined) await groupEnded(child.pid, KILL_GRACE_MS + CLOSE_GRACE_MS);
    return run;
  } finally {
    for (const timer of timers) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
