import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Splits a CPU profile (`node --cpu-prof`) of a bench run by who spent the time: the broker
 * transport (transports/<kind>, transports/shared), its client library, agent-rpc's core
 * (src/), socket writes, garbage collection, and the main thread idle while the broker and
 * the other processes run. Each sample goes to the nearest frame, from the leaf up, that has
 * an owner, so Node's own functions (Buffer, streams, promises) count for whoever called them;
 * socket writes are kept apart because with noDelay each is a system call of its own.
 *
 *   node --cpu-prof --cpu-prof-dir=prof dist/bench/main.js --transport amqp --only agent-rpc --concurrency 64 --seconds 10
 *   node dist/bench/profile-share.js prof/*.cpuprofile
 */

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const CLIENT_LIBRARIES = ['rabbitmq-client', '/mqtt/', '/mqtt-packet/', '/debug/', '/rfdc/', '/number-allocator/', '/bl/', '/readable-stream/', '/nats/', '/kafkajs/', '/@aws-sdk/'];
/** Node's socket write path: below it the time is the system call (and the peer woken on loopback). */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'Socket._writeGeneric', 'Socket._writev', 'Socket._write', 'writeGeneric', 'writevGeneric']);

export type Owner = 'transport' | 'client library' | 'core' | 'core: metrics (prom-client)' | 'bench loop' | 'other packages';

export function ownerOf(url: string): Owner | undefined {
  if (url === '' || url.startsWith('node:')) return undefined;
  if (url.includes('/transports/') || url.endsWith('/src/delivery.js')) return 'transport';
  if (url.includes('/node_modules/')) {
    if (CLIENT_LIBRARIES.some((name) => url.includes(name))) return 'client library';
    return url.includes('/prom-client/') ? 'core: metrics (prom-client)' : 'other packages';
  }
  if (url.includes('/src/')) return 'core';
  if (url.includes('/bench/')) return 'bench loop';
  return undefined;
}

/** Microseconds per owner (and per special row), from the profile's samples. */
export function profileShare(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const timeOf = new Map<number, number>();
  profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const share = new Map<string, number>();
  for (const [id, time] of timeOf) {
    const leaf = byId.get(id)!.callFrame.functionName;
    const row = leaf === '(idle)' ? 'idle (main thread waiting: broker, other processes)' : leaf === '(garbage collector)' ? 'garbage collection' : leaf === '(program)' ? 'V8 (program)' : ownerOnStack(id, byId, parent);
    share.set(row, (share.get(row) ?? 0) + time);
  }
  return share;
}

function ownerOnStack(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame;
    if (SOCKET_WRITES.has(frame.functionName) && ownerOf(frame.url) === undefined) return 'socket writes (system calls)';
    const owner = ownerOf(frame.url);
    if (owner !== undefined) return owner;
  }
  return 'Node runtime (event loop, module loading)';
}

function main(): void {
  const { positionals } = parseArgs({ allowPositionals: true });
  if (positionals.length === 0) {
    console.error('usage: node dist/bench/profile-share.js <file.cpuprofile>...');
    process.exit(2);
  }
  for (const file of positionals) {
    const share = profileShare(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    const total = [...share.values()].reduce((a, b) => a + b, 0);
    console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
    for (const [row, time] of [...share].sort((a, b) => b[1] - a[1])) console.log(`  ${((100 * time) / total).toFixed(1).padStart(5)}%  ${row}`);
  }
}

if (process.argv[1]?.endsWith('profile-share.js')) main();
