import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../../src/envelope/index.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { foreignRequest } from '../support/envelopes.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { runNats, type RunNats } from '../support/nats-target.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { scopeConfig } from '../support/scoped-config.js';

const nats = await runNats();
const daemons: DaemonProcess[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) {
    daemon.signal('SIGTERM');
    await daemon.exited;
  }
});

/** The echo agent on this file's NATS subjects, agent.yaml extended with `extra` and its `log` block replaced. */
async function startEcho(extra: string, log = 'log: { level: warn }'): Promise<{ daemon: DaemonProcess; configDir: string; dataDir: string }> {
  const configDir = mkdtempSync(join(tmpdir(), 'retention-'));
  cpSync(new URL('../fixtures/config/echo-nats', import.meta.url).pathname, configDir, { recursive: true });
  const agentFile = join(configDir, 'agent.yaml');
  writeFileSync(agentFile, `${readFileSync(agentFile, 'utf8').replace('log: { level: warn }', log)}${extra}\n`);
  scopeConfig(configDir, { natsSubjectPrefix: nats.subjectPrefix });
  const dataDir = join(configDir, 'data');
  const daemon = await DaemonProcess.start(configDir, { NATS_URL: nats.url, AGENT_DATA_DIR: dataDir }, await freePort());
  daemons.push(daemon);
  return { daemon, configDir, dataDir };
}

/** Publishes raw bytes to the echo agent's request subject, as any NATS client can. */
async function publishRaw(target: RunNats, bodies: readonly string[]): Promise<void> {
  const transport = await target.transport();
  try {
    for (const body of bodies) await transport.publish('agents.echo-agent.requests', { body: Buffer.from(body) });
  } finally {
    await transport.close();
  }
}

