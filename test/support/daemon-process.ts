import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from './fleet.js';

const MAIN = fileURLToPath(new URL('../../bin/agent-rpc.ts', import.meta.url));

/** `agent-rpc serve` in its own process, as an operator starts it. */
export class DaemonProcess {
  readonly exited: Promise<number | null>;
  stderr = '';
  /** The daemon's log (pino JSON lines go to stdout). */
  stdout = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly httpPort: number,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(configDirs: string | readonly string[], env: NodeJS.ProcessEnv, httpPort: number): Promise<DaemonProcess> {
    const configArgs = (typeof configDirs === 'string' ? [configDirs] : configDirs).flatMap((dir) => ['--config', dir]);
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', ...configArgs], {
      env: { ...process.env, ...env, AGENT_HTTP_PORT: String(httpPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const daemon = new DaemonProcess(child, httpPort);
    let exitedEarly = false;
    void daemon.exited.then(() => (exitedEarly = true));
    await until(async () => {
      if (exitedEarly) throw new Error(`agent-rpc serve exited: ${daemon.stderr}`);
      return (await daemon.readyz()) === 200;
    }, 60_000);
    return daemon;
  }

  async readyz(): Promise<number | undefined> {
    return fetch(`http://127.0.0.1:${this.httpPort}/readyz`).then((r) => r.status, () => undefined);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
