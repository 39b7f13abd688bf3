import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../bin/agent-rpc.ts', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command line that runs `agent-rpc <args>` from the sources, for a test that starts the process itself. */
export function cliCommandLine(args: readonly string[]): string[] {
  return [process.execPath, '--import', 'tsx', MAIN, ...args];
}

/**
 * Runs `agent-rpc <args>` as its own process, as an operator would. With `timeoutMs`, a
 * process still running then is killed and reported with code -1, so a hang fails the test.
 */
export function runCliProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: { readonly timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const [node, ...argv] = cliCommandLine(args);
    execFile(node!, argv, { env: { ...process.env, ...env }, ...(options.timeoutMs ? { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const } : {}) }, (error, stdout, stderr) => {
      const code = !error ? 0 : error.killed ? -1 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}
