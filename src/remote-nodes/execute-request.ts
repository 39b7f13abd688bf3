import { z } from 'zod';
import { MESSAGE_ID_RE } from '../envelope/index.js';

/** A component given by reference: a class name the worker knows and a config without secrets. */
export const componentRefSchema = z.strictObject({
  __class__: z.string().min(1).max(200),
  config: z.record(z.string(), z.unknown()).default({}),
});
export type ComponentRef = z.infer<typeof componentRefSchema>;

const stepId = z.string().regex(MESSAGE_ID_RE, 'must be 1-128 characters of [A-Za-z0-9._:-] (an envelope messageId)');
const count = z.number().int().min(0);

export const usageRecordSchema = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count.default(0),
  costUsd: z.number().min(0),
  modelRequests: count.default(0),
});

/** The executor's context; components come by reference, never with credentials. */
export const executeContextSchema = z.strictObject({
  trace_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex digits (a W3C trace id)')
    .refine((id) => !/^0+$/.test(id), 'must not be all zeros')
    .optional(),
  step_id: stepId.optional(),
  parent_step_id: stepId.optional(),
  messages: z
    .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string(), name: z.string().min(1).max(128).optional() }))
    .default([]),
  thoughts: z.array(z.string()).default([]),
  usage: z.array(usageRecordSchema).default([]),
  store: componentRefSchema.optional(),
  tracing: componentRefSchema.optional(),
  feedback: componentRefSchema.optional(),
});
export type ExecuteContext = z.infer<typeof executeContextSchema>;

export const executeBodySchema = z.strictObject({
  user_id: z.string().regex(/^[A-Za-z0-9._@-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9._@-]'),
  agent_id: z.string().min(1).max(128),
  context: executeContextSchema,
  input: z.unknown().refine((input) => input !== undefined, 'is required'),
  capability: z.string().min(1).max(128).optional(),
});
export type ExecuteBody = z.infer<typeof executeBodySchema>;

/** `bad request: context.messages.0.role: ...` — the first problem, naming the field. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  return `bad request: ${field}: ${issue.message}`;
}

const CREDENTIAL_KEY = /(^|[_-])(password|passwd|pwd|secret|token|key|apikey|credentials?|auth)$/i;
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i;

/**
 * The path of the first thing in a component's config that looks like an inline credential
 * (a `password`, `token` or `key` field, a URL with a password), or undefined. Such a
 * component is refused, never used: the secret has already travelled, and the worker
 * must not come to rely on it.
 */
export function inlineCredentialAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return URL_WITH_PASSWORD.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = inlineCredentialAt(item, `${path}.${index}`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (CREDENTIAL_KEY.test(key)) return `${path}.${key}`;
    const found = inlineCredentialAt(item, `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}
