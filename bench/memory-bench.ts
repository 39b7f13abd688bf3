import { AgentNode, PeerTable, systemClock } from '../src/index.js';
import { FlowRecorder, FlowRecordStore } from '../src/entry-points/flow-recording.js';
import type { Delivery } from '../src/transport.js';
import { MemoryBus, memoryTransport } from '../transports/memory/index.js';
import { benchNodeOptions, isEchoed, type BenchAuth, type BenchFlow } from './bench-auth.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop, type LoadFigures } from './stats.js';

export interface BenchRun {
  system: string;
  concurrency: number;
  figures: LoadFigures;
}

/**
 * agent-rpc sync calls between two nodes on one in-process bus; the responder echoes.
 * `recorder`: both nodes report to one flow recorder, as the agents of a daemon do (its default).
 */
export async function benchAgentRpcMemory(concurrency: number, warmupMs: number, measureMs: number, auth: BenchAuth = 'internal', flow: BenchFlow = 'implicit', recorder = false): Promise<BenchRun> {
  const bus = new MemoryBus();
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'memory' }] }]);
  const { options, label } = benchNodeOptions(auth, flow);
  const flows = recorder ? { flows: new FlowRecorder({ store: new FlowRecordStore(systemClock), clock: systemClock }) } : {};
  const caller = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], peers, ...options, ...flows });
  const echo = new AgentNode({ id: 'echo', transports: [memoryTransport({ bus })], peers, ...options, ...flows });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  const figures = await closedLoop(
    async () => isEchoed(await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD })),
    concurrency,
    warmupMs,
    measureMs,
  );
  await caller.close();
  await echo.close();
  return { system: `agent-rpc sync call (memory${label}${recorder ? ', flow recorder' : ''})`, concurrency, figures };
}

/**
 * The floor: the same request/reply through the memory transport with no envelope,
 * registry or inbox — JSON bytes out, a responder publishing them back, matched by id.
 */
export async function benchRawMemory(concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const bus = new MemoryBus();
  const requester = memoryTransport({ bus });
  const responder = memoryTransport({ bus });
  const waiting = new Map<number, () => void>();
  let nextId = 0;
  await responder.subscribe('raw.requests', (d: Delivery) => {
    d.ack();
    void responder.publish('raw.replies', { body: d.body });
  }, { group: 'echo' });
  await requester.subscribe('raw.replies', (d: Delivery) => {
    d.ack();
    const id = (JSON.parse(Buffer.from(d.body).toString('utf8')) as { id: number }).id;
    waiting.get(id)?.();
    waiting.delete(id);
  });
  const figures = await closedLoop(
    () =>
      new Promise<boolean>((resolve) => {
        const id = nextId++;
        waiting.set(id, () => resolve(true));
        void requester.publish('raw.requests', { body: Buffer.from(JSON.stringify({ id, payload: BENCH_PAYLOAD })) });
      }),
    concurrency,
    warmupMs,
    measureMs,
  );
  await requester.close();
  await responder.close();
  return { system: 'raw memory transport request/reply', concurrency, figures };
}
