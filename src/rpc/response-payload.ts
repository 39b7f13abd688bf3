import { isWireError, type WireError } from '../errors.js';

/**
 * A question a handler asks up the call chain, carried by a progress response: `id` is the
 * key the answer settles (the asker waits for it like for a call's reply), `replyTo` the
 * asking instance's own reply address, where the answer goes.
 */
export interface ApprovalRequestWire {
  readonly id: string;
  readonly question: string;
  readonly replyTo: string;
  readonly type: string;
}

/**
 * The payload of every response envelope. `progress: true` marks an intermediate answer;
 * the caller settles on the first response without it. Errors are always final. A progress
 * response with `approval` asks the caller a question instead of reporting progress.
 */
export type ResponsePayload =
  | { approval?: ApprovalRequestWire; ok: true; data: unknown; progress?: true }
  | { ok: false; error: WireError };

/** Returns the payload if it has the response shape, otherwise undefined. */
export function asResponsePayload(value: unknown): ResponsePayload | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (v.ok === true) {
    if (!('data' in v)) return undefined;
    if (v.progress !== undefined && v.progress !== true) return undefined;
    if (v.approval !== undefined && (v.progress !== true || !isApprovalRequest(v.approval))) return undefined;
    return v as ResponsePayload;
  }
  if (v.ok === false && isWireError(v.error)) return v as ResponsePayload;
  return undefined;
}

function isApprovalRequest(value: unknown): value is ApprovalRequestWire {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.question === 'string' && typeof v.replyTo === 'string' && typeof v.type === 'string';
}
