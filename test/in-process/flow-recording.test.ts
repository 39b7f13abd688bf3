import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { RpcError } from '../../src/errors.js';
import { FlowRecorder } from '../../src/flow-recording/flow-recorder.js';
import { FlowRecordStore } from '../../src/flow-recording/flow-record-store.js';
import { flowTreeLines } from '../../src/flow-recording/flow-tree.js';
import type { FlowView } from '../../src/flow-recording/flow-view.js';
import { startNodeHttpServer, type NodeHttpServer } from '../../src/http-server/http-server.js';
import { flowRoutes } from '../../src/flow-recording/front-door/flow-routes.js';
import { MemoryFleet, gate } from '../support/fleet.js';

let fleet: MemoryFleet;
let store: FlowRecordStore;
let http: NodeHttpServer;
let base: string;

beforeEach(async () => {
  fleet = new MemoryFleet();
  store = new FlowRecordStore(systemClock);
  http = await startNodeHttpServer({ host: '127.0.0.1', port: 0, agent: 'test', ready: () => true, frontDoors: [flowRoutes({ store, scope: 'local' })] });
  base = `http://127.0.0.1:${http.port}`;
});
afterEach(async () => {
  await http.close();
  await fleet.close();
});

/** Every node of the fleet reports to one recorder, as the agents of one daemon do. */
async function node(id: string, permissions?: { allow?: string[]; deny?: string[] }) {
  return fleet.node(id, { flows: new FlowRecorder({ store, clock: systemClock }), ...(permissions ? { permissions } : {}) });
}

