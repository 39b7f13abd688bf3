import { randomBytes } from 'node:crypto';
import { hmacAuth, PrometheusMetrics, type AuthProvider, type RpcMetrics } from '../src/index.js';

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

/**
 * The node options and the label suffix a benchmarked configuration uses: every check a
 * default `agent-rpc serve` node has on (decode limits, dedupe, guard) and its Prometheus
 * metrics, one registry per benchmarked pair as a daemon has one per process.
 */
export function benchNodeOptions(auth: BenchAuth, flow: BenchFlow): { options: { auth?: AuthProvider; implicitFlow: boolean; metrics: RpcMetrics }; label: string } {
  const labels = [auth === 'hmac' ? 'hmac' : undefined, flow === 'ctx' ? 'implicitFlow off' : undefined].filter(Boolean);
  const metrics = new PrometheusMetrics({ processMetrics: false }).forAgent('bench');
  return { options: { ...benchAuthProvider(auth), implicitFlow: flow === 'implicit', metrics }, label: labels.length > 0 ? `, ${labels.join(', ')}` : '' };
}

/** The echo's answer is the payload sent: every benchmarked call checks it, not only its status. */
export function isEchoed(result: { status: string; response?: unknown }): boolean {
  return result.status === 'ok' && (result.response as { id?: unknown } | undefined)?.id === 'order-000042';
}
