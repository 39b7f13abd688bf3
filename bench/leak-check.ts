import { AgentNode, MemoryIdempotencyStore, PeerTable } from '../src/index.js';
import { MemoryBus, memoryTransport } from '../transports/memory/index.js';

export interface LeakFigures {
  calls: number;
  heapAfterWarmupMb: number;
  heapAfterAllMb: number;
  growthMb: number;
}

function heapMb(): number {
  // Two passes: the second collects what the first one's finalizers released.
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/**
 * Heap after all `calls` sync calls compared with the heap after the first `warmup` calls,
 * both after a full GC (node must run with --expose-gc).
 */
export async function leakCheck(calls: number, warmup: number, concurrency = 64): Promise<LeakFigures> {
  if (typeof global.gc !== 'function') throw new Error('leak check needs node --expose-gc');
  const bus = new MemoryBus();
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'memory' }] }]);
  const caller = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], peers });
  // The dedupe store remembers up to maxEntries replies by design (100,000 by default, about
  // 40 MB); bounding it at the warm-up size separates that cache from a leak.
  const idempotency = { store: new MemoryIdempotencyStore({ maxEntries: warmup }) };
  const echo = new AgentNode({ id: 'echo', transports: [memoryTransport({ bus })], peers, idempotency });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  const run = async (count: number): Promise<void> => {
    let left = count;
    const worker = async (): Promise<void> => {
      while (left > 0) {
        left--;
        const result = await caller.requestAgent({ to: 'echo', capability: 'echo', payload: { n: left, text: 'x'.repeat(100) } });
        if (result.status !== 'ok') throw new Error(`a call ended ${result.status}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  await run(warmup);
  const heapAfterWarmupMb = heapMb();
  await run(calls - warmup);
  const heapAfterAllMb = heapMb();
  await caller.close();
  await echo.close();
  return { calls, heapAfterWarmupMb, heapAfterAllMb, growthMb: heapAfterAllMb - heapAfterWarmupMb };
}
