import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { bashPolicySchema, bashTool, runBash, scrubbedEnv, type BashDecision, type BashToolOptions } from '../../src/model-agents/bash/index.js';
import type { ToolContext } from '../../src/model-agents/index.js';
import { silentLogger } from '../../src/logger.js';
import type { ApprovalAnswer, ApprovalPrompt } from '../../src/rpc/approvals.js';
import { RecordedAudit } from '../support/recorded-audit.js';

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
const hitl = bashPolicySchema.parse({ rules: [{ name: 'destructive', pattern: '^rm\\b', action: 'deny' }] });
const block = bashPolicySchema.parse({ denyBehavior: 'block', rules: [{ name: 'destructive', pattern: '^rm\\b', action: 'deny' }] });

interface Harness {
  readonly context: ToolContext;
  readonly audit: RecordedAudit;
  readonly workDir: string;
  readonly prompts: ApprovalPrompt[];
}

function harness(answer?: ApprovalAnswer, extra: Partial<ToolContext> = {}): Harness {
  const workDir = mkdtempSync(join(tmpdir(), 'bash-tool-'));
  const audit = new RecordedAudit();
  const prompts: ApprovalPrompt[] = [];
  const requestApproval = answer === undefined ? undefined : async (prompt: ApprovalPrompt) => (prompts.push(prompt), answer);
  const context: ToolContext = { principal: { user: 'alice', role: 'operator' }, agentId: 'coder', correlationId: 'corr-1', audit, logger: silentLogger, workDir, requestApproval, ...extra };
  return { context, audit, workDir, prompts };
}
const tool = (options: Partial<BashToolOptions> = {}) => bashTool({ policy: hitl, safeMode: true, env, ...options });

/** Waits for a file a command writes once it has started (no fixed sleeps). */
async function fileContent(path: string): Promise<string> {
  for (;;) {
    const text = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
    if (text !== '') return text;
    await delay(10);
  }
}

/** Live (not zombie) processes in process group `pgid`. */
function liveInGroup(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return live;
}

describe('bash tool: running commands', () => {
  it('bash tool - an allowed command runs in the working directory and returns output and exit code', async () => {
    const { context, audit, workDir } = harness();
    const decisions: Array<[BashDecision, string]> = [];
    const result = await tool({ onDecision: (decision, line) => decisions.push([decision, line]) }).execute({ command: 'pwd; echo out; echo err >&2' }, context);
    expect(result).toEqual({ isError: false, output: `${workDir}\nout\nerr\n[exit code 0]` });
    expect(decisions).toMatchObject([[{ action: 'allow' }, 'pwd; echo out; echo err >&2']]);
    expect(audit.entries).toEqual([{ kind: 'tool_bash', agentId: 'coder', correlationId: 'corr-1', command: 'pwd; echo out; echo err >&2', exitCode: 0, decision: 'allowed' }]);
  });

  it('bash tool - a non-zero exit is an error result', async () => {
    const result = await tool().execute({ command: 'echo failing; exit 3' }, harness().context);
    expect(result).toEqual({ isError: true, output: 'failing\n[exit code 3]' });
  });

  it('bash tool - without a working directory it refuses, and bad arguments are reported', async () => {
    expect(await tool().execute({ command: 'ls' }, harness(undefined, { workDir: undefined }).context)).toMatchObject({ isError: true, output: expect.stringContaining('working directory') });
    expect(await tool().execute({ command: '' }, harness().context)).toMatchObject({ isError: true, output: expect.stringContaining('Invalid arguments') });
    expect(await tool().execute({ command: 'ls', timeout_sec: 0 }, harness().context)).toMatchObject({ isError: true });
  });
});

