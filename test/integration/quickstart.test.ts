import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('quickstart - npm start', () => {
  it('quickstart - runs the example fleet: every mode, a refusal, a timeout and a DLQ entry', () => {
    const run = spawnSync('npm', ['start', '--silent'], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000, env: { ...process.env, PORT: '0' } });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const line = (prefix: string): string => lines.find((l) => l.startsWith(prefix)) ?? `(no line starting with ${prefix})`;
    expect(line('sync ')).toMatch(/status=ok .*"verdict":"request-changes"/);
    expect(line('  progress')).toContain('"stage":"linting"');
    expect(line('async accepted')).toMatch(/status=ok/);
    expect(line('async response')).toMatch(/status=ok .*"summary"/);
    expect(line('fire-and-forget')).toMatch(/status=ok/);
    expect(line('  event')).toContain('auditor received review-requested');
    expect(line('refused')).toMatch(/status=error .*EAGENTRPC_PERMISSION_DENIED/);
    expect(line('timeout')).toMatch(/status=timeout .*EAGENTRPC_TIMEOUT/);
    expect(line('schema')).toMatch(/status=schema-violation .*EAGENTRPC_SCHEMA_VIOLATION/);
    expect(line('metrics: ')).toMatch(/^metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(run.stdout).toMatch(/dlq +pr-reviewer kept decode-failed \(duplicate-key\)/);
    // The nested lint call joined the review's flow.
    const flowOf = (l: string): string | undefined => /correlationId=([0-9a-f-]{36})/.exec(l)?.[1];
    expect(flowOf(line('  nested call'))).toBe(flowOf(line('sync ')));
    expect(lines.filter((l) => /correlationId=[0-9a-f-]{36} latency=\d+\.\d+ms/.test(l)).length).toBeGreaterThanOrEqual(6);
  });
});
