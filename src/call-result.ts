import type { RpcError } from './errors.js';
import type { Usage } from './flow-usage.js';

export const CALL_STATUSES = ['ok', 'error', 'timeout', 'abandoned', 'busy', 'schema-violation'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const CALL_MODES = ['sync', 'async', 'fire-and-forget'] as const;
export type CallMode = (typeof CALL_MODES)[number];

/** What requestAgent resolves to. It never rejects for a failed call, only for caller mistakes. */
export interface CallResult<T = unknown> {
  status: CallStatus;
  /** The final response's data when status is `ok` and a response was awaited (sync). */
  response?: T;
  error?: RpcError;
  correlationId: string;
  /** The request envelope's messageId (unset when nothing was sent). */
  messageId?: string;
  latencyMs: number;
  /** Tokens and cost of everything the call caused (its model agent, the calls that made), when the response said. */
  usage?: Usage;
}

/** Maps an error code to the status a caller sees. */
export function statusForError(error: RpcError): CallStatus {
  switch (error.code) {
    case 'EAGENTRPC_TIMEOUT':
      return 'timeout';
    case 'EAGENTRPC_ABANDONED':
      return 'abandoned';
    case 'EAGENTRPC_BUSY':
      return 'busy';
    case 'EAGENTRPC_SCHEMA_VIOLATION':
      return 'schema-violation';
    default:
      return 'error';
  }
}
