import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalAnswer } from '../../src/rpc/approvals.js';
import type { Usage } from '../../src/flow-usage.js';
import { checkFlowBudget, reportUsage, usageOf } from '../../src/index.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

const usage = (inputTokens: number, outputTokens: number, costUsd: number): Usage => ({ inputTokens, outputTokens, cachedInputTokens: 0, costUsd, modelRequests: 1 });

describe('approvals - up the call chain', () => {
  it('approvals - a question two hops down reaches the first caller’s onApproval and its answer comes back down', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle');
    const worker = await fleet.node('worker');
    worker.handle('act', async (_input, ctx) => {
      const answer = await ctx.requestApproval({ type: 'command', question: 'Run `rm -rf build`?' });
      return { answer };
    });
    middle.handle('delegate', async (_input, ctx) => (await ctx.requestAgent({ to: 'worker', capability: 'act', payload: {} })).response);
    const asked: string[] = [];
    const result = await caller.requestAgent({
      to: 'middle',
      capability: 'delegate',
      payload: {},
      onApproval: async (prompt) => {
        asked.push(`${prompt.type}: ${prompt.question}`);
        return { approved: true, cancelled: false, answer: 'go ahead' };
      },
    });
    expect(asked).toEqual(['command: Run `rm -rf build`?']);
    expect(result.status).toBe('ok');
    expect(result.response).toEqual({ answer: { approved: true, cancelled: false, answer: 'go ahead' } });
  });

  it('approvals - calls made through the node inside a handler forward questions too (implicit flow)', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle');
    const worker = await fleet.node('worker');
    worker.handle('act', async (_input, ctx) => ctx.requestApproval({ type: 'confirm', question: 'Deploy?' }));
    middle.handle('delegate', async () => (await middle.requestAgent({ to: 'worker', capability: 'act', payload: {} })).response);
    const result = await caller.requestAgent({ to: 'middle', capability: 'delegate', payload: {}, onApproval: async () => ({ approved: false, cancelled: false, answer: 'not today' }) });
    expect(result.response).toMatchObject({ approved: false, answer: 'not today' });
  });

  it('approvals - with nobody able to answer the question is declined at once with the reason, never a hang', async () => {
    const caller = await fleet.node('caller');
    const worker = await fleet.node('worker');
    worker.handle('act', async (_input, ctx) => ctx.requestApproval({ type: 'command', question: 'Run it?' }));
    const result = await caller.requestAgent<ApprovalAnswer>({ to: 'worker', capability: 'act', payload: {}, timeoutMs: 60_000 });
    expect(result.response).toEqual({ approved: false, cancelled: true, reason: 'no-approver' });
  });

  it('approvals - an approver that never answers is cut off by the request deadline: declined with reason timeout', async () => {
    const caller = await fleet.node('caller');
    const worker = await fleet.node('worker');
    let answered: ApprovalAnswer | undefined;
    worker.handle('act', async (_input, ctx) => {
      answered = await ctx.requestApproval({ type: 'command', question: 'Run it?' });
      return answered;
    });
    // The caller's own timer and the asker's fire at the same deadline: either may end the call first.
    await caller.requestAgent({ to: 'worker', capability: 'act', payload: {}, timeoutMs: 300, onApproval: () => new Promise(() => {}) });
    await expect.poll(() => answered).toEqual({ approved: false, cancelled: true, reason: 'timeout' });
  });

  it('approvals - both directions are audited', async () => {
    const records: Array<Record<string, unknown>> = [];
    const audit = { append: (entry: Record<string, unknown>) => records.push(entry), flush: async () => {}, close: async () => {} };
    const caller = await fleet.node('caller', { audit });
    const worker = await fleet.node('worker', { audit });
    worker.handle('act', async (_input, ctx) => ctx.requestApproval({ type: 'command', question: 'Run it?' }));
    await caller.requestAgent({ to: 'worker', capability: 'act', payload: {}, onApproval: async () => ({ approved: true, cancelled: false }) });
    const approvals = records.filter((record) => String(record.kind).startsWith('approval_'));
    expect(approvals.map((record) => `${String(record.agentId)}:${String(record.kind)}`)).toEqual(['worker:approval_requested', 'caller:approval_relayed', 'worker:approval_answered']);
  });
});

