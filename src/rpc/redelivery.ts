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
