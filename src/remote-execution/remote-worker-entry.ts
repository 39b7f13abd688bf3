import { z } from 'zod';
import { CAPABILITY_RE } from '../envelope/index.js';
import { alias, seconds } from '../yaml/index.js';

// A week, as a workflow step's: long enough for any piece of work, short enough to catch seconds written as milliseconds.
const MAX_TIMEOUT_MS = 604_800_000;

/**
 * agent.yaml `handlers.<capability>` with `type: remote-worker`: the capability is run on a
 * remote worker through the remote execution protocol (docs/remote-execution.md). The design
 * documents' snake_case names are aliases.
 */
export const remoteWorkerHandlerSchema = z.strictObject({
  type: z.literal('remote-worker').describe('A remote worker: the capability runs on another node through the remote execution protocol (docs/remote-execution.md).'),
  worker: z.string().min(1).describe('The remote node that runs it: a `remoteNodes[].name`.'),
  agentId: alias(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be an agent id').optional().describe("The worker's agent that runs it; default this agent's own id."), 'agent_id'),
  capability: z.string().regex(CAPABILITY_RE, 'must be a capability name').optional().describe("The capability called on the worker's agent; default its `session.capability`."),
  instructions: z.string().min(1).optional().describe('Sent before the input, as the first message of the context (a user message).'),
  message: z
    .string()
    .min(1)
    .optional()
    .describe('The input sent is `{message}`, this text with `${input.<path>}` taken from the request payload. Default: the request payload is the input, unchanged.'),
  timeoutMs: alias(
    z
      .int()
      .min(1)
      .max(MAX_TIMEOUT_MS, 'must be at most a week (604,800,000 ms)')
      .optional()
      .describe("Milliseconds the worker may take; longer than the node's `timeout`, the request is run asynchronously (`/execute/async`). Default: the node's `timeout`, run synchronously."),
    seconds('timeout_sec'),
  ),
});
export type RemoteWorkerHandlerConfig = z.output<typeof remoteWorkerHandlerSchema>;
