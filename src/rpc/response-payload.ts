import { isWireError, type WireError } from '../errors.js';

/**
 * The payload of every response envelope. `progress: true` marks an intermediate answer;
 * the caller settles on the first response without it. Errors are always final.
 */
export type ResponsePayload =
  | { ok: true; data: unknown; progress?: true }
  | { ok: false; error: WireError };

/** Returns the payload if it has the response shape, otherwise undefined. */
export function asResponsePayload(value: unknown): ResponsePayload | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (v.ok === true) {
    if (!('data' in v)) return undefined;
    if (v.progress !== undefined && v.progress !== true) return undefined;
    return v as ResponsePayload;
  }
  if (v.ok === false && isWireError(v.error)) return v as ResponsePayload;
  return undefined;
}
