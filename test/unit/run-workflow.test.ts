import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/model-agents/models/model-client.js';
import { RpcError } from '../../src/errors.js';
import { parseWorkflow, runWorkflow, writeRunRecord, type RunStepContext, type RunWorkflowOptions, type StepResult, type Workflow, type WorkflowEvent, type WorkflowStep } from '../../src/workflows/index.js';

function workflowOf(text: string, options: { params?: string[]; args?: number } = {}): Workflow {
  return parseWorkflow('workflow.yaml', `version: 1\nname: test-flow\n${text}`, options).value;
}

function agentStep(name: string, extra = '', content = name): string {
  return `  - name: ${name}\n    type: agent\n    messages: [{ role: user, content: "${content}" }]\n${extra}`;
}

interface Call {
  readonly step: WorkflowStep;
  readonly context: RunStepContext;
  resolve(result: StepResult): void;
  reject(error: unknown): void;
}

/**
 * A runStep whose steps end when the test says so, and the run's events as they come:
 * tests wait for an event, never for time.
 */
function harness(workflow: Workflow, options: Partial<RunWorkflowOptions> = {}) {
  const calls = new Map<string, Call>();
  const events: WorkflowEvent[] = [];
  const waiters: Array<{ match: (event: WorkflowEvent) => boolean; resolve: (event: WorkflowEvent) => void }> = [];
  const onEvent = (event: WorkflowEvent): void => {
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };
  const until = (match: (event: WorkflowEvent) => boolean): Promise<WorkflowEvent> => {
    const seen = events.find(match);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
  };
  const started = (name: string) => until((event) => event.type === 'step-started' && event.step.name === name);
  const finished = (name: string) => until((event) => event.type === 'step-finished' && event.step.name === name);
  const arrivals = new Map<string, { promise: Promise<Call>; resolve: (call: Call) => void }>();
  const arrival = (name: string) => {
    let entry = arrivals.get(name);
    if (!entry) {
      let resolve!: (call: Call) => void;
      entry = { promise: new Promise<Call>((r) => (resolve = r)), resolve };
      arrivals.set(name, entry);
    }
    return entry;
  };
  /** The step's call, once runStep has been called for it. */
  const call = (name: string): Promise<Call> => arrival(name).promise;
  const run = runWorkflow(workflow, {
    runStep: (step, context) =>
      new Promise<StepResult>((resolve, reject) => {
        const made = { step, context, resolve, reject };
        calls.set(step.name, made);
        arrival(step.name).resolve(made);
      }),
    onEvent,
    ...options,
  });
  return { run, calls, events, started, finished, call };
}

const usage = (inputTokens: number, outputTokens: number, costUsd: number) => ({ inputTokens, outputTokens, cachedInputTokens: 0, costUsd, modelRequests: 1 });

