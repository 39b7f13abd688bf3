import { z } from 'zod';
import { parseSecretRef } from './secret-ref.js';

/**
 * A `…Ref` field: a secret reference (`${env:NAME}`, `secret://name`, `file:path`,
 * `vault:mount/path#key`), never the secret itself — an inline value is refused when the
 * file is read, without echoing it. The value is resolved when the component is built.
 */
export const secretRefSchema = z.string().superRefine((ref, ctx) => {
  try {
    parseSecretRef(ref);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});