async function metric(daemon: DaemonProcess, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${daemon.httpPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** What the config files expand, for a CLI run beside the daemon. */
function cliEnv(daemon: DaemonProcess, dataDir: string): NodeJS.ProcessEnv {
  return { NATS_URL: nats.url, AGENT_DATA_DIR: dataDir, AGENT_HTTP_PORT: String(daemon.httpPort) };
}

function logLines(daemon: DaemonProcess): Array<Record<string, unknown>> {
  return daemon.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function dlqFiles(dataDir: string): string[] {
  // Rotated files (dlq.jsonl.<number>) hold the older records; dlq.jsonl the newest.
  const names = existsSync(dataDir) ? readdirSync(dataDir).filter((name) => name.startsWith('dlq.jsonl.')).sort() : [];
  return existsSync(join(dataDir, 'dlq.jsonl')) ? [...names, 'dlq.jsonl'] : names;
}

function linesOf(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

describe('DLQ retention', () => {
  it('dlq retention - past maxRecords the oldest records are dropped, counted in /metrics and logged; dlq list, show and requeue read every DLQ file', async () => {
    const { daemon, configDir, dataDir } = await startEcho('dlq: { retain: { maxRecords: 8 } }');
    await publishRaw(nats, Array.from({ length: 30 }, (_, n) => `not json ${n}`));
    await until(async () => (await metric(daemon, 'agent_rpc_dlq_records_total', 'kind="decode-failed"')) === 30, 30_000);
    const kept = dlqFiles(dataDir).flatMap((name) => linesOf(join(dataDir, name)).map((line) => JSON.parse(line) as { id: string; rawBase64: string }));
    expect(kept.length).toBeGreaterThanOrEqual(6);
    expect(kept.length).toBeLessThanOrEqual(8);
    expect(dlqFiles(dataDir).length).toBeGreaterThan(1);
    // The newest records are the ones kept, in order.
    const bodies = kept.map((r) => Buffer.from(r.rawBase64, 'base64').toString('utf8'));
    expect(bodies).toEqual(Array.from({ length: kept.length }, (_, n) => `not json ${30 - kept.length + n}`));
    expect(await metric(daemon, 'agent_rpc_dlq_dropped_total', 'reason="records"')).toBe(30 - kept.length);
    const drops = logLines(daemon).filter((line) => String(line['msg']).startsWith('DLQ retention dropped'));
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.reduce((sum, line) => sum + Number(line['dropped']), 0)).toBe(30 - kept.length);

    const list = await runCliProcess(['dlq', 'list', '--json', '--config', configDir], cliEnv(daemon, dataDir));
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(kept.map((r) => r.id));
    const show = await runCliProcess(['dlq', 'show', kept[0]!.id, '--config', configDir], cliEnv(daemon, dataDir));
    expect(show.code).toBe(0);
    expect((JSON.parse(show.stdout) as { raw: string }).raw).toBe(bodies[0]);
    // The running agent finds a record of a rotated file too, and sends its bytes through again (dead-lettered again: they are not JSON).
    const requeue = await runCliProcess(['dlq', 'requeue', kept[0]!.id, '--config', configDir], cliEnv(daemon, dataDir));
    expect(requeue).toMatchObject({ code: 0, stderr: '' });
    await until(async () => (await metric(daemon, 'agent_rpc_dlq_records_total', 'kind="decode-failed"')) === 31, 30_000);
  }, 90_000);
});

describe('warning summaries', () => {
  it('log summary - a burst of 500 malformed messages writes a bounded number of warn lines, with counts per reason and a sample', async () => {
    // A long interval: the whole burst falls in one, and the shutdown writes its summaries.
    const { daemon } = await startEcho('', 'log: { level: warn, summaryIntervalMs: 600000 }');
    const bodies = [
      ...Array.from({ length: 250 }, (_, n) => `not json ${n}`),
      ...Array.from({ length: 250 }, (_, n) => JSON.stringify({ v: 1, note: `not an envelope ${n}` })),
    ];
    await publishRaw(nats, bodies);
    await until(async () => (await metric(daemon, 'agent_rpc_dlq_records_total', 'kind="decode-failed"')) === 500, 60_000);
    daemon.signal('SIGTERM');
    expect(await daemon.exited).toBe(0);
    daemons.splice(daemons.indexOf(daemon), 1);
    const warnings = logLines(daemon).filter((line) => line['level'] === 40 || line['level'] === 'warn');
    const dlqWarnings = warnings.filter((line) => String(line['msg']).startsWith('message sent to DLQ'));
    // Two reasons: per reason one line in full and one summary, not one line per message.
    const reasons = new Set(dlqWarnings.map((line) => line['reason']));
    expect(reasons.size).toBe(2);
    expect(dlqWarnings.length).toBeLessThanOrEqual(2 * reasons.size);
    const summaries = dlqWarnings.filter((line) => typeof line['repeated'] === 'number');
    expect(summaries.map((line) => line['reason']).sort()).toEqual([...reasons].sort());
    const full = dlqWarnings.filter((line) => line['repeated'] === undefined);
    // Every message is accounted for: the lines written in full plus the counted repeats.
    expect(full.length + summaries.reduce((sum, line) => sum + Number(line['repeated']), 0)).toBe(500);
    for (const summary of summaries) {
      expect(summary['kind']).toBe('decode-failed');
      expect(summary['sample']).toMatchObject({ kind: 'decode-failed', reason: summary['reason'] });
      expect(typeof (summary['sample'] as { dlqId?: unknown }).dlqId).toBe('string');
    }
  }, 120_000);
});

/** Requests for the echo agent's `echo`, as raw envelopes; each is an auth_check record of its audit log. */
function echoRequests(count: number, overrides: Parameters<typeof foreignRequest>[0] = {}): string[] {
  return Array.from({ length: count }, (_, n) =>
    Buffer.from(encodeEnvelope(foreignRequest({ to: 'agent://echo-agent', capability: 'echo', payload: { n }, replyTo: 'nats://nobody.listens', ...overrides }))).toString('utf8'),
  );
}

async function stop(daemon: DaemonProcess): Promise<void> {
  daemon.signal('SIGTERM');
  expect(await daemon.exited).toBe(0);
  daemons.splice(daemons.indexOf(daemon), 1);
}

function auditFiles(dataDir: string): string[] {
  return readdirSync(dataDir).filter((name) => /^audit\.jsonl\.\d{12}$/.test(name)).sort();
}

describe('audit log retention', () => {
  it('audit retention - the log rotates by size, verify walks the segments as one chain, and segments removed by retention leave a chain that says where it starts', async () => {
    const { daemon, configDir, dataDir } = await startEcho('audit: { rotate: { maxBytes: 2048 }, retain: { maxBytes: 6144 } }');
    await publishRaw(nats, echoRequests(60));
    await until(async () => (await metric(daemon, 'agent_rpc_auth_decisions_total', 'decision="accept"')) === 60, 30_000);
    await stop(daemon);
    const segments = auditFiles(dataDir);
    expect(segments.length).toBeGreaterThan(1);
    // The oldest segments went: the first kept does not start at seq 0.
    expect(segments[0]).not.toBe('audit.jsonl.000000000000');
    const firstSeq = Number(segments[0]!.slice('audit.jsonl.'.length));
    let bytes = 0;
    for (const name of segments) bytes += readFileSync(join(dataDir, name)).length;
    expect(bytes).toBeLessThanOrEqual(6144 + 2048 + 1024);

    const env = { NATS_URL: nats.url, AGENT_DATA_DIR: dataDir, AGENT_HTTP_PORT: '0' };
    const [human, json, list] = await Promise.all([
      runCliProcess(['audit', 'verify', '--config', configDir], env),
      runCliProcess(['audit', 'verify', '--json', '--config', configDir], env),
      runCliProcess(['audit', 'list', '--json', '--config', configDir], env),
    ]);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toContain(`chain starts at segment ${segments[0]} (seq ${firstSeq}): ${firstSeq} earlier records removed by retention`);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, segments: segments.length + 1, chainStart: { segment: segments[0], seq: firstSeq } });
    const records = list.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; kind: string });
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: records.length }, (_, n) => firstSeq + n));
    expect(records.filter((r) => r.kind === 'audit_retention').length).toBeGreaterThan(0);

    // Removing a segment by hand is not retention: verify names what is missing.
    rmSync(join(dataDir, segments[0]!));
    const tampered = await runCliProcess(['audit', 'verify', '--json', '--config', configDir], env);
    expect(tampered.code).toBe(1);
    expect(JSON.parse(tampered.stdout)).toMatchObject({ ok: false, problem: 'deleted', index: 0, seq: Number(segments[1]!.slice('audit.jsonl.'.length)) });
  }, 90_000);

  it('audit exclude - auth_check.accept is not recorded when excluded; other decisions still are, and the chain verifies', async () => {
    const { daemon, configDir, dataDir } = await startEcho('audit: { exclude: [auth_check.accept] }');
    await publishRaw(nats, [...echoRequests(5), ...echoRequests(1, { tenantId: 'someone-else' })]);
    await until(async () => (await metric(daemon, 'agent_rpc_auth_decisions_total', 'decision="accept"')) === 5, 30_000);
    await until(async () => (await metric(daemon, 'agent_rpc_dlq_records_total', 'kind="tenant-mismatch"')) === 1, 30_000);
    await stop(daemon);
    const env = { NATS_URL: nats.url, AGENT_DATA_DIR: dataDir, AGENT_HTTP_PORT: '0' };
    const [list, verify] = await Promise.all([runCliProcess(['audit', 'list', '--json', '--config', configDir], env), runCliProcess(['audit', 'verify', '--config', configDir], env)]);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual(['tenant_reject']);
    expect(verify).toMatchObject({ code: 0, stderr: '' });
  }, 90_000);
});
