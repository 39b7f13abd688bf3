import type { ModelUsage } from './model-client.js';
import type { Pricing } from './models-config.js';

const PER_MILLION = 1_000_000;

/**
 * USD for the tokens of `usage` at `pricing` (USD per million tokens). `inputTokens` includes
 * `cachedInputTokens`; those are billed at `cachedInputPer1M` when the model has that price,
 * else like any input token. Without pricing the cost is 0: unknown, not free.
 */
export function costUsd(usage: ModelUsage, pricing?: Pricing): number {
  if (pricing === undefined) return 0;
  // A provider never reports more cached tokens than input tokens; clamp so a bad count cannot go negative.
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  const cachedRate = pricing.cachedInputPer1M ?? pricing.inputPer1M;
  return (uncached * pricing.inputPer1M + cached * cachedRate + usage.outputTokens * pricing.outputPer1M) / PER_MILLION;
}
