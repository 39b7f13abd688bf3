export type { ModelClient, ModelMessage, ModelReply, ModelRequest, ModelTool, ModelToolCall, ModelUsage } from './model-client.js';
export {
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_TIMEOUT_MS,
  MODEL_ID_RE,
  MODEL_PROVIDERS,
  modelsConfigSchema,
  pricingSchema,
  resolveModelId,
  type ModelConfig,
  type ModelProvider,
  type ModelResolution,
  type ModelsConfig,
  type Pricing,
} from './models-config.js';
export { costUsd } from './pricing.js';
export { createModelClient, type ModelClientOptions } from './create-model-client.js';
export { isRetriableStatus } from './model-failure.js';
