import type { DaemonPlugins } from '../runtime/index.js';

/**
 * The `agent-rpc` command's building blocks: each command is one file exporting a
 * `CliCommand`; run-cli.ts routes `argv` to it. Exit codes are the same everywhere.
 */
export const EXIT = {
  ok: 0,
  /** The command ran and found a problem (e.g. `audit verify` found tampering). */
  problem: 1,
  /** Wrong arguments. */
  usage: 2,
  /** The command could not run (missing file, unreachable broker...). */
  failed: 3,
} as const;

export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

/** What a command runs with: the process's io and the plug-ins this build of agent-rpc knows. */
export interface CommandIo extends CliIo {
  readonly plugins: DaemonPlugins;
}

export interface CliCommand {
  /** Words after `agent-rpc`, e.g. `['audit', 'list']`. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly usage: string;
  run(args: readonly string[], io: CommandIo): Promise<number>;
}

/** A mistake in the arguments: printed as one line with a pointer to --help, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