describe('bash tool: refusals and approvals', () => {
  it('bash tool - a block denial refuses, naming rule and command', async () => {
    const { context, workDir, audit } = harness({ approved: true, cancelled: false });
    writeFileSync(join(workDir, 'keep.txt'), 'x');
    const result = await tool({ policy: block }).execute({ command: 'ls && rm keep.txt' }, context);
    expect(result.isError).toBe(true);
    expect(result.output).toContain('rm keep.txt matched rule destructive (deny)');
    expect(result.output).toContain('try something else');
    expect(existsSync(join(workDir, 'keep.txt'))).toBe(true);
    expect(audit.entries).toMatchObject([{ kind: 'tool_bash', decision: 'blocked', exitCode: null }]);
  });

  it('bash tool - hitl in safe mode asks, and runs once approved', async () => {
    const { context, workDir, prompts, audit } = harness({ approved: true, cancelled: false });
    writeFileSync(join(workDir, 'gone.txt'), 'x');
    const result = await tool().execute({ command: 'rm gone.txt' }, context);
    expect(result).toEqual({ isError: false, output: '[exit code 0]' });
    expect(prompts).toEqual([{ type: 'command', question: 'Run `rm gone.txt`? rm gone.txt matched rule destructive (deny)' }]);
    expect(existsSync(join(workDir, 'gone.txt'))).toBe(false);
    expect(audit.entries).toMatchObject([{ decision: 'approved', exitCode: 0 }]);
  });

  it('bash tool - hitl in safe mode refuses when declined, giving the reason', async () => {
    const { context, workDir } = harness({ approved: false, cancelled: false, reason: 'not today' });
    writeFileSync(join(workDir, 'keep.txt'), 'x');
    const result = await tool().execute({ command: 'rm keep.txt' }, context);
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining('not today') });
    expect(existsSync(join(workDir, 'keep.txt'))).toBe(true);
  });

  it('bash tool - hitl in safe mode refuses when nobody can answer', async () => {
    const { context, workDir } = harness();
    writeFileSync(join(workDir, 'keep.txt'), 'x');
    const result = await tool().execute({ command: 'rm keep.txt' }, context);
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining('rm keep.txt matched rule destructive (deny)') });
    expect(existsSync(join(workDir, 'keep.txt'))).toBe(true);
  });

  it('bash tool - with safe mode off a hitl denial runs without asking; block still blocks', async () => {
    const { context, workDir, prompts, audit } = harness({ approved: false, cancelled: false });
    writeFileSync(join(workDir, 'gone.txt'), 'x');
    expect(await tool({ safeMode: false }).execute({ command: 'rm gone.txt' }, context)).toEqual({ isError: false, output: '[exit code 0]' });
    expect(prompts).toEqual([]);
    expect(existsSync(join(workDir, 'gone.txt'))).toBe(false);
    expect(audit.entries).toMatchObject([{ decision: 'autonomous', exitCode: 0 }]);
    expect(await tool({ safeMode: false, policy: block }).execute({ command: 'rm x' }, context)).toMatchObject({ isError: true });
  });
});

describe('bash tool: environment, cancellation and limits', () => {
  it('bash tool - commands see no variable named like a secret and no secret value', async () => {
    const secretsEnv = { ...env, API_KEY: 's3cr3t', GITHUB_TOKEN: 'ghp_abcdef0123', OTHER: 'contains-s3cr3t', KEEP_ME: 'visible' };
    const scrubbed = scrubbedEnv(secretsEnv, { allow: [], secretValues: ['s3cr3t', 'ghp_abcdef0123'] });
    const result = await tool({ env: scrubbed }).execute({ command: 'env' }, harness().context);
    expect(result.isError).toBe(false);
    expect(result.output).toContain('KEEP_ME=visible');
    expect(result.output).toContain('PATH=');
    for (const hidden of ['API_KEY', 'GITHUB_TOKEN', 'OTHER=', 's3cr3t', 'ghp_abcdef0123']) expect(result.output).not.toContain(hidden);
  });

  it('bash tool - aborting ends the command and everything it started', async () => {
    const { context, workDir } = harness();
    const controller = new AbortController();
    const running = tool().execute({ command: 'sleep 31 & echo $$ > group.pid; sleep 30' }, { ...context, signal: controller.signal });
    const group = Number(await fileContent(join(workDir, 'group.pid')));
    expect(liveInGroup(group).length).toBeGreaterThanOrEqual(2);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ isError: true, output: '[cancelled]' });
    expect(liveInGroup(group)).toEqual([]);
  });

  it('bash tool - background jobs are ended when the command finishes', async () => {
    const { context, workDir } = harness();
    const result = await tool().execute({ command: 'sleep 33 & echo $$ > group.pid; echo started' }, context);
    expect(result.output).toBe('started\n[exit code 0]');
    expect(liveInGroup(Number(readFileSync(join(workDir, 'group.pid'), 'utf8')))).toEqual([]);
  });

  it('bash tool - an already aborted call never runs', async () => {
    const { context, workDir } = harness();
    const result = await tool().execute({ command: 'touch ran' }, { ...context, signal: AbortSignal.abort() });
    expect(result.output).toBe('[cancelled]');
    expect(existsSync(join(workDir, 'ran'))).toBe(false);
  });

  it('bash tool - the timeout kills the command', async () => {
    const { context, workDir } = harness();
    const result = await tool().execute({ command: 'echo $$ > group.pid; echo waiting; sleep 30', timeout_sec: 1 }, context);
    expect(result).toEqual({ isError: true, output: 'waiting\n[killed: timeout after 1s]' });
    expect(liveInGroup(Number(readFileSync(join(workDir, 'group.pid'), 'utf8')))).toEqual([]);
  });

  it('runBash - long output keeps head and tail around a marker', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bash-run-'));
    const run = await runBash('seq 1 20000', { cwd, env, timeoutMs: 20_000, maxOutputChars: 1000 });
    expect(run.exitCode).toBe(0);
    expect(run.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(run.output.endsWith('19999\n20000\n')).toBe(true);
    const omitted = /\n… \[(\d+) characters omitted\] …\n/.exec(run.output);
    expect(Number(omitted?.[1])).toBe(108894 - 1000);
    expect(run.output.length - omitted![0].length).toBe(1000);
  });
});
