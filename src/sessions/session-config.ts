import { z } from 'zod';
import { alias } from '../yaml/index.js';

/** agent.yaml `session`: the session API's settings (docs/sessions.md). */
export const sessionConfigSchema = z
  .strictObject({
    capability: z.string().min(1).optional().describe('The capability a session created with a plain `message` calls, with payload `{message}`.'),
    maxPerUser: alias(z.int().min(1).default(100).describe("Sessions kept per user (the oldest finished ones go first); running ones above it are refused with 429."), 'max_per_user'),
    timeoutMs: alias(z.int().min(1).optional().describe("Deadline of a plain-message session's request: at it the session ends failed with EAGENTRPC_TIMEOUT, whether the handler stops or not. Default 300,000 (5 minutes)."), 'timeout_ms'),
  })
  .optional()
  .describe('Remote sessions served by this node (docs/sessions.md).');
