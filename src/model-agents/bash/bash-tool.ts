import { defineTool, type Tool, type ToolContext, type ToolResult } from '../tool.js';
import { decideCommandLine, type BashDecision, type BashPolicy } from './bash-policy.js';
import { runBash, type BashRun } from './run-bash.js';

export interface BashToolOptions {
  readonly policy: BashPolicy;
  /** True: a `hitl` denial asks a human first. False (autonomous): it runs without asking; `block` still blocks. */
  readonly safeMode: boolean;
  /** The commands' whole environment: pass it through scrubbedEnv first. */
  readonly env: Record<string, string>;
  /** Default 120 000; a call may ask for another with `timeout_sec`. */
  readonly timeoutMs?: number;
  /** Default 30 000. */
  readonly maxOutputChars?: number;
  /** Hears every decision (metrics, logs), before anything runs. */
  readonly onDecision?: (decision: BashDecision, line: string) => void;
}

interface BashArgs {
  readonly command: string;
  readonly timeout_sec?: number;
}

/** How a line came to run, or why it did not, as the audit log records it. */
type Outcome = 'allowed' | 'approved' | 'autonomous' | 'blocked' | 'declined';

const positiveInteger = (value: number | undefined, field: string): void => {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${field} must be a positive integer`);
};

/** The last line of a result: how the command ended. */
function ending(run: BashRun, timeoutMs: number): string {
  if (run.aborted) return '[cancelled]';
  if (run.timedOut) return `[killed: timeout after ${Math.round(timeoutMs / 1000)}s]`;
  if (run.exitCode === null) return `[killed by ${run.signal ?? 'a signal'}]`;
  return `[exit code ${run.exitCode}]`;
}

/**
 * The `bash` tool of model agents: each command line is decided by the bash policy
 * (docs/agents.md), then run with `bash -c` in the agent's working directory, with the
 * given (scrubbed) environment, a timeout, and the call's cancellation.
 */
export function bashTool(options: BashToolOptions): Tool {
  if (typeof options.safeMode !== 'boolean') throw new TypeError('safeMode must be a boolean');
  if (options.env === null || typeof options.env !== 'object') throw new TypeError('env must be an object of strings');
  positiveInteger(options.timeoutMs, 'timeoutMs');
  positiveInteger(options.maxOutputChars, 'maxOutputChars');
  const defaultTimeoutMs = options.timeoutMs ?? 120_000;
  const maxOutputChars = options.maxOutputChars ?? 30_000;

  const audit = (context: ToolContext, command: string, outcome: Outcome, exitCode: number | null): void =>
    context.audit.append({ kind: 'tool_bash', agentId: context.agentId, correlationId: context.correlationId, command, exitCode, decision: outcome });

  return defineTool<BashArgs>({
    name: 'bash',
    description:
      'Run a bash command line in the working directory and get its output (stdout and stderr together) and exit code. ' +
      'Commands are checked against a policy before they run; a refused command says why, and you may try another way. ' +
      'Background processes are ended when the command finishes.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The command line, run with `bash -c`.' },
        timeout_sec: { type: 'integer', minimum: 1, maximum: 3600, description: `Seconds before the command is killed (default ${Math.round(defaultTimeoutMs / 1000)}).` },
      },
      required: ['command'],
      additionalProperties: false,
    },
    async run(args, context): Promise<ToolResult> {
      if (context.workDir === undefined) return { isError: true, output: 'The bash tool needs a working directory, and this agent has none.' };
      const line = args.command;
      const decision = await decideCommandLine(line, options.policy, context.workDir);
      options.onDecision?.(decision, line);
      let outcome: Outcome = 'allowed';
      if (decision.action === 'deny') {
        if (decision.behavior === 'block') {
          audit(context, line, 'blocked', null);
          return { isError: true, output: `Refused by the bash policy: ${decision.reason}. This command will not run; try something else.` };
        }
        outcome = 'autonomous';
        if (options.safeMode) {
          const answer = (await context.requestApproval?.({ type: 'command', question: `Run \`${line}\`? ${decision.reason}` })) ?? { approved: false, cancelled: true };
          if (!answer.approved) {
            audit(context, line, 'declined', null);
            return { isError: true, output: `Not run: the command needed approval and was declined (${answer.reason ?? decision.reason}).` };
          }
          outcome = 'approved';
        }
      }
      const timeoutMs = args.timeout_sec !== undefined ? args.timeout_sec * 1000 : defaultTimeoutMs;
      let run: BashRun;
      try {
        run = await runBash(line, { cwd: context.workDir, env: options.env, timeoutMs, signal: context.signal, maxOutputChars });
      } catch (error) {
        audit(context, line, outcome, null);
        return { isError: true, output: `The command could not start: ${error instanceof Error ? error.message : String(error)}` };
      }
      audit(context, line, outcome, run.exitCode);
      const last = ending(run, timeoutMs);
      return { isError: run.exitCode !== 0, output: run.output === '' ? last : `${run.output}${run.output.endsWith('\n') ? '' : '\n'}${last}` };
    },
  });
}
