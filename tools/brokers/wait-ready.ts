import { setTimeout as delay } from 'node:timers/promises';
import type { ManagedProcess, ProcessExit } from './managed-process.js';

export interface WaitReadyOptions {
  /** What is being started, for error messages. */
  readonly name: string;
  readonly process: ManagedProcess;
  readonly timeoutMs: number;
  /** One readiness attempt: resolves when the server answered, rejects otherwise. */
  readonly probe: () => Promise<void>;
}

function describeExit(exit: ProcessExit): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}

/**
 * Repeats `probe` until it succeeds. A server cannot announce readiness by itself, so
 * it is asked; between attempts the wait is short and ends early if the process exits,
 * so a crash is reported at once instead of after the timeout.
 */
export async function waitReady(options: WaitReadyOptions): Promise<void> {
  const { name, process: child, timeoutMs, probe } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let pauseMs = 25;
  for (;;) {
    if (child.hasExited) {
      const exit = await child.exited;
      throw new Error(`${name} exited with ${describeExit(exit)} before it was ready`);
    }
    try {
      await probe();
      return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`${name} not ready after ${timeoutMs} ms (last attempt: ${reason})`);
    }
    const controller = new AbortController();
    await Promise.race([
      delay(pauseMs, undefined, { signal: controller.signal }).catch(() => undefined),
      child.exited,
    ]);
    controller.abort();
    pauseMs = Math.min(pauseMs * 2, 250);
  }
}
