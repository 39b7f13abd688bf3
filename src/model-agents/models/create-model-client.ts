import { importOptional } from '../../optional-package.js';
import { createAnthropicClient } from './anthropic-client.js';
import type { ModelClient } from './model-client.js';
import type { ModelConfig } from './models-config.js';
import { createOpenAiClient } from './openai-client.js';

export interface ModelClientOptions {
  /** The key `apiKeyRef` resolved to; may be absent for `openai-compatible` only. */
  readonly apiKey: string | undefined;
  /** The fetch the provider's SDK uses (a proxy agent, a test double). Default: the global one. */
  readonly fetch?: typeof fetch;
}

// One package per provider; `openai-compatible` servers speak OpenAI's API.
const PACKAGES = { openai: 'openai', 'openai-compatible': 'openai', anthropic: '@anthropic-ai/sdk' } as const;

/**
 * The client of one configured model. The provider's official SDK (an optional peer
 * dependency) is loaded here, on first use, so an agent without model agents, or with
 * models of one provider only, never loads the other.
 */
export async function createModelClient(config: ModelConfig, options: ModelClientOptions): Promise<ModelClient> {
  const packageName = PACKAGES[config.provider];
  if (packageName === undefined) throw new TypeError(`provider: model ${config.id} has an unknown provider ${String(config.provider)}`);
  const feature = `model ${config.id} (provider ${config.provider})`;
  if (config.provider === 'anthropic') return createAnthropicClient(await importOptional(() => import('@anthropic-ai/sdk'), feature, packageName), config, options);
  return createOpenAiClient(await importOptional(() => import('openai'), feature, packageName), config, options);
}
