import { AgentNode, type AgentNodeOptions } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import type { RpcTransport } from '../../src/transport.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';

type NodeOptions = Omit<AgentNodeOptions, 'id' | 'transports' | 'peers'>;

/**
 * Agents on one in-process bus that all know each other. `raw()` gives a bare transport
 * on the same bus, for tests that play a misbehaving peer byte by byte.
 */
export class MemoryFleet {
  readonly bus = new MemoryBus();
  readonly peers = new PeerTable();
  private readonly nodes: AgentNode[] = [];
  private readonly transports: RpcTransport[] = [];

  async node(id: string, options: NodeOptions = {}): Promise<AgentNode> {
    this.peers.add({ id, routes: [{ kind: 'memory' }], ...(options.tenantId ? { tenantId: options.tenantId } : {}) });
    const node = new AgentNode({ id, transports: [memoryTransport({ bus: this.bus })], peers: this.peers, ...options });
    this.nodes.push(node);
    await node.start();
    return node;
  }

  async raw(): Promise<RpcTransport> {
    const transport = memoryTransport({ bus: this.bus });
    await transport.connect();
    this.transports.push(transport);
    return transport;
  }

  async close(): Promise<void> {
    for (const node of this.nodes) await node.close();
    for (const transport of this.transports) await transport.close();
  }
}

/** A promise with its resolver, for handlers a test wants to hold and release. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Resolves when `predicate` holds, checking on every turn of the event loop. */
export async function until(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
