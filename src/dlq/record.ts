import type { WireError } from '../errors.js';
import type { DeliveryCoordinates, TransportKind } from '../transport.js';

/**
 * Why a message was not dispatched. `reason` inside a record narrows the kind further
 * (for `decode-failed` it is the decoder's reason code, for `handler-failed` the error code).
 */
export const DLQ_KINDS = [
  'decode-failed',
  'tenant-mismatch',
  'misrouted',
  'auth-rejected',
  'unknown-capability',
  'schema-violation',
  'guard-rejected',
  'handler-failed',
  'deadline-expired',
  'reply-undeliverable',
  'unmatched-response',
  'remote-failed',
] as const;
export type DlqKind = (typeof DLQ_KINDS)[number];

/** What is known of the envelope when it could be decoded. */
export interface DlqEnvelopeSummary {
  kind: string;
  messageId: string;
  correlationId: string;
  from: string;
  to: string;
  capability: string;
}

export interface DlqRecord {
  id: string;
  /** ms since epoch. */
  at: number;
  /** The agent whose inbox gave up on the message. */
  agentId: string;
  kind: DlqKind;
  reason: string;
  detail: string;
  error?: WireError;
  /**
   * The exact bytes received (or, for reply-undeliverable, the response that could not be
   * sent); of bytes over the node's `limits.maxBytes`, only the first DLQ_EXCERPT_BYTES.
   */
  rawBase64: string;
  /** Set when `rawBase64` is an excerpt: the size of the whole message, in bytes. Such a record cannot be requeued. */
  size?: number;
  transport: TransportKind;
  coordinates: DeliveryCoordinates;
  attempt: number;
  envelope?: DlqEnvelopeSummary;
  /** For `reply-undeliverable`: where the kept response was meant to go. */
  replyTo?: string;
}

/** What a DLQ record keeps of a message over the node's `limits.maxBytes`: its first bytes, this many. */
export const DLQ_EXCERPT_BYTES = 1024;

export interface DlqFilter {
  kind?: DlqKind;
  limit?: number;
}

/** Where DLQ records are kept. `write` resolves only once the record is stored. */
export interface DlqSink {
  write(record: DlqRecord): Promise<void>;
  list(filter?: DlqFilter): Promise<DlqRecord[]>;
  get(id: string): Promise<DlqRecord | undefined>;
  close?(): Promise<void>;
}
