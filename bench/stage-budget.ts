/**
 * The cost of one call, stage by stage: each stage of the send and receive paths timed in
 * isolation on the envelope a sync call carries, next to the CPU a whole call takes on the
 * memory transport. `npm run bench:stages` (on whichever Node runs it).
 */
import { randomBytes } from 'node:crypto';
import { FLOW_HEADER, RunawayGuard } from '../src/guard/index.js';
import { hmacAuth } from '../src/auth/hmac-provider.js';
import { canonicalizeForSigning, decodeEnvelope, encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../src/envelope/index.js';
import { MemoryIdempotencyStore } from '../src/idempotency/memory-store.js';
import { AgentNode, PeerTable, PrometheusMetrics } from '../src/index.js';
import type { StageTimes } from '../src/rpc/stage-runner.js';
import { MemoryBus, memoryTransport } from '../transports/memory/index.js';
import { BENCH_PAYLOAD } from './payload.js';
import { benchAuthProvider } from './bench-auth.js';
import { registerBenchTracing } from './bench-tracing.js';

const ROUNDS = 50_000;
let sink: unknown;

/** µs per operation of `run`, after a warm-up; `prepare` builds each round's input untimed. */
function perOp<T>(prepare: (i: number) => T, run: (input: T) => unknown): number {
  const inputs = Array.from({ length: ROUNDS }, (_, i) => prepare(i));
  for (let i = 0; i < 10_000; i++) sink = run(inputs[i % ROUNDS]!);
  const start = process.hrtime.bigint();
  for (const input of inputs) sink = run(input);
  return Number(process.hrtime.bigint() - start) / ROUNDS / 1000;
}

/** A request as a sync call sends it under internal auth (which attaches nothing). */
function request(messageId: string): AgentRpcEnvelope {
  const guard = new RunawayGuard();
  return {
    version: 1,
    kind: 'request',
    messageId,
    correlationId: newMessageId(),
    from: 'agent://caller',
    to: 'agent://echo',
    capability: 'echo',
    replyTo: 'memory://agents.caller.responses.0a1b2c3d4e5f',
    deadline: Date.now() + 30_000,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', [FLOW_HEADER]: guard.startFlow('agent://echo', Date.now()).header },
    payload: BENCH_PAYLOAD,
  };
}

/** CPU µs per round of `round`, run one after another: ROUNDS of them after a 10,000-round warm-up. */
async function cpuPerRound(round: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10_000; i++) await round();
  const before = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) await round();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ROUNDS;
}

/** CPU µs per message through the memory transport alone: raw request/reply, sequential, halved. */
async function transportOnly(): Promise<number> {
  const bus = new MemoryBus();
  const requester = memoryTransport({ bus });
  const responder = memoryTransport({ bus });
  const body = encodeEnvelope(request(newMessageId()));
  let answered: (() => void) | undefined;
  await responder.subscribe('raw.requests', (d) => {
    d.ack();
    void responder.publish('raw.replies', { body: d.body });
  }, { group: 'echo' });
  await requester.subscribe('raw.replies', (d) => {
    d.ack();
    answered?.();
  });
  const perCall = await cpuPerRound(
    () =>
      new Promise<void>((resolve) => {
        answered = resolve;
        void requester.publish('raw.requests', { body });
      }),
  );
  await requester.close();
  await responder.close();
  return perCall / 2;
}

/** Two nodes on one bus as a default `agent-rpc serve` has them (metrics on), optionally timing their stages. */
async function echoPair(signed: boolean, stageTimes?: StageTimes): Promise<{ caller: AgentNode; echo: AgentNode; close: () => Promise<void> }> {
  const auth = benchAuthProvider(signed ? 'hmac' : 'internal');
  const bus = new MemoryBus();
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'memory' }] }]);
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const options = { peers, ...auth, ...(stageTimes ? { stageTimes } : {}) };
  const caller = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], metrics: metrics.forAgent('caller'), ...options });
  const echo = new AgentNode({ id: 'echo', transports: [memoryTransport({ bus })], metrics: metrics.forAgent('echo'), ...options });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return { caller, echo, close: async () => (await caller.close(), await echo.close()) };
}

const echoCall = (caller: AgentNode) => () => caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD });

/** CPU µs per sync call between two nodes on one bus, sequential (C=1). */
async function wholeCall(signed: boolean): Promise<number> {
  const { caller, close } = await echoPair(signed);
  const perCall = await cpuPerRound(echoCall(caller));
  await close();
  return perCall;
}

/**
 * The stages a default node runs, in order, each with the µs of its own synchronous work
 * per call (the receive stages run twice a call: on the request at the callee, on the
 * response at the caller; a stage a response never reaches counts once).
 */
