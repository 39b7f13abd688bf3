import { randomBytes } from 'node:crypto';
import { hmacAuth, type AuthProvider } from '../src/index.js';

export const BENCH_AUTH = ['internal', 'hmac'] as const;
export type BenchAuth = (typeof BENCH_AUTH)[number];

const benchKey = new Map([['bench', randomBytes(32)]]);

/** The provider each benchmarked node signs and verifies with. */
export function benchAuthProvider(auth: BenchAuth): { auth?: AuthProvider } {
  return auth === 'hmac' ? { auth: hmacAuth({ keys: benchKey, signingKeyId: 'bench' }) } : {};
}
