import { describe, expect, it } from 'vitest';
import { RunProgress } from '../../src/cli/run-progress.js';
import type { WorkflowRunRecord } from '../../src/workflows/run-record.js';

const USAGE = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, costUsd: 0.0004, modelRequests: 1 };
const RECORD: WorkflowRunRecord = {
  version: 1,
  workflow: 'w',
  runId: '0199a4c2-7b1e-7c3a-9f2e-4d5b6a7c8d9e',
  status: 'succeeded',
  startedAt: '2025-10-01T09:00:00.000Z',
  finishedAt: '2025-10-01T09:00:01.500Z',
  durationMs: 1500,
  params: {},
  args: [],
  steps: [{ name: 'a', type: 'agent', status: 'succeeded', durationMs: 1500, usage: USAGE }],
  usage: USAGE,
};

function play(raw: boolean): string {
  let out = '';
  const progress = new RunProgress({ line: (text) => (out += `${text}\n`), ...(raw ? { raw: (text: string) => (out += text) } : {}) }, 1);
  progress.event({ type: 'step-started', runId: RECORD.runId, step: { name: 'a', type: 'agent', startedAt: RECORD.startedAt } });
  progress.event({ type: 'step-finished', runId: RECORD.runId, step: RECORD.steps[0]! });
  progress.done(RECORD, '/data/runs/w/x.json');
  return out;
}

describe('run progress - the live view of agent-rpc run', () => {
  it('run progress - without a terminal: plain lines, the bar after each step, no cursor movement', () => {
    const out = play(false);
    expect(out).not.toContain('\r');
    expect(out).not.toContain('\u001b');
    expect(out.split('\n')).toEqual([
      '  ▸ a (agent) started',
      '  ✓ a succeeded  1.5s  120 tokens  $0.000400',
      expect.stringMatching(/^\[#{20}\] 1\/1 steps, \d+\.\ds, 120 tokens, \$0\.000400$/),
      'run succeeded: 1/1 steps succeeded in 1.5s, 120 tokens, $0.000400',
      'record: /data/runs/w/x.json',
      '',
    ]);
  });

  it('run progress - on a terminal: the bar is redrawn in place and cleared before the summary', () => {
    const out = play(true);
    expect(out).toContain('\r\u001b[2K');
    expect(out.match(/\[[#-]{20}\]/g)).toHaveLength(2);
    expect(out.endsWith('record: /data/runs/w/x.json\n')).toBe(true);
  });
});
