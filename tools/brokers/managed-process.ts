import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readSync, fstatSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process whose output goes to a log file and which never outlives this process. */
export interface ManagedProcess {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  readonly hasExited: boolean;
  /** Sends `signal`, waits for the exit; escalates to SIGKILL after `graceMs`. */
  terminate(signal: NodeJS.Signals, graceMs: number): Promise<ProcessExit>;
}

export interface SpawnManagedOptions {
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const liveChildren = new Set<ChildProcess>();
const exitCleanupDirs = new Set<string>();
let exitHookInstalled = false;

// A synchronous 'exit' hook is the last chance to reap children when a test file ends
// without stopping its servers; it cannot await, so it uses SIGKILL and rmSync.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
    for (const dir of exitCleanupDirs) rmSync(dir, { recursive: true, force: true });
  });
}

/** Deletes `dir` when this process exits (servers keep their data across stop/restart). */
export function removeOnExit(dir: string): void {
  installExitHook();
  exitCleanupDirs.add(dir);
}

/** True while a process with this pid exists (EPERM: it exists but is someone else's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Absolute path of an executable found on PATH or in `fallbacks`, or undefined. */
export function findExecutable(name: string, fallbacks: readonly string[] = []): string | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  const candidates = [...dirs.map((d) => join(d, name)), ...fallbacks];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next one
    }
  }
  return undefined;
}

// The exit hook does not run when this process is killed by a signal (a test runner
// tearing down its workers does that). Linux's parent-death signal covers that case:
// setpriv sets it and then execs the server, so the pid stays the server's own.
const setpriv = process.platform === 'linux' ? findExecutable('setpriv', ['/usr/bin/setpriv']) : undefined;

export function spawnManaged(
  command: string,
  args: readonly string[],
  options: SpawnManagedOptions,
): Promise<ManagedProcess> {
  installExitHook();
  const [file, argv] =
    setpriv === undefined ? [command, [...args]] : [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]];
  const logFd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, argv, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', logFd, logFd],
    });
  } finally {
    closeSync(logFd);
  }
  liveChildren.add(child);
  let hasExited = false;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      liveChildren.delete(child);
      resolve({ code, signal });
    });
  });

  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      liveChildren.delete(child);
      reject(new Error(`cannot start ${command}: ${error.message}`, { cause: error }));
    });
    child.once('spawn', () => {
      const pid = child.pid;
      if (pid === undefined) {
        reject(new Error(`cannot start ${command}: no pid`));
        return;
      }
      resolve({
        pid,
        exited,
        get hasExited() {
          return hasExited;
        },
        async terminate(signal, graceMs) {
          if (hasExited) return exited;
          child.kill(signal);
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          try {
            return await exited;
          } finally {
            clearTimeout(timer);
          }
        },
      });
    });
  });
}

/** The last `maxLines` lines of a log file (reads at most the last 64 KiB). */
export function tailFile(path: string, maxLines = 60): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return `(no log at ${path})`;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-maxLines).join('\n');
  } finally {
    closeSync(fd);
  }
}

/** Error message with the tail of a server log appended, so failures explain themselves. */
export function withLogTail(message: string, logFile: string): string {
  return `${message}\n--- last lines of ${logFile} ---\n${tailFile(logFile)}\n--- end of log ---`;
}