describe('run workflow', () => {
  it('run workflow - independent steps start in parallel: both start before either finishes', async () => {
    const h = harness(workflowOf(`steps:\n${agentStep('a')}${agentStep('b')}`));
    const [a, b] = await Promise.all([h.call('a'), h.call('b')]);
    expect(h.events.filter((event) => event.type === 'step-finished')).toEqual([]);
    a.resolve({ output: 'A' });
    b.resolve({ output: 'B' });
    const record = await h.run;
    expect(record.status).toBe('succeeded');
    expect(record.steps.map((step) => [step.name, step.status, step.output])).toEqual([['a', 'succeeded', 'A'], ['b', 'succeeded', 'B']]);
  });

  it('run workflow - a step waits until every step it depends on has succeeded', async () => {
    const h = harness(workflowOf(`steps:\n${agentStep('c', '    depends: [a, b]\n')}${agentStep('a')}${agentStep('b')}`));
    const [a, b] = await Promise.all([h.call('a'), h.call('b')]);
    a.resolve({ output: 'A' });
    await h.finished('a');
    expect(h.calls.has('c')).toBe(false);
    b.resolve({ output: 'B' });
    (await h.call('c')).resolve({ output: 'C' });
    const record = await h.run;
    expect(record.steps.map((step) => step.name)).toEqual(['c', 'a', 'b']);
    expect(h.events.map((event) => `${event.type}:${'step' in event ? event.step.name : ''}`)).toEqual([
      'step-started:a', 'step-started:b', 'step-finished:a', 'step-finished:b', 'step-started:c', 'step-finished:c', 'run-finished:',
    ]);
  });

  it('run workflow - outputs, params and positional params are substituted into later messages and payloads', async () => {
    const workflow = workflowOf(
      `params: { HOST: db.internal, MODE: safe }\nsteps:\n${agentStep('analyze', '    output: ANALYSIS\n', 'look at $1 on ${HOST}')}` +
        `  - name: review\n    type: call\n    to: agent://reviewer\n    capability: review-text\n    payload: { text: "\${ANALYSIS}", tags: ["\${MODE}", 3], cost: "$$5" }\n    output: REVIEW\n    depends: [analyze]\n` +
        agentStep('fix', '    depends: [review]\n', 'fix: ${ANALYSIS} / ${REVIEW} / ${input.x}'),
      { args: 1 },
    );
    const h = harness(workflow, { params: { MODE: 'fast' }, args: ['config.yaml'] });
    const analyze = await h.call('analyze');
    expect(analyze.step).toMatchObject({ messages: [{ role: 'user', content: 'look at config.yaml on db.internal' }] });
    analyze.resolve({ output: 'the port is wrong' });
    const review = await h.call('review');
    expect(review.step).toMatchObject({ payload: { text: 'the port is wrong', tags: ['fast', 3], cost: '$5' } });
    expect(review.context.variables).toEqual({ HOST: 'db.internal', MODE: 'fast', 1: 'config.yaml', ANALYSIS: 'the port is wrong' });
    review.resolve({ output: { approve: true, notes: ['ok'] } });
    const fix = await h.call('fix');
    expect(fix.step).toMatchObject({ messages: [{ content: 'fix: the port is wrong / {"approve":true,"notes":["ok"]} / ${input.x}' }] });
    fix.resolve({ output: 'fixed' });
    const record = await h.run;
    expect(record.params).toEqual({ HOST: 'db.internal', MODE: 'fast' });
    expect(record.args).toEqual(['config.yaml']);
    expect(record.steps[1]!.output).toEqual({ approve: true, notes: ['ok'] });
  });

  it('run workflow - a param that would leave a variable undefined is refused before anything runs', async () => {
    const workflow = workflowOf(`steps:\n${agentStep('a', '', 'x ${X}')}`, { params: ['X'] });
    await expect(runWorkflow(workflow, { runStep: () => Promise.reject(new Error('ran')) })).rejects.toThrow(/steps\[0\]\.messages\[0\]\.content: undefined variable \$\{X\}/);
    await expect(runWorkflow(workflow, { params: { X: '1', A: '2' }, runStep: async () => ({ output: '' }) })).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('run workflow - an agent step receives the messages of the agent steps it depends on, directly or through others', async () => {
    const workflow = workflowOf(
      `steps:\n${agentStep('first')}${agentStep('second', '    depends: [first]\n')}` +
        `  - name: call\n    type: call\n    to: agent://x\n    capability: c\n    depends: [second]\n` +
        agentStep('last', '    depends: [call]\n'),
    );
    const h = harness(workflow);
    const firstTranscript: ModelMessage[] = [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'one' }];
    const secondTranscript: ModelMessage[] = [{ role: 'user', content: 'second' }, { role: 'assistant', content: 'two' }];
    const first = await h.call('first');
    expect(first.context.messages).toEqual([]);
    first.resolve({ output: 'one', messages: firstTranscript });
    const second = await h.call('second');
    expect(second.context.messages).toEqual(firstTranscript);
    second.resolve({ output: 'two', messages: secondTranscript });
    const call = await h.call('call');
    expect(call.context.messages).toEqual([]);
    call.resolve({ output: {} });
    const last = await h.call('last');
    expect(last.context.messages).toEqual([...firstTranscript, ...secondTranscript]);
    last.resolve({ output: 'done' });
    expect((await h.run).status).toBe('succeeded');
  });

  it('run workflow - a failed step skips its dependants with the reason and fails the run; other branches still run', async () => {
    const workflow = workflowOf(`steps:\n${agentStep('a')}${agentStep('b', '    depends: [a]\n')}${agentStep('c', '    depends: [b]\n')}${agentStep('d')}`);
    const h = harness(workflow);
    const [a, d] = await Promise.all([h.call('a'), h.call('d')]);
    a.reject(new RpcError('APP_BROKEN', 'the config is unreadable'));
    await h.finished('c');
    d.resolve({ output: 'D' });
    const record = await h.run;
    expect(record.status).toBe('failed');
    expect(record.steps).toMatchObject([
      { name: 'a', status: 'failed', error: { code: 'APP_BROKEN', message: 'the config is unreadable' } },
      { name: 'b', status: 'skipped', reason: 'dependency a failed' },
      { name: 'c', status: 'skipped', reason: 'dependency a failed' },
      { name: 'd', status: 'succeeded', output: 'D' },
    ]);
    expect(record.steps[1]!.startedAt).toBeUndefined();
    expect(record.error).toEqual({ code: 'EAGENTRPC_WORKFLOW_STEP_FAILED', message: 'step a failed (APP_BROKEN)', details: { step: 'a', cause: 'APP_BROKEN' } });
    expect([...h.calls.keys()].sort()).toEqual(['a', 'd']);
  });

  it('run workflow - an error without a code is recorded as EAGENTRPC_HANDLER_FAILED', async () => {
    const record = await runWorkflow(workflowOf(`steps:\n${agentStep('a')}`), { runStep: async () => { throw new Error('boom'); } });
    expect(record.steps[0]).toMatchObject({ status: 'failed', error: { code: 'EAGENTRPC_HANDLER_FAILED', message: 'boom' } });
  });

  it('run workflow - timeoutMs aborts the step with EAGENTRPC_WORKFLOW_STEP_TIMEOUT and fails it', async () => {
    const workflow = workflowOf(`steps:\n${agentStep('slow', '    timeoutMs: 50\n')}${agentStep('after', '    depends: [slow]\n')}`);
    let reason: unknown;
    const record = await runWorkflow(workflow, {
      // A step that ends only when its signal says so.
      runStep: (_step, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => { reason = signal.reason; reject(signal.reason); })),
    });
    expect(reason).toMatchObject({ code: 'EAGENTRPC_WORKFLOW_STEP_TIMEOUT', details: { step: 'slow', timeoutMs: 50 } });
    expect(record.steps).toMatchObject([
      { name: 'slow', status: 'failed', error: { code: 'EAGENTRPC_WORKFLOW_STEP_TIMEOUT' } },
      { name: 'after', status: 'skipped', reason: 'dependency slow failed' },
    ]);
    expect(record.error?.details).toEqual({ step: 'slow', cause: 'EAGENTRPC_WORKFLOW_STEP_TIMEOUT' });
  });

  it('run workflow - a step that ignores its signal still ends at its timeout (timeout_sec, in seconds)', async () => {
    const record = await runWorkflow(workflowOf(`steps:\n${agentStep('deaf', '    timeout_sec: 0.02\n')}`), { runStep: () => new Promise<StepResult>(() => {}) });
    expect(record.steps[0]).toMatchObject({ status: 'failed', error: { code: 'EAGENTRPC_WORKFLOW_STEP_TIMEOUT' } });
  });

  it('run workflow - cancelling the run aborts running steps and starts no more', async () => {
    const controller = new AbortController();
    const h = harness(workflowOf(`steps:\n${agentStep('a')}${agentStep('b')}${agentStep('c', '    depends: [a]\n')}`), { signal: controller.signal });
    const [a, b] = await Promise.all([h.call('a'), h.call('b')]);
    controller.abort(new RpcError('EAGENTRPC_ABANDONED', 'stopped by the operator'));
    expect(a.context.signal.aborted).toBe(true);
    expect(b.context.signal.reason).toMatchObject({ code: 'EAGENTRPC_ABANDONED' });
    a.resolve({ output: 'too late' });
    const record = await h.run;
    expect(record.status).toBe('cancelled');
    expect(record.steps).toMatchObject([
      { name: 'a', status: 'cancelled', reason: 'run cancelled' },
      { name: 'b', status: 'cancelled', reason: 'run cancelled' },
      { name: 'c', status: 'cancelled', reason: 'run cancelled' },
    ]);
    expect(record.steps[0]!.output).toBeUndefined();
    expect(record.steps[0]!.startedAt).toBeDefined();
    expect(record.steps[2]!.startedAt).toBeUndefined();
    expect(h.calls.has('c')).toBe(false);
  });

  it('run workflow - a run whose signal is already aborted runs nothing', async () => {
    const record = await runWorkflow(workflowOf(`steps:\n${agentStep('a')}`), { signal: AbortSignal.abort(), runStep: () => Promise.reject(new Error('ran')) });
    expect(record).toMatchObject({ status: 'cancelled', steps: [{ name: 'a', status: 'cancelled' }] });
  });

  it('run workflow - usage is kept per step and summed in the record; times come from the clock', async () => {
    let clock = 1_000;
    const workflow = workflowOf(`steps:\n${agentStep('a')}${agentStep('b', '    depends: [a]\n')}  - name: c\n    type: call\n    to: agent://x\n    capability: c\n`);
    const spent: Record<string, StepResult> = { a: { output: 'A', usage: usage(100, 10, 0.001) }, b: { output: 'B', usage: usage(50, 5, 0.0005) }, c: { output: null } };
    const record = await runWorkflow(workflow, { now: () => (clock += 10), runStep: async (step) => spent[step.name]! });
    expect(record.steps[0]!.usage).toEqual(usage(100, 10, 0.001));
    expect(record.steps[2]).toMatchObject({ status: 'succeeded', output: null });
    expect(record.steps[2]!.usage).toBeUndefined();
    expect(record.usage).toEqual({ inputTokens: 150, outputTokens: 15, cachedInputTokens: 0, costUsd: 0.0015, modelRequests: 2 });
    expect(record.startedAt).toBe(new Date(1_010).toISOString());
    expect(record.durationMs).toBeGreaterThan(0);
    for (const step of record.steps) expect(step.durationMs).toBe(Date.parse(step.finishedAt!) - Date.parse(step.startedAt!));
  });

  it('run workflow - the record written to disk round-trips, under runs/<workflow>/<runId>.json', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'workflow-runs-'));
    const workflow = workflowOf(`steps:\n${agentStep('a')}${agentStep('b', '    depends: [a]\n')}`);
    const record = await runWorkflow(workflow, { runStep: async (step) => (step.name === 'a' ? { output: { n: 1 }, usage: usage(1, 2, 0.5) } : Promise.reject(new RpcError('APP_NO', 'no'))) });
    const file = await writeRunRecord(dataDir, record);
    expect(file).toBe(join(dataDir, 'runs', 'test-flow', `${record.runId}.json`));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(record);
    expect(readdirSync(join(dataDir, 'runs', 'test-flow'))).toEqual([`${record.runId}.json`]);
    await expect(writeRunRecord(dataDir, { ...record, runId: '../escape' })).rejects.toThrow(TypeError);
  });
});
