import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProbeSecond } from './steady-load-probe.js';

const CLI = fileURLToPath(new URL('../bin/agent-rpc.js', import.meta.url));
const PROBE = pathToFileURL(fileURLToPath(new URL('./steady-load-probe.js', import.meta.url))).href;

/**
 * `agent-rpc serve` of the built CLI in a child process, as an operator runs it: its log
 * (stdout) read through a pipe into a file, the probe loaded beside it. `nodeArgs` go to
 * its Node (e.g. `--cpu-prof`, `--trace-gc`).
 */
export class SteadyDaemon {
  private readonly exited: Promise<number | null>;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly metricsUrl: string,
    private readonly probeFile: string,
    readonly logFile: string,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** `allocationProfile`: where the probe writes a heap profile of every allocation, when, for how long. */
  static async start(configDir: string, httpPort: number, nodeArgs: readonly string[], allocationProfile?: { file: string; startMs: number; durationMs: number }): Promise<SteadyDaemon> {
    const probeFile = join(configDir, 'probe.jsonl');
    const logFile = join(configDir, 'daemon.log');
    const nodeOptions = [process.env['NODE_OPTIONS'], `--import=${PROBE}`].filter(Boolean).join(' ');
    const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--config', configDir], {
      cwd: configDir,
      env: {
        ...process.env,
        AGENT_HTTP_PORT: String(httpPort),
        NODE_OPTIONS: nodeOptions,
        STEADY_LOAD_PROBE_FILE: probeFile,
        ...(allocationProfile ? { STEADY_LOAD_ALLOC_PROFILE: `${allocationProfile.file},${allocationProfile.startMs},${allocationProfile.durationMs}` } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(createWriteStream(logFile));
    const daemon = new SteadyDaemon(child, `http://127.0.0.1:${httpPort}/metrics`, probeFile, logFile);
    await daemon.ready(httpPort);
    return daemon;
  }

  private async ready(httpPort: number): Promise<void> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`agent-rpc serve exited: ${this.stderr}`);
      const status = await fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status, () => undefined);
      if (status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    this.child.kill('SIGKILL');
    throw new Error(`agent-rpc serve was not ready within 60 s: ${this.stderr}`);
  }

  /** SIGTERM, as an operator stops it; resolves with its exit code. */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }

  /** What the probe wrote, a line per second. */
  probe(): ProbeSecond[] {
    if (!existsSync(this.probeFile)) return [];
    return readFileSync(this.probeFile, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as ProbeSecond);
  }

  /** Lines the daemon logged (pino JSON on stdout). */
  logLines(): number {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').split('\n').filter((line) => line.length > 0).length : 0;
  }
}