describe('usage - rolled up along the flow', () => {
  it('usage - the first caller sees the tokens and cost of every hop it caused', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle');
    const worker = await fleet.node('worker');
    worker.handle('work', (_input, ctx) => {
      reportUsage(ctx, usage(100, 20, 0.01));
      return 'done';
    });
    middle.handle('plan', async (_input, ctx) => {
      reportUsage(ctx, usage(50, 10, 0.005));
      const first = await ctx.requestAgent({ to: 'worker', capability: 'work', payload: {} });
      const second = await ctx.requestAgent({ to: 'worker', capability: 'work', payload: {} });
      return { first: first.usage, second: second.usage, total: usageOf(ctx) };
    });
    const result = await caller.requestAgent<{ first: Usage; total: Usage }>({ to: 'middle', capability: 'plan', payload: {} });
    expect(result.response?.first).toEqual(usage(100, 20, 0.01));
    expect(result.usage).toMatchObject({ inputTokens: 250, outputTokens: 50, modelRequests: 3 });
    expect(result.usage?.costUsd).toBeCloseTo(0.025, 10);
    expect(result.response?.total).toEqual(result.usage);
  });

  it('usage - a failed call still reports what it spent', async () => {
    const caller = await fleet.node('caller');
    const worker = await fleet.node('worker');
    worker.handle('work', (_input, ctx) => {
      reportUsage(ctx, usage(7, 3, 0));
      throw new Error('gave up');
    });
    const result = await caller.requestAgent({ to: 'worker', capability: 'work', payload: {} });
    expect(result.status).toBe('error');
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
  });

  it('usage - plain handlers add no usage header', async () => {
    const caller = await fleet.node('caller');
    (await fleet.node('worker')).handle('work', () => 1);
    const result = await caller.requestAgent({ to: 'worker', capability: 'work', payload: {} });
    expect(result.usage).toBeUndefined();
  });
});

describe('guard - flow budgets', () => {
  it('guard - a call made after the flow spent its token budget is refused with rule tokens', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle', { guard: { maxTokens: 100 } });
    const worker = await fleet.node('worker');
    worker.handle('work', (_input, ctx) => {
      reportUsage(ctx, usage(80, 30, 0));
      return 'done';
    });
    middle.handle('plan', async (_input, ctx) => {
      const first = await ctx.requestAgent({ to: 'worker', capability: 'work', payload: {} });
      const second = await ctx.requestAgent({ to: 'worker', capability: 'work', payload: {} });
      return { first: first.status, second: second.error?.code, rule: second.error?.details?.rule, budget: checkFlowBudget(ctx)?.details };
    });
    const result = await caller.requestAgent({ to: 'middle', capability: 'plan', payload: {} });
    expect(result.response).toMatchObject({ first: 'ok', second: 'EAGENTRPC_GUARD_REJECTED', rule: 'tokens', budget: { rule: 'tokens', value: 110, limit: 100 } });
  });

  it('guard - the receiver refuses a request whose flow already spent the cost budget it enforces', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle');
    const worker = await fleet.node('worker', { guard: { maxCostUsd: 0.5 } });
    worker.handle('work', () => 'done');
    middle.handle('plan', async (_input, ctx) => {
      reportUsage(ctx, usage(10, 10, 0.75));
      const call = await ctx.requestAgent({ to: 'worker', capability: 'work', payload: {} });
      return { code: call.error?.code, rule: call.error?.details?.rule };
    });
    const result = await caller.requestAgent({ to: 'middle', capability: 'plan', payload: {} });
    expect(result.response).toEqual({ code: 'EAGENTRPC_GUARD_REJECTED', rule: 'cost' });
  });
});
