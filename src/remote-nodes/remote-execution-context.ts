import { RpcError } from '../errors.js';
import type { Usage } from '../flow-usage.js';
import type { ExecutionMessage } from '../rpc/index.js';
import { inlineCredentialAt, type ComponentRef } from './execute-request.js';

/**
 * A component of an execution context (store, tracing, feedback). A worker receives it by
 * reference only — a class name and a config without secrets — so a component that lives
 * in this process alone says `remote: false` and is refused before anything is sent.
 */
export interface ContextComponent {
  readonly remote: boolean;
  /** The reference a worker resolves with its own configuration. */
  reference(): ComponentRef;
}

/** A key-value store in Redis, named by a connection reference each side maps to its own credentials. */
export class RedisStoreRef implements ContextComponent {
  readonly remote = true;
  constructor(
    readonly connectionRef: string,
    readonly keyPrefix?: string,
  ) {}
  reference(): ComponentRef {
    return { __class__: 'agent_rpc.RedisStore', config: { connection_ref: this.connectionRef, ...(this.keyPrefix !== undefined ? { key_prefix: this.keyPrefix } : {}) } };
  }
}

/** Tracing by the W3C trace context: the context's `trace_id` becomes the request's traceparent. */
export class TraceContextTracing implements ContextComponent {
  readonly remote = true;
  reference(): ComponentRef {
    return { __class__: 'agent_rpc.TraceContext', config: {} };
  }
}

/** A store in this process's files: it cannot be reached from a worker. */
export class LocalStore implements ContextComponent {
  readonly remote = false;
  constructor(readonly dir: string) {}
  reference(): ComponentRef {
    return { __class__: 'agent_rpc.LocalStore', config: {} };
  }
}

/** Tracing into this process (its logger, a local file): it cannot follow a step to a worker. */
export class LocalTracing implements ContextComponent {
  readonly remote = false;
  reference(): ComponentRef {
    return { __class__: 'agent_rpc.LocalTracing', config: {} };
  }
}

/** What an agent step runs with; `HttpRemoteAgent.execute` appends the worker's delta to it. */
export interface ExecutionContext {
  /** 32 lowercase hex digits: the W3C trace id the step's request continues. */
  traceId?: string;
  /** The step's id: the request envelope's messageId (1-128 of [A-Za-z0-9._:-]). */
  stepId?: string;
  /** The step that caused this one: the envelope's causedBy. */
  parentStepId?: string;
  messages: ExecutionMessage[];
  thoughts: string[];
  usage: Usage[];
  store?: ContextComponent;
  tracing?: ContextComponent;
  feedback?: ContextComponent;
}

/** Thrown before anything is sent when a context component cannot leave this process. */
export class RemoteExecutionNotSupportedError extends RpcError {
  constructor(readonly component: string) {
    super('EAGENTRPC_REMOTE_EXECUTION_NOT_SUPPORTED', `context.${component} is local to this process and cannot be used by a remote worker`, { details: { component } });
    this.name = 'RemoteExecutionNotSupportedError';
  }
}

/** The context as the protocol carries it. Components go by reference; a local-only one throws. */
export function serializeContext(context: ExecutionContext): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    ...(context.traceId !== undefined ? { trace_id: context.traceId } : {}),
    ...(context.stepId !== undefined ? { step_id: context.stepId } : {}),
    ...(context.parentStepId !== undefined ? { parent_step_id: context.parentStepId } : {}),
    messages: context.messages,
    thoughts: context.thoughts,
    usage: context.usage,
  };
  for (const slot of ['store', 'tracing', 'feedback'] as const) {
    const component = context[slot];
    if (!component) continue;
    if (!component.remote) throw new RemoteExecutionNotSupportedError(slot);
    const reference = component.reference();
    // A credential in a reference would travel: refused here as a caller mistake.
    const credential = inlineCredentialAt(reference.config, `context.${slot}.config`);
    if (credential) throw new TypeError(`${credential}: looks like an inline credential; use a connection reference`);
    wire[slot] = reference;
  }
  return wire;
}

/** The worker's delta, appended to the executor's context. */
export function mergeDelta(context: ExecutionContext, delta: unknown): void {
  if (typeof delta !== 'object' || delta === null) return;
  const { messages, thoughts, usage } = delta as { messages?: unknown; thoughts?: unknown; usage?: unknown };
  if (Array.isArray(messages)) context.messages.push(...(messages as ExecutionMessage[]));
  if (Array.isArray(thoughts)) context.thoughts.push(...(thoughts as string[]));
  if (Array.isArray(usage)) context.usage.push(...(usage as Usage[]));
}
