import { z } from 'zod';
import { alias } from '../../yaml/index.js';

/** agent.yaml `execute`: the /execute endpoints of the process (docs/remote-execution.md). */
export const executeConfigSchema = z
  .strictObject({
    connections: z
      .record(
        z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_.-]'),
        z.strictObject({ urlRef: z.string().min(1).describe('A secret reference to the connection URL (`${env:REDIS_URL}`), credentials included.') }),
      )
      .default({})
      .describe("What a component's `connection_ref` names; the credentials stay on this worker and never travel."),
    maxBodyBytes: alias(z.int().min(1024).default(4 * 1024 * 1024).describe('Largest /execute body accepted (413 above it). Default 4 MiB.'), 'max_body_bytes'),
    timeoutMs: alias(z.int().min(1).default(5 * 60_000).describe("Deadline of an execute request's envelope. Default 5 minutes."), 'timeout_ms'),
  })
  .optional()
  .describe("The remote execution protocol's /execute endpoints (docs/remote-execution.md); only the first agent's block of a process counts.");
