import { z } from 'zod';
import { alias, seconds } from '../yaml/index.js';
import { toolPolicySchema } from './agent-tools.js';
import { modelsConfigSchema } from './models/models-config.js';

/** agent.yaml `tools:`, the settings every model agent of the file shares. */
export const toolsSectionSchema = z
  .strictObject({
    policy: toolPolicySchema
      .default({})
      .describe("Tool name → enabled, for every model agent of this file: false turns a tool off, true turns on one that is off by default (remote_agent, list_remote_nodes)."),
    bash: z
      .strictObject({
        env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).default([]).describe('Variables bash keeps although named like secrets (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`); every other such variable is removed.'),
        timeoutMs: alias(
          z.int().min(1_000).max(3_600_000).default(120_000).describe('Default limit of one command, in milliseconds; the model may ask for less or more (at most an hour).'),
          seconds('timeoutSec'),
        ),
      })
      .optional()
      .describe('The bash tool of model agents.'),
    webSearch: alias(
      z
        .strictObject({ endpoint: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).describe('A SearXNG-compatible search URL answering `?q=<query>&format=json`.') })
        .optional()
        .describe('Enables the web_search tool; without it the tool is not offered.'),
      'web_search',
    ),
  })
  .optional()
  .describe('Tools offered to model agents.');
export type ToolsSection = z.output<typeof toolsSectionSchema>;

/** agent.yaml `models:`. */
export const modelsSectionSchema = modelsConfigSchema.optional().describe('The language models model agents use (docs/agents.md).');

/** The agent.yaml sections model agents own, by key. */
export const modelAgentSections = { models: modelsSectionSchema, tools: toolsSectionSchema } as const;