async function stageList(signed: boolean): Promise<string[]> {
  const times: StageTimes = { totals: new Map() };
  const { caller, echo, close } = await echoPair(signed, times);
  const call = echoCall(caller);
  for (let i = 0; i < 10_000; i++) await call();
  times.totals.clear();
  for (let i = 0; i < ROUNDS; i++) await call();
  const perCall = (key: string): string => (Number(times.totals.get(key)?.ns ?? 0n) / ROUNDS / 1000).toFixed(2);
  const lines = [`| send stage (caller) | µs per call |`, '|---|---|', ...caller.stages.send.map((name) => `| ${name} | ${perCall(`send:${name}`)} |`)];
  lines.push('', `| receive stage (callee and caller) | µs per call |`, '|---|---|', ...echo.stages.receive.map((name) => `| ${name} | ${perCall(`receive:${name}`)} |`));
  lines.push('', `middleware around handlers and calls, outermost first: ${echo.stages.middleware.join(' → ') || '(none)'}`);
  await close();
  return lines;
}

/** A signed request as a receiver has it: decoded from the wire, with the bytes' canonical tail. */
function signedAsReceived(signer: ReturnType<typeof hmacAuth>, i: number): { envelope: AgentRpcEnvelope; signedTail: Uint8Array | undefined; id: string } {
  const decoded = decodeEnvelope(encodeEnvelope(signer.attach!(request(`m-${i}`)) as AgentRpcEnvelope));
  if (!decoded.ok) throw new Error('a signed envelope did not decode');
  return { envelope: decoded.envelope, signedTail: decoded.signedTail, id: `d-${i}` };
}

async function main(): Promise<void> {
  // `--tracing`: the OpenTelemetry SDK registered, every call traced (see bench-tracing.ts).
  const tracing = process.argv.includes('--tracing');
  if (tracing) await registerBenchTracing();
  const key = new Map([['bench', randomBytes(32)]]);
  const signer = hmacAuth({ keys: key, signingKeyId: 'bench' });
  const verifier = hmacAuth({ keys: key });
  const sample = request(newMessageId());
  const encoded = encodeEnvelope(sample);
  const guard = new RunawayGuard();
  const store = new MemoryIdempotencyStore();
  const OWNER = { instance: 'bench', life: 'one' };

  // Each stage once per envelope; a call carries two envelopes (request, response).
  const stages: Array<[string, number]> = [
    ['decode (strict, limits)', perOp(() => encoded, (bytes) => decodeEnvelope(bytes))],
    ['encode', perOp(() => sample, (envelope) => encodeEnvelope(envelope))],
    ['canonicalize for signing', perOp(() => sample, (envelope) => canonicalizeForSigning(envelope))],
    ['sign (hmac attach)', perOp(() => sample, (envelope) => signer.attach!(envelope))],
    ['verify (hmac, bytes as received: canonical)', perOp((i) => signedAsReceived(signer, i), ({ envelope, signedTail, id }) => verifier.verify!(envelope, { deliveryId: id, signedTail }))],
    ['verify (hmac, other writers: canonicalize)', perOp((i) => signedAsReceived(signer, i), ({ envelope, id }) => verifier.verify!(envelope, { deliveryId: id }))],
    ['guard (receiver admit)', perOp(() => sample, (envelope) => guard.admit(envelope, Date.now()))],
    ['dedupe (claim + complete)', perOp((i) => `k-${i}`, (id) => {
      store.claim(id, 60_000, OWNER);
      return store.complete(id, undefined, 60_000);
    })],
  ];
  const list = await stageList(false);
  const transport = await transportOnly();
  const internal = await wholeCall(false);
  const signed = await wholeCall(true);
  const timed = (name: string): number => stages.find(([stage]) => stage.startsWith(name))![1];
  // What a call does besides the stages timed above, each twice (request and response):
  // handler dispatch, the pending registry, promises, flow context, metrics.
  const rest = internal - 2 * (timed('decode') + timed('encode') + timed('guard') + timed('dedupe') + transport);
  console.log(`agent-rpc stage budget, node ${process.version}${tracing ? ', tracing' : ''}, ${ROUNDS} rounds each`);
  console.log('| stage (per envelope) | µs |');
  console.log('|---|---|');
  for (const [name, us] of stages) console.log(`| ${name} | ${us.toFixed(2)} |`);
  console.log(`| transport (memory, raw publish + delivery, CPU) | ${transport.toFixed(2)} |`);
  console.log(`| dispatch, pending registry, promises, flow context (per call: the rest) | ${rest.toFixed(1)} |`);
  console.log(`| whole sync call, memory, C=1, CPU | ${internal.toFixed(1)} |`);
  console.log(`| whole sync call, memory, HMAC, C=1, CPU | ${signed.toFixed(1)} |`);
  console.log(`\nThe pipeline of a default node (metrics on, internal auth), its stages timed inside a sync call (C=1):\n`);
  for (const line of list) console.log(line);
  void sink;
}

await main();
