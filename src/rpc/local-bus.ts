import type { Logger } from '../logger.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { CallResult } from '../call-result.js';

/** What arrives on a node's local bus. */
export interface LocalBusEvents {
  /** The final outcome of an async-mode call (response, timeout or abandon). */
  'agent.rpc.response': CallResult & { requestId: string; capability: string; to: string };
  /** A progress response to an async-mode call. */
  'agent.rpc.progress': { requestId: string; correlationId: string; capability: string; data: unknown };
  /** An event-kind envelope (fire-and-forget) received by this node. */
  'agent.rpc.event': { envelope: AgentRpcEnvelope };
}

export type LocalBusEventName = keyof LocalBusEvents;
type Listener<K extends LocalBusEventName> = (event: LocalBusEvents[K]) => void;

/**
 * A small typed emitter. A listener that throws is logged and does not affect the
 * inbox or the other listeners.
 */
export class LocalBus {
  private readonly listeners = new Map<LocalBusEventName, Set<Listener<never>>>();

  constructor(private readonly logger: Logger) {}

  on<K extends LocalBusEventName>(name: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  emit<K extends LocalBusEventName>(name: K, event: LocalBusEvents[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as Listener<K>)(event);
      } catch (error) {
        this.logger.error({ err: error, event: name }, 'local bus listener threw');
      }
    }
  }
}
