import { z } from 'zod';
import { alias } from '../../yaml/index.js';

/** agent.yaml `a2a`: this agent served as an A2A agent (docs/a2a.md). */
export const a2aConfigSchema = z
  .strictObject({
    timeoutMs: alias(z.int().min(1).default(5 * 60_000).describe("Deadline of the request an A2A task makes, unless the client's `metadata.deadline` is sooner. Default 5 minutes."), 'timeout_ms'),
    tasksPerUser: alias(z.int().min(1).default(1000).describe('Tasks kept readable per user: at least this many of the newest, at most twice as many. Default 1,000.'), 'tasks_per_user'),
  })
  .optional()
  .describe('This agent served as an A2A agent (docs/a2a.md).');
