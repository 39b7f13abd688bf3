/**
 * Bytes allocated per operation on the JS heap: the envelope stages (decode, encode, sign,
 * verify) on the envelope a sync call carries, and one whole sync call on the memory
 * transport with and without HMAC, with the functions that allocate most in a whole call.
 * `npm run bench:alloc [-- --ops N --interval BYTES --sites K]` (on whichever Node runs it).
 *
 * The first row allocates a known amount (a 100-element array: 848 bytes on 64-bit V8
 * without pointer compression), so a run shows whether the method counts what it should.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { hmacAuth } from '../src/auth/hmac-provider.js';
import { decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../src/envelope/index.js';
import { AgentNode, PeerTable } from '../src/index.js';
import { MemoryBus, memoryTransport } from '../transports/memory/index.js';
import { measureAllocations, opsCalled, type AllocationFigures, type AllocationOptions } from './allocation-sampler.js';
import { benchAuthProvider } from './bench-auth.js';
import { BENCH_PAYLOAD } from './payload.js';
import { syncCallRequest } from './sync-call-envelope.js';

const { values: args } = parseArgs({
  options: {
    ops: { type: 'string', default: '20000' },
    interval: { type: 'string', default: '256' },
    sites: { type: 'string', default: '15' },
  },
});
const options: AllocationOptions = { ops: Number(args.ops), samplingInterval: Number(args.interval), sites: Number(args.sites) };
const ops = options.ops!;

function signedAsReceived(signer: ReturnType<typeof hmacAuth>, i: number): { envelope: AgentRpcEnvelope; signedTail: Uint8Array | undefined; id: string } {
  const decoded = decodeEnvelope(encodeEnvelope(signer.attach!(syncCallRequest(`m-${i}`)) as AgentRpcEnvelope));
  if (!decoded.ok) throw new Error('a signed envelope did not decode');
  return { envelope: decoded.envelope, signedTail: decoded.signedTail, id: `d-${i}` };
}

/** Sequential sync calls between two nodes on one bus, as the stage budget's whole call. */
async function wholeCall(signed: boolean): Promise<AllocationFigures> {
  const bus = new MemoryBus();
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'memory' }] }]);
  const auth = benchAuthProvider(signed ? 'hmac' : 'internal');
  const caller = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], peers, ...auth });
  const echo = new AgentNode({ id: 'echo', transports: [memoryTransport({ bus })], peers, ...auth });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  try {
    return await measureAllocations(async () => {
      const result = await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD });
      if (result.status !== 'ok') throw new Error(`a call ended ${result.status}`);
    }, { ...options, warmup: 10_000 });
  } finally {
    await caller.close();
    await echo.close();
  }
}

function printSites(title: string, figures: AllocationFigures): void {
  console.log(`\n${title}: ${figures.bytesPerOp.toFixed(0)} bytes per call; the functions that allocate most (self):`);
  console.log('| bytes/call | share | function | where | called from |');
  console.log('|---|---|---|---|---|');
  for (const site of figures.sites) {
    console.log(`| ${site.bytesPerOp.toFixed(0)} | ${(site.share * 100).toFixed(1)}% | ${site.functionName} | ${site.location} | ${site.caller} |`);
  }
}

async function main(): Promise<void> {
  const key = new Map([['bench', randomBytes(32)]]);
  const signer = hmacAuth({ keys: key, signingKeyId: 'bench' });
  const verifier = hmacAuth({ keys: key });
  const sample = syncCallRequest();
  const encoded = encodeEnvelope(sample);
  const signedBytes = encodeEnvelope(signer.attach!(sample) as AgentRpcEnvelope);
  // Prepared before measuring, so only verify's own allocations count: each a new message.
  const received = Array.from({ length: opsCalled(options) }, (_, i) => signedAsReceived(signer, i));
  let calibration: unknown;

  const rows: Array<[string, AllocationFigures]> = [
    ['calibration: new Array(100).fill(0), 848 B expected', await measureAllocations(() => (calibration = new Array(100).fill(0)), options)],
    [`decode (strict, limits), ${encoded.byteLength} B`, await measureAllocations(() => decodeEnvelope(encoded), options)],
    [`decode, signed as this runtime writes it, ${signedBytes.byteLength} B`, await measureAllocations(() => decodeEnvelope(signedBytes), options)],
    ['encode', await measureAllocations(() => encodeEnvelope(sample), options)],
    ['sign (hmac attach)', await measureAllocations(() => signer.attach!(sample), options)],
    ['verify (hmac, bytes as received)', await measureAllocations((i) => verifier.verify!(received[i]!.envelope, { deliveryId: received[i]!.id, signedTail: received[i]!.signedTail }), options)],
  ];
  const internal = await wholeCall(false);
  const hmac = await wholeCall(true);
  rows.push(['whole sync call, memory, C=1', internal], ['whole sync call, memory, HMAC, C=1', hmac]);

  console.log(`agent-rpc allocations, node ${process.version}, ${ops} operations each, sampling every ${options.samplingInterval} B`);
  console.log('| operation | bytes allocated per op |');
  console.log('|---|---|');
  for (const [name, figures] of rows) console.log(`| ${name} | ${figures.bytesPerOp.toFixed(0)} |`);
  printSites('whole sync call, memory', internal);
  printSites('whole sync call, memory, HMAC', hmac);
  void calibration;
}

await main();
