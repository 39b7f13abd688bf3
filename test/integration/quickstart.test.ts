import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from '../support/fleet.js';
import { runCliProcess } from '../support/run-cli-process.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('quickstart - npm start', () => {
  it('quickstart - runs the example fleet (every mode, a refusal, a timeout, a DLQ entry, a model agent), serves the CLI, stops on SIGINT', async () => {
    const token = 'quickstart-test-token';
    // Without a provider key the model agent runs on the scripted model server.
    const { OPENAI_API_KEY: _openai, ANTHROPIC_API_KEY: _anthropic, ...env } = process.env;
    // Its own process group, so SIGINT reaches npm and the fleet as Ctrl-C does.
    // Its DLQ and audit files in a directory of its own, with records of earlier runs in it.
    const dataDir = mkdtempSync(`${tmpdir()}/quickstart-data-`);
    mkdirSync(join(dataDir, 'pr-reviewer'));
    copyFileSync(join(repoRoot, 'test/fixtures/quickstart/earlier-run-dlq.jsonl'), join(dataDir, 'pr-reviewer', 'dlq.jsonl'));
    const child = spawn('npm', ['start', '--silent'], {
      cwd: repoRoot,
      detached: true,
      env: { ...env, PORT: '0', AGENT_RPC_TOKEN: token, QUICKSTART_DATA_DIR: dataDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => /serving: (http:\/\/127\.0\.0\.1:\d+)/.test(stdout), 150_000);
      const url = /serving: (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;

      // The CLI, from outside the process, calls an agent of the in-process fleet.
      const cwd = mkdtempSync(`${tmpdir()}/quickstart-cli-`);
      const call = await runCliProcess(['call', 'agent://pr-reviewer', 'review-pr', '--url', url, '--config', cwd, '--payload', '{"prUrl":"pull/8","files":["a.ts"]}'], { AGENT_RPC_TOKEN: token });
      expect(call.code, call.stderr).toBe(0);
      expect(JSON.parse(call.stdout)).toMatchObject({ status: 'ok', response: { prUrl: 'pull/8', verdict: expect.any(String) } });
      const refused = await runCliProcess(['call', 'agent://pr-reviewer', '$ping', '--url', url, '--config', cwd], { AGENT_RPC_TOKEN: 'wrong' });
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_REMOTE_API', details: { status: 401 } } });
      expect((await fetch(`${url}/metrics`)).status).toBe(200);
      // The printed card URL serves the agent's A2A Agent Card.
      const cardUrl = /Agent Card: (\S+)/.exec(stdout)?.[1];
      expect(cardUrl).toBe(`${url}/a2a/pr-reviewer/.well-known/agent-card.json`);
      expect(await (await fetch(cardUrl!)).json()).toMatchObject({ name: 'pr-reviewer', skills: expect.arrayContaining([expect.objectContaining({ id: 'review-pr' })]) });
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    // npm itself dies of the signal; the fleet drains and says so before it exits 0.
    await exited;
    await until(() => stdout.includes('fleet stopped (exit 0)'), 30_000);

    const lines = stdout.split('\n');
    const line = (prefix: string): string => lines.find((l) => l.startsWith(prefix)) ?? `(no line starting with ${prefix})`;
    expect(line('sync ')).toMatch(/status=ok .*"verdict":"request-changes"/);
    expect(line('  progress')).toContain('"stage":"linting"');
    expect(line('async accepted')).toMatch(/status=ok/);
    expect(line('async response')).toMatch(/status=ok .*"summary"/);
    expect(line('fire-and-forget')).toMatch(/status=ok/);
    expect(line('  event')).toMatch(/auditor handled review-requested from agent:\/\/frontdesk .*payload={"pr":7}/);
    expect(line('refused')).toMatch(/status=error .*EAGENTRPC_PERMISSION_DENIED/);
    expect(line('timeout')).toMatch(/status=timeout .*EAGENTRPC_TIMEOUT/);
    expect(line('schema')).toMatch(/status=schema-violation .*EAGENTRPC_SCHEMA_VIOLATION/);
    expect(line('metrics: ')).toMatch(/^metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
    // This run's malformed message, once; not the earlier run's record kept in the same file.
    expect(lines.filter((l) => /^dlq +pr-reviewer kept decode-failed \(duplicate-key\)/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^dlq +pr-reviewer kept /.test(l))).toHaveLength(2);
    expect(readFileSync(join(dataDir, 'pr-reviewer', 'dlq.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    // The nested lint call joined the review's flow.
    const flowOf = (l: string): string | undefined => /correlationId=([0-9a-f-]{36})/.exec(l)?.[1];
    expect(flowOf(line('  nested call'))).toBe(flowOf(line('sync ')));
    expect(lines.filter((l) => /correlationId=[0-9a-f-]{36} latency=\d+\.\d+ms/.test(l)).length).toBeGreaterThanOrEqual(6);

    // The model agent: bash under its policy, the linter as a tool (a nested call in the
    // triage's flow), a denied command asked about and approved, the answer and its cost.
    expect(line('model: ')).toContain('the triager runs on the scripted model server');
    const triage = line('triage ');
    expect(triage).toMatch(/frontdesk → triager\/triage-issue +status=ok/);
    expect(lines.filter((l) => l.startsWith('  tool call'))).toEqual([
      expect.stringMatching(/^ {2}tool call +bash +ok +grep ERROR crash\.log \(allowed, exit 0\)$/),
      expect.stringMatching(/^ {2}tool call +linter__lint +ok +\{"files":\["src\/auth\/session\.ts","src\/auth\/legacy-token\.js"\]\}$/),
      expect.stringMatching(/^ {2}tool call +bash +ok +rm crash\.log \(approved, exit 0\)$/),
    ]);
    expect(lines.some((l) => l.startsWith('  nested call') && l.includes('from agent://triager') && flowOf(l) === flowOf(triage))).toBe(true);
    expect(line('  approval')).toMatch(/triager asks: Run `rm crash\.log`\? .*destructive.* → approved$/);
    expect(line('answer ')).toMatch(/Severity high: .*Team: auth\.$/);
    // 5,560 input tokens (3,072 of them cached) and 164 output at the gpt-5-mini rates agent.yaml gives the scripted model.
    expect(line('usage ')).toMatch(/^usage +5560 input \+ 164 output tokens over 4 model requests, \$0\.001027$/);
  }, 200_000);
});