async function view(correlationId: string): Promise<FlowView> {
  const res = await fetch(`${base}/flows/${correlationId}.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as FlowView;
}

describe('flow pages - recording', () => {
  it('flow pages - a nested call, a failure and a refusal show as one flow with statuses, latency and its tree', async () => {
    const front = await node('front', { deny: ['RequestAgent:agent://vault/*'] });
    const reviewer = await node('reviewer');
    const linter = await node('linter');
    linter.handle('lint', () => ({ warnings: 1 }));
    linter.handle('explode', () => {
      throw new RpcError('EAGENTRPC_HANDLER_FAILED', 'lint crashed');
    });
    reviewer.handle('review', async (_input, ctx) => {
      await ctx.requestAgent({ to: 'linter', capability: 'lint', payload: {} });
      await ctx.requestAgent({ to: 'linter', capability: 'explode', payload: {} });
      return { verdict: 'ok' };
    });
    const result = await front.requestAgent({ to: 'reviewer', capability: 'review', payload: {} });
    expect(result.status).toBe('ok');
    const refused = await front.requestAgent({ to: 'vault', capability: 'open', payload: {} });
    expect(refused.error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');

    const flow = await view(result.correlationId);
    expect(flow.summary).toMatchObject({ agents: ['front', 'reviewer', 'linter'], calls: 3, failed: 1, status: 'failed' });
    const byCapability = Object.fromEntries(flow.calls.map((c) => [c.capability, c]));
    expect(byCapability['review']).toMatchObject({ from: 'front', to: 'reviewer', status: 'ok', call: { status: 'ok' }, handler: { status: 'ok' } });
    expect(byCapability['review']!.causedBy).toBeUndefined();
    expect(byCapability['lint']).toMatchObject({ from: 'reviewer', to: 'linter', status: 'ok', causedBy: byCapability['review']!.id });
    expect(byCapability['explode']).toMatchObject({ status: 'error', call: { errorCode: 'EAGENTRPC_HANDLER_FAILED' }, handler: { status: 'error' } });
    for (const call of flow.calls) expect(call.durationMs).toBeGreaterThan(0);

    const lines = flowTreeLines(flow);
    expect(lines[0]).toContain(`flow ${result.correlationId} failed`);
    expect(lines.slice(1).map((l) => l.replace(/ [\d.]+ ms/, ''))).toEqual([
      '└─ front → reviewer review ok',
      '   ├─ reviewer → linter lint ok',
      '   └─ reviewer → linter explode error EAGENTRPC_HANDLER_FAILED',
    ]);

    const denied = await view(refused.correlationId);
    expect(denied.calls).toMatchObject([{ from: 'front', to: 'vault', status: 'refused', call: { errorCode: 'EAGENTRPC_PERMISSION_DENIED' } }]);

    const list = (await (await fetch(`${base}/flows.json`)).json()) as { scope: string; flows: Array<{ correlationId: string; status: string }> };
    expect(list.scope).toBe('local');
    expect(list.flows.map((f) => f.correlationId)).toEqual([refused.correlationId, result.correlationId]);
    expect((await fetch(`${base}/flows/no-such-flow.json`)).status).toBe(404);
  });

  it('flow pages - the receiver side records refusals and dead letters; a call past its deadline shows as timeout', async () => {
    const front = await node('front');
    const back = await node('back');
    const release = gate();
    back.handle('stall', async () => {
      await release.promise;
      return 'late';
    });
    const unknown = await front.requestAgent({ to: 'back', capability: 'no-such-capability', payload: {} });
    expect(unknown.error?.code).toBe('EAGENTRPC_UNKNOWN_CAPABILITY');
    const stalled = await front.requestAgent({ to: 'back', capability: 'stall', payload: {}, timeoutMs: 50 });
    expect(stalled.status).toBe('timeout');
    release.open();

    const refused = (await view(unknown.correlationId)).calls[0]!;
    expect(refused).toMatchObject({ status: 'error', call: { errorCode: 'EAGENTRPC_UNKNOWN_CAPABILITY' }, handler: { status: 'refused', dlq: 'unknown-capability' } });
    const timedOut = (await view(stalled.correlationId)).calls[0]!;
    expect(timedOut).toMatchObject({ status: 'timeout', call: { status: 'timeout', errorCode: 'EAGENTRPC_TIMEOUT' } });
  });

  it('flow pages - the events stream sends the flow while it runs and again when it ends', async () => {
    const front = await node('front');
    const slow = await node('slow');
    const release = gate();
    const started = gate();
    slow.handle('wait', async () => {
      started.open();
      await release.promise;
      return 'done';
    });
    const call = front.requestAgent({ to: 'slow', capability: 'wait', payload: {} });
    await started.promise;
    const correlationId = store.recent()[0]!.correlationId;

    const abort = new AbortController();
    const res = await fetch(`${base}/flows/${correlationId}/events`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const events = (): FlowView[] => [...text.matchAll(/^event: flow\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as FlowView);
    const readUntil = async (done: () => boolean): Promise<void> => {
      while (!done()) text += (await reader.read()).value ?? '';
    };
    await readUntil(() => events().length >= 1);
    expect(events()[0]!.summary.status).toBe('running');
    expect(events()[0]!.calls[0]).toMatchObject({ capability: 'wait', status: 'running' });

    release.open();
    expect((await call).status).toBe('ok');
    await readUntil(() => events().some((e) => e.summary.status === 'ok'));
    expect(events().at(-1)!.calls[0]).toMatchObject({ status: 'ok', call: { status: 'ok' } });
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });

  it('flow pages - the pages and their assets are served from the node, with a policy that forbids anything else', async () => {
    const front = await node('front');
    (await node('echo')).handle('echo', (input) => input);
    const { correlationId } = await front.requestAgent({ to: 'echo', capability: 'echo', payload: { secret: 'never shown' } });

    const page = await fetch(`${base}/flows/${correlationId}`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain(`data-correlation-id="${correlationId}"`);
    for (const src of [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => m[1]!)) {
      expect(src.startsWith('/flows/assets/')).toBe(true);
      expect((await fetch(`${base}${src}`)).status).toBe(200);
    }
    expect(await (await fetch(`${base}/flows/assets/cytoscape.min.js`)).text()).toContain('cytoscape');
    const list = await (await fetch(`${base}/flows`)).text();
    expect(list).toContain(`href="/flows/${correlationId}"`);
    // Records are compact: no payloads anywhere.
    expect(JSON.stringify(await view(correlationId))).not.toContain('never shown');
    expect((await fetch(`${base}/flows`, { method: 'POST' })).status).toBe(405);
  });
});
