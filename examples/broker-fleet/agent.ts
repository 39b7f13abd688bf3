/**
 * One agent of the broker fleet, configured by environment variables, so the same program
 * runs as either agent in docker-compose or from a shell:
 *   AGENT_ID=greeter TRANSPORT=nats NATS_URL=nats://127.0.0.1:4222 node dist/examples/broker-fleet/agent.js
 *   AGENT_ID=caller  TRANSPORT=kafka KAFKA_BROKERS=127.0.0.1:9092 CALL=greeter node dist/examples/broker-fleet/agent.js
 * Every agent serves `greet`; with CALL set it also calls that peer every second and
 * prints each call's status, correlationId and latency.
 */
import { AgentNode } from '../../src/index.js';
import type { RpcTransport } from '../../src/entry-points/transport.js';

async function transportFromEnv(agentId: string): Promise<RpcTransport> {
  const kind = process.env.TRANSPORT ?? 'nats';
  if (kind === 'nats') {
    const { natsTransport } = await import('../../transports/nats/index.js');
    return natsTransport({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  }
  if (kind === 'kafka') {
    const { kafkaTransport } = await import('../../transports/kafka/index.js');
    return kafkaTransport({ brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), clientId: agentId });
  }
  throw new TypeError(`TRANSPORT must be nats or kafka, got ${kind}`);
}

const id = process.env.AGENT_ID;
if (!id) throw new TypeError('AGENT_ID is required');
const transport = await transportFromEnv(id);
const target = process.env.CALL;
const node = new AgentNode({
  id,
  instanceId: process.env.INSTANCE_ID ?? process.env.HOSTNAME?.replace(/[^A-Za-z0-9_-]/g, '-'),
  transports: [transport],
  peers: target ? [{ id: target, routes: [{ kind: transport.kind }] }] : [],
});
node.handle<{ name: string }>('greet', (input) => ({ greeting: `hello ${input.name}, from ${id}` }));
await node.start();
console.log(`${id} serving greet over ${transport.kind}`);

async function greetPeer(peer: string): Promise<void> {
  const result = await node.requestAgent({ to: peer, capability: 'greet', payload: { name: id }, timeoutMs: 5_000 });
  const detail = result.status === 'ok' ? JSON.stringify(result.response) : result.error?.code;
  console.log(`${id} → ${peer}/greet status=${result.status} correlationId=${result.correlationId} latency=${result.latencyMs.toFixed(2)}ms ${detail}`);
}

// A failed call is a result, not a rejection; what still rejects (a caller mistake) is logged,
// not left to end the process as an unhandled rejection.
const timer = target
  ? setInterval(() => {
      greetPeer(target).catch((error: unknown) => console.error(`${id} could not call ${target}:`, error));
    }, 1_000)
  : undefined;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(timer);
    void node.close().then(() => process.exit(0));
  });
}
