import { connect, type NatsConnection } from 'nats';
import { ServiceBroker } from 'moleculer';
import { AgentNode, PeerTable } from '../src/index.js';
import { benchNodeOptions, isEchoed, type BenchAuth, type BenchFlow } from './bench-auth.js';
import { natsTransport } from '../transports/nats/index.js';
import type { BenchRun } from './memory-bench.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

/**
 * Request/reply over one NATS server, responder in the same process, each system measured
 * the same way (closed loop, C calls in flight). See ../shared/BENCHMARKS.md for the method.
 */
export type NatsSystem = 'raw' | 'moleculer' | 'agent-rpc' | 'agent-rpc-hmac';

export async function benchNats(system: NatsSystem, url: string, concurrency: number, warmupMs: number, measureMs: number, flow: BenchFlow = 'implicit'): Promise<BenchRun> {
  const runners = {
    raw: rawNats,
    moleculer: moleculerNats,
    'agent-rpc': (u: string) => agentRpcNats(u, 'internal', flow),
    'agent-rpc-hmac': (u: string) => agentRpcNats(u, 'hmac', flow),
  };
  const { label, call, close } = await runners[system](url);
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

async function rawNats(url: string): Promise<Runner> {
  const responder: NatsConnection = await connect({ servers: url, noAsyncTraces: true });
  const requester: NatsConnection = await connect({ servers: url, noAsyncTraces: true });
  responder.subscribe('bench.echo', { callback: (_error, msg) => msg.respond(msg.data) });
  await responder.flush();
  const body = new TextEncoder().encode(JSON.stringify(BENCH_PAYLOAD));
  return {
    label: 'raw nats.js request (noAsyncTraces)',
    call: () => requester.request('bench.echo', body, { timeout: 10_000 }).then(() => true, () => false),
    close: async () => {
      await requester.close();
      await responder.close();
    },
  };
}

async function moleculerNats(url: string): Promise<Runner> {
  const options = { transporter: url, logger: false, serializer: 'JSON' } as const;
  const responder = new ServiceBroker({ ...options, nodeID: 'bench-responder' });
  responder.createService({ name: 'echo', actions: { echo: (ctx: { params: unknown }) => ctx.params } });
  const requester = new ServiceBroker({ ...options, nodeID: 'bench-requester' });
  await responder.start();
  await requester.start();
  await requester.waitForServices('echo');
  return {
    label: 'Moleculer 0.14 (NATS transporter, JSON)',
    call: () => requester.call('echo.echo', BENCH_PAYLOAD, { timeout: 10_000 }).then(() => true, () => false),
    close: async () => {
      await requester.stop();
      await responder.stop();
    },
  };
}

async function agentRpcNats(url: string, auth: BenchAuth, flow: BenchFlow): Promise<Runner> {
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'nats' }] }]);
  const { options, label } = benchNodeOptions(auth, flow);
  const echo = new AgentNode({ id: 'echo', transports: [natsTransport({ servers: url })], peers, ...options });
  const caller = new AgentNode({ id: 'caller', transports: [natsTransport({ servers: url })], peers, ...options });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: `agent-rpc sync call (NATS${label})`,
    call: async () => isEchoed(await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD })),
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
