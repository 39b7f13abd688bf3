import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileAuditLog } from '../../src/audit/index.js';
import { runCliProcess } from '../support/run-cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
const path = join(dir, 'audit.jsonl');

beforeAll(async () => {
  let now = Date.parse('2026-11-01T10:00:00Z');
  const log = await FileAuditLog.open({ path, clock: { now: () => (now += 1000) } });
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://caller', provider: 'oidc', decision: 'accept', subject: 'caller-client', messageId: 'm-1', correlationId: 'c-1' });
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://mallory', provider: 'oidc', decision: 'reject', reason: 'alg-none', messageId: 'm-2', correlationId: 'c-2' });
  log.append({ kind: 'other', note: 'not an auth check' });
  await log.close();
});

describe('agent-rpc audit', () => {
  it('audit cli - list prints one line per record, filtered by kind', async () => {
    const run = await runCliProcess(['audit', 'list', '--kind', 'auth_check', '--file', path]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/2026-11-01T10:00:01.000Z {2}#0 {2}auth_check {2}accept {2}agent:\/\/caller {2}oidc {2}subject=caller-client {2}message=m-1/);
    expect(lines[1]).toMatch(/reject {2}agent:\/\/mallory {2}oidc {2}reason=alg-none/);
  });

  it('audit cli - list --json --since prints JSON records; the file may come from the environment', async () => {
    const run = await runCliProcess(['audit', 'list', '--json', '--since', '2026-11-01T10:00:02Z'], { AGENT_RPC_AUDIT_FILE: path });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2]);
  });

  it('audit cli - verify exits 0 on an intact log and 1 with the first problem on a tampered one', async () => {
    const ok = await runCliProcess(['audit', 'verify', '--file', path]);
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(/^ok: 3 records, chain intact/);
    const tampered = join(dir, 'tampered.jsonl');
    writeFileSync(tampered, readFileSync(path, 'utf8').replace('"alg-none"', '"expired"'));
    const bad = await runCliProcess(['audit', 'verify', '--file', tampered, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, problem: 'modified', index: 1, seq: 1 });
  });

  it('audit cli - help, usage errors and a missing file have their exit codes and one-line errors', async () => {
    const help = await runCliProcess(['audit', 'verify', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: agent-rpc audit verify/);
    const top = await runCliProcess(['--help']);
    expect(top.stdout).toMatch(/agent-rpc audit list/);
    const usage = await runCliProcess(['audit', 'list', '--since', 'yesterday', '--file', path]);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
    expect(usage.stderr).toMatch(/--since must be an ISO date or a duration/);
    const unknown = await runCliProcess(['audit', 'list', '--bogus']);
    expect(unknown.code).toBe(2);
    const missing = await runCliProcess(['audit', 'verify', '--file', join(dir, 'absent.jsonl')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr.trim()).toBe(`agent-rpc: audit log ${join(dir, 'absent.jsonl')} does not exist`);
  });
});
