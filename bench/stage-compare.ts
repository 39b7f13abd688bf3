/**
 * The envelope stages, and a whole sync call on the memory transport, of this build against
 * another build of agent-rpc, in one process:
 * `node dist/bench/stage-compare.js <other>/dist [--rounds 9] [--ops 50000]`.
 *
 * On a shared, busy machine two processes run minutes apart see different machines; here
 * each round runs every stage of both builds back to back (which goes first alternates),
 * timed in CPU time, and the medians over the rounds are compared. Both builds encode the
 * same sample request (the stage budget's) and sign with the same key.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_PAYLOAD } from './payload.js';
import { syncCallRequest } from './sync-call-envelope.js';

type Envelope = typeof import('../src/envelope/index.js');
type Hmac = typeof import('../src/auth/hmac-provider.js');
type Scan = typeof import('../src/envelope/json-scan.js');
type Library = typeof import('../src/index.js');
type Memory = typeof import('../transports/memory/index.js');
type Stages = Record<string, () => unknown>;

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '9' }, ops: { type: 'string', default: '50000' } },
});
if (positionals.length !== 1) throw new TypeError('usage: stage-compare.js <dist directory of the other build> [--rounds N] [--ops N]');
const rounds = Number(args.rounds);
const ops = Number(args.ops);
const key = new Map([['bench', randomBytes(32)]]);

const closers: Array<() => Promise<void>> = [];

/** Sequential sync calls between two nodes of the build on one bus, as the stage budget's whole call. */
async function wholeCall(library: Library, memory: Memory, signed: boolean): Promise<() => Promise<unknown>> {
  const bus = new memory.MemoryBus();
  const peers = new library.PeerTable([{ id: 'echo', routes: [{ kind: 'memory' }] }]);
  const auth = signed ? { auth: library.hmacAuth({ keys: key, signingKeyId: 'bench' }) } : {};
  const caller = new library.AgentNode({ id: 'caller', transports: [memory.memoryTransport({ bus })], peers, ...auth });
  const echo = new library.AgentNode({ id: 'echo', transports: [memory.memoryTransport({ bus })], peers, ...auth });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  closers.push(() => caller.close(), () => echo.close());
  return async () => {
    const result = await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD });
    if (result.status !== 'ok') throw new Error(`a call ended ${result.status}`);
  };
}

async function stagesOf(dist: string): Promise<Stages> {
  const at = (path: string): string => pathToFileURL(resolve(dist, path)).href;
  const envelope = (await import(at('src/envelope/index.js'))) as Envelope;
  const library = (await import(at('src/index.js'))) as Library;
  const memory = (await import(at('transports/memory/index.js'))) as Memory;
  const { hmacAuth } = (await import(at('src/auth/hmac-provider.js'))) as Hmac;
  const { scanJson } = (await import(at('src/envelope/json-scan.js'))) as Scan;
  const signer = hmacAuth({ keys: key, signingKeyId: 'bench' });
  let verifier = hmacAuth({ keys: key });
  const sample = syncCallRequest();
  const plain = envelope.encodeEnvelope(sample);
  const signed = envelope.encodeEnvelope((await signer.attach!(sample)) as typeof sample);
  // Each verify a new message, as received: decoded from the bytes this build writes.
  const received = Array.from({ length: ops }, (_, i) => {
    const decoded = envelope.decodeEnvelope(envelope.encodeEnvelope(signer.attach!(syncCallRequest(`m-${i}`)) as typeof sample));
    if (!decoded.ok) throw new Error('a signed envelope did not decode');
    return { envelope: decoded.envelope, context: { deliveryId: `d-${i}`, signedTail: decoded.signedTail } };
  });
  let next = 0;
  return {
    'scan (plain)': () => scanJson(plain, 64),
    'scan (canonical form checked)': () => scanJson(signed, 64, true),
    'decode (strict, limits)': () => envelope.decodeEnvelope(plain),
    'decode, signed': () => envelope.decodeEnvelope(signed),
    encode: () => envelope.encodeEnvelope(sample),
    'sign (hmac attach)': () => signer.attach!(sample),
    'verify (hmac, bytes as received)': () => {
      // A fresh replay memory for every pass over the messages, so each verify is of a new one.
      if (next % ops === 0) verifier = hmacAuth({ keys: key });
      const { envelope: message, context } = received[next++ % ops]!;
      return verifier.verify!(message, context);
    },
    'whole sync call, memory, C=1': await wholeCall(library, memory, false),
    'whole sync call, memory, HMAC, C=1': await wholeCall(library, memory, true),
  };
}

let sink: unknown;

/** CPU µs per call of `run`, over `ops` calls (awaited one by one when it returns a promise). */
async function cpuPerOp(run: () => unknown): Promise<number> {
  const asynchronous = run() instanceof Promise;
  const before = process.cpuUsage();
  if (asynchronous) for (let i = 1; i < ops; i++) sink = await run();
  else for (let i = 1; i < ops; i++) sink = run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (ops - 1);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

async function main(): Promise<void> {
  const builds: Array<[string, Stages]> = [
    ['other', await stagesOf(positionals[0]!)],
    ['this', await stagesOf(resolve(import.meta.dirname, '..'))],
  ];
  console.log(`envelope stages, this build against ${positionals[0]}, node ${process.version}: CPU µs per op, median of ${rounds} rounds of ${ops}`);
  console.log('| stage | other | this | this / other |');
  console.log('|---|---|---|---|');
  for (const stage of Object.keys(builds[0]![1])) {
    const times: number[][] = [[], []];
    for (const [, stages] of builds) await cpuPerOp(stages[stage]!); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const b of order) times[b]!.push(await cpuPerOp(builds[b]![1][stage]!));
    }
    const [other, mine] = times.map(median) as [number, number];
    console.log(`| ${stage} | ${other.toFixed(2)} | ${mine.toFixed(2)} | ${(mine / other).toFixed(2)} |`);
  }
  for (const close of closers) await close();
  void sink;
}

await main();
