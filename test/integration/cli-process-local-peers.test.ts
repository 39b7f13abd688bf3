import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/run-cli-process.js';

// The quickstart's frontdesk: every peer on the in-process bus of the fleet's own process.
const frontdesk = fileURLToPath(new URL('../../examples/quickstart/agents/frontdesk', import.meta.url));

describe('cli - peers on the in-process bus', () => {
  it('cli - rpc peers --verify and rpc capabilities --peer say at once that a memory peer is out of reach from the CLI, and how to ask it', async () => {
    const env = { QUICKSTART_DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-local-peers-')) };
    const [peers, capabilities] = await Promise.all([
      // A timeout far beyond the test's: a $ping that was sent would fail the test by waiting.
      runCliProcess(['rpc', 'peers', '--verify', '--json', '--timeout', '600000', '--config', frontdesk], env),
      runCliProcess(['rpc', 'capabilities', '--peer', 'pr-reviewer', '--timeout', '600000', '--config', frontdesk], env),
    ]);
    expect(peers.code, peers.stderr).toBe(1);
    const rows = peers.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; verify: { ok: boolean; reason: string } });
    expect(rows.map((row) => row.id)).toContain('agent://pr-reviewer');
    for (const row of rows) {
      expect(row.verify).toEqual({ ok: false, reason: `memory reaches agents in their own process only; ask the process running ${row.id}: agent-rpc call ${row.id} '$ping' --url <its daemon>` });
    }
    expect(capabilities.code).toBe(1);
    expect(capabilities.stderr).toContain("pr-reviewer cannot be asked from here: memory reaches agents in their own process only; ask the process running agent://pr-reviewer: agent-rpc call agent://pr-reviewer '$capabilities' --url <its daemon>");
  });
});

describe('cli - --timeout', () => {
  it('cli - a --timeout that is not a positive integer is a usage error (exit 2) naming the value, before any config is read', async () => {
    const runs = await Promise.all([
      runCliProcess(['rpc', 'peers', '--verify', '--timeout', 'abc', '--config', frontdesk]),
      runCliProcess(['rpc', 'capabilities', '--peer', 'pr-reviewer', '--timeout', '0', '--config', frontdesk]),
      runCliProcess(['dlq', 'requeue', 'some-id', '--timeout', '1.5', '--config', frontdesk]),
      runCliProcess(['call', 'agent://pr-reviewer', '$ping', '--timeout=-1', '--config', frontdesk]),
    ]);
    expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2]);
    expect(runs.map((run) => /--timeout must be a positive integer \(ms\); got "(.*)"/.exec(run.stderr)?.[1])).toEqual(['abc', '0', '1.5', '-1']);
  });
});
