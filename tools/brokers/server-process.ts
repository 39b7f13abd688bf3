import { withLogTail, type ManagedProcess } from './managed-process.js';
import { waitReady, type WaitReadyOptions } from './wait-ready.js';

/**
 * Spawns a server and waits until it answers. One that never does is killed, and the
 * error carries the tail of its log, where the reason usually is.
 */
export async function spawnReady(spawn: () => Promise<ManagedProcess>, ready: Omit<WaitReadyOptions, 'process'>, logFile: string): Promise<ManagedProcess> {
  const child = await spawn();
  try {
    await waitReady({ ...ready, process: child });
  } catch (error) {
    await child.terminate('SIGKILL', 0);
    throw new Error(withLogTail((error as Error).message, logFile), { cause: error });
  }
  return child;
}

export interface PortRetry {
  /** The ports were given by the caller: they are not ours to change. */
  readonly fixed: boolean;
  /** How the server reports a port someone else holds. */
  readonly portTaken: RegExp;
  /** Picks other free ports for the next attempt. */
  readonly choosePorts: () => Promise<void>;
}

/**
 * Runs `launch` once it succeeds, up to three times: a free port chosen here can be taken by
 * someone else before the server binds it, and that should not fail a test.
 */
export async function launchOnFreePorts(launch: () => Promise<void>, retry: PortRetry): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      return;
    } catch (error) {
      if (!retry.portTaken.test((error as Error).message) || retry.fixed || attempt >= 3) throw error;
      await retry.choosePorts();
    }
  }
}

/** A server's current process, which tests stop, crash (SIGKILL) and start again with the same ports and data. */
export class ServerProcess {
  private current: ManagedProcess | undefined;

  /** `start` spawns the server and resolves once it is ready (see spawnReady). */
  constructor(
    private readonly name: string,
    private readonly start: () => Promise<ManagedProcess>,
    private readonly stopGraceMs: number,
  ) {}

  async launch(): Promise<void> {
    this.current = await this.start();
  }

  /** Changes on restart. */
  get pid(): number {
    return this.running().pid;
  }

  /** SIGTERM, SIGKILL after the grace period, and wait for the exit. */
  async stop(): Promise<void> {
    await this.running().terminate('SIGTERM', this.stopGraceMs);
  }

  /** A crash, for fault tests. */
  async kill(): Promise<void> {
    await this.running().terminate('SIGKILL', 0);
  }

  /** Starts again after stop or kill, or while running. */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  private running(): ManagedProcess {
    if (this.current === undefined) throw new Error(`${this.name} was never started`);
    return this.current;
  }
}
