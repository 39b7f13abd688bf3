import { z } from 'zod';
import { parseSecretRef } from '../../secrets/index.js';

/**
 * agent.yaml `models:` — every model the agent's model agents may use, configured once:
 * which provider speaks for it, the provider's model name, a reference to its API key, and
 * what its tokens cost. Capabilities name a model by `id`, or get the default one.
 */

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export const MODEL_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
export const DEFAULT_MODEL_MAX_RETRIES = 2;

const usdPer1M = z.number().min(0, 'must be a non-negative number of USD per million tokens');

export const pricingSchema = z.strictObject({
  inputPer1M: usdPer1M.describe('USD per million input tokens (not served from the prompt cache).'),
  outputPer1M: usdPer1M.describe('USD per million output tokens.'),
  cachedInputPer1M: usdPer1M.optional().describe('USD per million input tokens served from the prompt cache. Default: `inputPer1M`.'),
});
export type Pricing = z.infer<typeof pricingSchema>;

// The check parseSecretRef makes everywhere else; its message never echoes the value,
// which may well be an inlined key.
const secretRef = z.string().superRefine((ref, ctx) => {
  try {
    parseSecretRef(ref, 'apiKeyRef');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const modelConfigSchema = z
  .strictObject({
    id: z.string().regex(MODEL_ID_RE, 'must be 1-64 characters of [A-Za-z0-9._-], starting with a letter or digit').describe('The name capabilities use for this model (`model:` of a model agent).'),
    provider: z.enum(MODEL_PROVIDERS).describe('Who serves it: `openai`, `anthropic`, or `openai-compatible` (any server speaking OpenAI Chat Completions: vLLM, Ollama, LM Studio, a gateway).'),
    model: z.string().min(1).describe("The provider's model name, e.g. `gpt-5` or `claude-sonnet-4-5`."),
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional()
      .describe("The API's base URL (OpenAI-style ones end in `/v1`). Required for `openai-compatible`; for the others only to go through a proxy."),
    apiKeyRef: secretRef
      .optional()
      .describe('A secret reference (`${env:OPENAI_API_KEY}`, `file:`, `secret://`, `vault:`) to the API key, never the key itself. Required for `openai` and `anthropic`.'),
    pricing: pricingSchema.optional().describe('What its tokens cost, to report the cost of calls. Without it, the cost is 0.'),
    default: z.boolean().optional().describe('The model of model agents that name none. At most one model may set it; a single model is the default anyway.'),
    maxOutputTokens: z.int().min(1).optional().describe("Upper bound on one answer's tokens. Default: the provider's own (Anthropic: 4096)."),
    timeoutMs: z.int().min(1).default(DEFAULT_MODEL_TIMEOUT_MS).describe('Limit on one request to the provider, in milliseconds. Default 120,000.'),
    maxRetries: z.int().min(0).max(10).default(DEFAULT_MODEL_MAX_RETRIES).describe('Retries of a request that failed with 408, 409, 429, 5xx or a connection error, with backoff. Default 2.'),
  })
  .superRefine((entry, ctx) => {
    if (entry.provider === 'openai-compatible' && entry.baseUrl === undefined) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'is required when provider is openai-compatible' });
    if (entry.provider !== 'openai-compatible' && entry.apiKeyRef === undefined) ctx.addIssue({ code: 'custom', path: ['apiKeyRef'], message: `is required when provider is ${entry.provider}` });
  });

/** One entry of `models:`, defaults applied. */
export type ModelConfig = z.output<typeof modelConfigSchema>;

/** agent.yaml `models:`; list-wide problems name the entry by its index. */
export const modelsConfigSchema = z.array(modelConfigSchema).superRefine((models, ctx) => {
  const seen = new Set<string>();
  let defaultAt: number | undefined;
  models.forEach((model, index) => {
    if (seen.has(model.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `${model.id} is listed twice` });
    seen.add(model.id);
    if (model.default !== true) return;
    if (defaultAt !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'default'], message: `only one model may be the default; models[${defaultAt}] already is` });
    else defaultAt = index;
  });
});
export type ModelsConfig = z.output<typeof modelsConfigSchema>;

export type ModelResolution = { readonly ok: true; readonly model: ModelConfig } | { readonly ok: false; readonly problem: string };

/**
 * The model a model agent uses: the one it names, else the default. A problem rather than a
 * throw, so the caller can say where in which file the model was named.
 */
export function resolveModelId(requested: string | undefined, models: readonly ModelConfig[]): ModelResolution {
  const known = models.map((model) => model.id).join(', ');
  if (requested !== undefined) {
    const model = models.find((candidate) => candidate.id === requested);
    if (model) return { ok: true, model };
    return { ok: false, problem: models.length === 0 ? `no model ${requested}: agent.yaml lists no models` : `no model ${requested}; the models are ${known}` };
  }
  const preferred = models.find((model) => model.default === true) ?? (models.length === 1 ? models[0] : undefined);
  if (preferred) return { ok: true, model: preferred };
  if (models.length === 0) return { ok: false, problem: 'no model is configured: add one to agent.yaml models' };
  return { ok: false, problem: `${models.length} models are configured (${known}) and none is the default: set default: true on one of them, or name the model` };
}
