import { AgentNode, type AgentNodeOptions } from '../rpc/agent-node.js';
import { PeerTable } from '../rpc/index.js';
import type { RpcTransport } from '../transport.js';

export type TestNodeOptions = Omit<AgentNodeOptions, 'id' | 'transports' | 'peers'>;

/**
 * Agents that all know each other, each on a transport from `transport()` (for example
 * `() => memoryTransport({ bus })` on one MemoryBus): a fleet for tests of handlers and
 * flows. `raw()` gives a bare transport, for tests that play a peer byte by byte.
 */
export class TestFleet {
  readonly peers = new PeerTable();
  private readonly nodes: AgentNode[] = [];
  private readonly transports: RpcTransport[] = [];

  constructor(private readonly transport: () => RpcTransport) {}

  async node(id: string, options: TestNodeOptions = {}): Promise<AgentNode> {
    const transport = this.transport();
    this.peers.add({ id, routes: [{ kind: transport.kind }], ...(options.tenantId ? { tenantId: options.tenantId } : {}) });
    const node = new AgentNode({ id, transports: [transport], peers: this.peers, ...options });
    this.nodes.push(node);
    await node.start();
    return node;
  }

  async raw(): Promise<RpcTransport> {
    const transport = this.transport();
    await transport.connect();
    this.transports.push(transport);
    return transport;
  }

  async close(): Promise<void> {
    for (const node of this.nodes) await node.close();
    for (const transport of this.transports) await transport.close();
  }
}
