import { randomBytes } from 'node:crypto';
import { hmacAuth, type AuthProvider } from '../src/index.js';

export const BENCH_AUTH = ['internal', 'hmac'] as const;
export type BenchAuth = (typeof BENCH_AUTH)[number];

const benchKey = new Map([['bench', randomBytes(32)]]);

/** The provider each benchmarked node signs and verifies with. */
export function benchAuthProvider(auth: BenchAuth): { auth?: AuthProvider } {
  return auth === 'hmac' ? { auth: hmacAuth({ keys: benchKey, signingKeyId: 'bench' }) } : {};
}

/**
 * `implicit`: the node default, handlers run in an AsyncLocalStorage flow context.
 * `ctx`: `implicitFlow: false`, the flow travels through `ctx` only (no promise hooks on Node < 24).
 */
export type BenchFlow = 'implicit' | 'ctx';

/** The node options and the label suffix a benchmarked configuration uses. */
export function benchNodeOptions(auth: BenchAuth, flow: BenchFlow): { options: { auth?: AuthProvider; implicitFlow: boolean }; label: string } {
  const labels = [auth === 'hmac' ? 'hmac' : undefined, flow === 'ctx' ? 'implicitFlow off' : undefined].filter(Boolean);
  return { options: { ...benchAuthProvider(auth), implicitFlow: flow === 'implicit' }, label: labels.length > 0 ? `, ${labels.join(', ')}` : '' };
}
