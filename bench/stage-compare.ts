/**
 * The envelope stages of this build against another build of agent-rpc, in one process:
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
import { syncCallRequest } from './sync-call-envelope.js';

type Envelope = typeof import('../src/envelope/index.js');
type Hmac = typeof import('../src/auth/hmac-provider.js');
type Scan = typeof import('../src/envelope/json-scan.js');
type Stages = Record<string, () => unknown>;

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '9' }, ops: { type: 'string', default: '50000' } },
});
if (positionals.length !== 1) throw new TypeError('usage: stage-compare.js <dist directory of the other build> [--rounds N] [--ops N]');
const rounds = Number(args.rounds);
const ops = Number(args.ops);
const key = new Map([['bench', randomBytes(32)]]);

async function stagesOf(dist: string): Promise<Stages> {
  const at = (path: string): string => pathToFileURL(resolve(dist, path)).href;
  const envelope = (await import(at('src/envelope/index.js'))) as Envelope;
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
  };
}

let sink: unknown;

/** CPU µs per call of `run`, over `ops` calls. */
function cpuPerOp(run: () => unknown): number {
  const before = process.cpuUsage();
  for (let i = 0; i < ops; i++) sink = run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ops;
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
    for (const [, stages] of builds) cpuPerOp(stages[stage]!); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const b of order) times[b]!.push(cpuPerOp(builds[b]![1][stage]!));
    }
    const [other, mine] = times.map(median) as [number, number];
    console.log(`| ${stage} | ${other.toFixed(2)} | ${mine.toFixed(2)} | ${(mine / other).toFixed(2)} |`);
  }
  void sink;
}

await main();
