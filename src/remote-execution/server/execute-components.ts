import type { ExecutionStore } from '../../rpc/index.js';
import type { SecretValue } from '../../secrets/index.js';
import { inlineCredentialAt, type ComponentRef, type ExecuteContext } from '../../remote-nodes/index.js';
import type { RedisConnections } from './redis-execution-store.js';

/** The component classes a worker knows (docs/remote-execution.md). */
export const COMPONENT_CLASSES = {
  /** A key-value store in Redis; config `{connection_ref, key_prefix?}`. */
  redisStore: 'agent_rpc.RedisStore',
  /** Tracing by the W3C `traceparent` of the request envelope; no config. */
  traceContext: 'agent_rpc.TraceContext',
  /** Approvals travel up the request's chain like any request's; no config. */
  approvals: 'agent_rpc.Approvals',
} as const;

/** Components that live in the executor's process and are refused by the executor before sending. */
export const LOCAL_ONLY_CLASSES = ['agent_rpc.LocalStore', 'agent_rpc.LocalTracing'] as const;

const KNOWN: Record<'store' | 'tracing' | 'feedback', string> = {
  store: COMPONENT_CLASSES.redisStore,
  tracing: COMPONENT_CLASSES.traceContext,
  feedback: COMPONENT_CLASSES.approvals,
};

export interface ResolvedComponents {
  readonly store?: ExecutionStore;
}

/**
 * Turns the context's component references into the worker's own components: a
 * `connection_ref` is looked up in agent.yaml `execute.connections` (this worker's
 * secrets). Anything that looks like an inline credential, an unknown class or an
 * unknown reference is refused with a message naming the field; nothing is opened then.
 */
export function resolveComponents(context: ExecuteContext, connections: ReadonlyMap<string, SecretValue>, redis: RedisConnections): ResolvedComponents | { error: string } {
  for (const slot of ['store', 'tracing', 'feedback'] as const) {
    const ref = context[slot];
    if (!ref) continue;
    const credential = inlineCredentialAt(ref.config, `context.${slot}.config`);
    if (credential) return { error: `bad request: ${credential}: looks like an inline credential; give a connection_ref the worker resolves instead` };
    if (ref.__class__ !== KNOWN[slot]) return { error: `bad request: context.${slot}.__class__: unknown class ${ref.__class__} (this worker knows ${KNOWN[slot]})` };
  }
  const store = context.store ? redisStore(context.store, connections, redis) : undefined;
  if (store && 'error' in store) return store;
  for (const slot of ['tracing', 'feedback'] as const) {
    const extra = Object.keys(context[slot]?.config ?? {})[0];
    if (extra !== undefined) return { error: `bad request: context.${slot}.config.${extra}: ${KNOWN[slot]} takes no config` };
  }
  return store ? { store } : {};
}

function redisStore(ref: ComponentRef, connections: ReadonlyMap<string, SecretValue>, redis: RedisConnections): ExecutionStore | { error: string } {
  const { connection_ref: name, key_prefix: prefix, ...rest } = ref.config;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return { error: `bad request: context.store.config.${extra}: unknown field (${COMPONENT_CLASSES.redisStore} takes connection_ref and key_prefix)` };
  if (typeof name !== 'string') return { error: 'bad request: context.store.config.connection_ref: a string is required' };
  if (prefix !== undefined && typeof prefix !== 'string') return { error: 'bad request: context.store.config.key_prefix: must be a string' };
  const url = connections.get(name);
  if (!url) {
    const known = connections.size > 0 ? `known: ${[...connections.keys()].join(', ')}` : 'this worker has no execute.connections';
    return { error: `bad request: context.store.config.connection_ref: unknown connection ${name}; ${known}` };
  }
  return redis.store(name, url.reveal(), prefix ?? 'agent-rpc:store:');
}
