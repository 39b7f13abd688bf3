import { randomHex } from './envelope/index.js';

/**
 * W3C Trace Context (`traceparent: 00-<trace-id>-<parent-id>-<flags>`). Every request
 * carries one. With an OpenTelemetry SDK it names the caller's span (see RpcTracing), so a
 * flow across agents, processes and brokers is one trace in the backend; without one, a
 * call made inside a handler still continues the trace of the request being handled with
 * a new span id, for whoever reads the header downstream.
 */
export const TRACEPARENT_HEADER = 'traceparent';

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

export interface TraceParent {
  readonly traceId: string;
  readonly parentId: string;
  readonly flags: string;
}

/** Undefined for anything that is not a valid version-00 traceparent (the spec says: start a new trace). */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  const match = value === undefined ? null : TRACEPARENT_RE.exec(value);
  if (!match || match[1] === ZERO_TRACE || match[2] === ZERO_SPAN) return undefined;
  return { traceId: match[1]!, parentId: match[2]!, flags: match[3]! };
}

export function newSpanId(): string {
  return randomHex(8);
}

/** The traceparent for an outgoing request: a child of `parent` when valid, else a new sampled trace. */
export function childTraceparent(parent: string | undefined): string {
  const parsed = parseTraceparent(parent);
  if (parsed) return `00-${parsed.traceId}-${newSpanId()}-${parsed.flags}`;
  return `00-${randomHex(16)}-${newSpanId()}-01`;
}
