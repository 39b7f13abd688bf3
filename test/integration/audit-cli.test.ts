import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAuditLog } from '../../src/audit/index.js';
import { runCliProcess } from '../support/run-cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
const path = join(dir, 'audit.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  let now = Date.parse('2026-11-01T10:00:00Z');
  const log = await FileAuditLog.open({ path, clock: { now: () => (now += 1000) } });
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://caller', provider: 'oidc', decision: 'accept', subject: 'caller-client', messageId: 'm-1', correlationId: 'c-1' });
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://mallory', provider: 'oidc', decision: 'reject', reason: 'alg-none', messageId: 'm-2', correlationId: 'c-2' });
  log.append({ kind: 'other', note: 'not an auth check' });
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://caller', provider: 'hmac', decision: 'accept', subject: 'hmac:k-1', messageId: 'm-4', correlationId: 'c-4' });
  await log.close();
});

describe('agent-rpc audit list', () => {
  it('audit cli - list prints one line per record: time, seq, kind, decision, peer, provider, subject or reason, message', async () => {
    const run = await runCliProcess(['audit', 'list', '--kind', 'auth_check', '--file', path]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n')).toEqual([
      '2026-11-01T10:00:01.000Z  #0  auth_check  accept  agent://caller  oidc  subject=caller-client  message=m-1',
      '2026-11-01T10:00:02.000Z  #1  auth_check  reject  agent://mallory  oidc  reason=alg-none  message=m-2',
      '2026-11-01T10:00:04.000Z  #3  auth_check  accept  agent://caller  hmac  subject=hmac:k-1  message=m-4',
    ]);
  });

  it('audit cli - list --json --since --limit; the file may come from AGENT_RPC_AUDIT_FILE', async () => {
    const [since, limited, recent] = await Promise.all([
      runCliProcess(['audit', 'list', '--json', '--since', '2026-11-01T10:00:02Z'], { AGENT_RPC_AUDIT_FILE: path }),
      runCliProcess(['audit', 'list', '--json', '--limit', '2', '--file', path]),
      // The records are dated in 2026-11; a duration counts back from the real now.
      runCliProcess(['audit', 'list', '--since', '15m', '--file', path]),
    ]);
    const seqs = (stdout: string) => stdout.trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(since.code).toBe(0);
    expect(seqs(since.stdout)).toEqual([1, 2, 3]);
    expect(JSON.parse(since.stdout.split('\n')[0]!)).toMatchObject({ seq: 1, kind: 'auth_check', decision: 'reject', reason: 'alg-none' });
    expect(seqs(limited.stdout)).toEqual([2, 3]);
    expect(recent.code).toBe(0);
    expect(recent.stdout.split('\n').length).toBeLessThanOrEqual(5);
  });
});

describe('agent-rpc audit --config', () => {
  it("audit cli - --config reads the log where that agent's daemon writes it (<dataDir>/audit.jsonl); --file with --config is a usage error", async () => {
    const agentDir = join(dir, 'agent');
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, 'agent.yaml'), `version: 1\nagent:\n  id: svc\ndataDir: ${dir}\n`);
    writeFileSync(join(agentDir, 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities: []\n');
    const [list, verify, both, missing] = await Promise.all([
      runCliProcess(['audit', 'list', '--kind', 'auth_check', '--config', agentDir]),
      runCliProcess(['audit', 'verify', '--json', '--config', agentDir]),
      runCliProcess(['audit', 'list', '--config', agentDir, '--file', path]),
      runCliProcess(['audit', 'verify', '--config', join(dir, 'no-such-agent')]),
    ]);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout.trim().split('\n').map((l) => l.split('  ')[1])).toEqual(['#0', '#1', '#3']);
    expect(JSON.parse(verify.stdout)).toMatchObject({ file: path, ok: true, records: 4 });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--file and --config both name the audit log');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no-such-agent');
  });
});

describe('agent-rpc audit verify', () => {
  it('audit cli - verify exits 0 on an intact log, human and --json', async () => {
    const [human, json] = await Promise.all([runCliProcess(['audit', 'verify', '--file', path]), runCliProcess(['audit', 'verify', '--json', '--file', path])]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ok: 4 records, chain intact \(\d+ ms\)\n$/);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ file: path, ok: true, records: 4, headFile: true });
  });

  it('audit cli - verify exits 1 and names the first problem and its index', async () => {
    const modified = join(dir, 'modified.jsonl');
    writeFileSync(modified, readFileSync(path, 'utf8').replace('"alg-none"', '"expired"'));
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, readFileSync(path, 'utf8'));
    appendFileSync(cut, '{"seq":4,"at":');
    const [human, json, truncated] = await Promise.all([
      runCliProcess(['audit', 'verify', '--file', modified]),
      runCliProcess(['audit', 'verify', '--file', modified, '--json']),
      runCliProcess(['audit', 'verify', '--file', cut, '--json']),
    ]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^modified at record index 1 \(line 2, seq 1\): record 1 \(line 2\) does not match its hash\n$/);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, problem: 'modified', index: 1, seq: 1 });
    expect(truncated.code).toBe(1);
    expect(JSON.parse(truncated.stdout)).toMatchObject({ ok: false, problem: 'truncated', index: 4 });
  });
});

describe('agent-rpc audit - help, usage errors and failures', () => {
  it('audit cli - --help on the program, the group and each subcommand exits 0', async () => {
    const [top, group, list, verify] = await Promise.all([
      runCliProcess(['--help']),
      runCliProcess(['audit', '--help']),
      runCliProcess(['audit', 'list', '--help']),
      runCliProcess(['audit', 'verify', '-h']),
    ]);
    for (const run of [top, group, list, verify]) expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(top.stdout).toMatch(/agent-rpc audit list/);
    expect(group.stdout).toMatch(/agent-rpc audit verify/);
    expect(list.stdout).toMatch(/^usage: agent-rpc audit list/);
    expect(list.stdout).toMatch(/Exit codes: 0 ok, 1 .*, 2 usage error, 3/);
    expect(verify.stdout).toMatch(/^usage: agent-rpc audit verify/);
  });

  it('audit cli - usage errors exit 2 with one line on stderr', async () => {
    const runs = await Promise.all([
      runCliProcess(['audit', 'list', '--since', 'yesterday', '--file', path]),
      runCliProcess(['audit', 'list', '--limit', '0', '--file', path]),
      runCliProcess(['audit', 'list', '--bogus']),
      runCliProcess(['audit']),
      runCliProcess(['audit', 'erase']),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(runs[0]!.stderr).toMatch(/--since must be an ISO date\/time or a duration/);
    expect(runs[1]!.stderr).toMatch(/--limit must be a positive integer/);
    expect(runs[4]!.stderr).toMatch(/unknown command "erase"/);
  });

  it('audit cli - a missing file exits 3 with one line on stderr', async () => {
    const absent = join(dir, 'absent.jsonl');
    const [verify, list, fromEnv] = await Promise.all([
      runCliProcess(['audit', 'verify', '--file', absent]),
      runCliProcess(['audit', 'list', '--file', absent]),
      runCliProcess(['audit', 'list'], { AGENT_RPC_AUDIT_FILE: absent }),
    ]);
    for (const run of [verify, list, fromEnv]) {
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(`agent-rpc: audit log ${absent} does not exist\n`);
    }
  });
});
