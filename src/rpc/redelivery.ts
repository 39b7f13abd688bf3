import { backoffDelay } from '../backoff.js';
import type { NodeLimits } from './node-core.js';

const MAX_REDELIVERY_DELAY_MS = 30_000;

/**
 * The one redelivery rule of the inbox: a delivery may be handed back to its transport
 * when the transport redelivers and the message has attempts left.
 */
export function mayRedeliver(redelivers: boolean, attempt: number, limits: Pick<NodeLimits, 'maxDeliveryAttempts'>): boolean {
  return redelivers && attempt < limits.maxDeliveryAttempts;
}

/** Exponential backoff for redeliveries: base, 2×base, 4×base … capped at 30 s, less up to 20% jitter. */
export function redeliveryDelay(limits: Pick<NodeLimits, 'retryDelayMs'>, attempt: number): number {
  return backoffDelay({ initialMs: Math.min(limits.retryDelayMs, MAX_REDELIVERY_DELAY_MS), maxMs: MAX_REDELIVERY_DELAY_MS }, Math.max(1, attempt));
}

/** A deferred delivery looks at its claim again after at most this long, so a run that completes is answered soon. */
const DEFER_RECHECK_MS = 1_000;

/**
 * How long a delivery whose claim a live run holds waits before it looks again (uncounted,
 * Delivery.defer): about as long as the run has been going (`leaseMs - leaseLeftMs`), at
 * least `retryDelayMs` and at most a second (less up to 20% jitter) — a short run's
 * duplicate is answered soon after it, a long run is looked at once a second — and never
 * past the lease's end.
 */
export function deferDelay(limits: Pick<NodeLimits, 'retryDelayMs'>, leaseMs: number, leaseLeftMs: number | undefined): number {
  const left = leaseLeftMs ?? leaseMs;
  const heldFor = Math.max(0, leaseMs - left);
  const recheck = Math.max(limits.retryDelayMs, Math.min(heldFor, DEFER_RECHECK_MS));
  // With the shared jitter, so the duplicates of one message do not all look at once.
  return Math.max(1, Math.min(left, backoffDelay({ initialMs: recheck, maxMs: recheck }, 1)));
}
