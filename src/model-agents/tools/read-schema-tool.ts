import { defineTool, type Tool } from '../tool.js';

export const READ_SCHEMA = 'read_schema';

/** A capability as `read_schema` shows it; a `CapabilityConfig` from capabilities.yaml fits. */
export interface CapabilitySchemaView {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/** What the agent may know about itself. Holds no secret: names and ids, never keys or URLs with credentials. */
export interface AgentSchemaView {
  readonly agentId: string;
  readonly capabilities: readonly CapabilitySchemaView[];
  readonly config: {
    /** The ids of the models the agent is configured with. */
    readonly models: readonly string[];
    /** The names of the tools the agent is offered. */
    readonly tools: readonly string[];
  };
}

/**
 * `read_schema({capability?})`: the agent's own capabilities and configuration summary,
 * or one capability with its input and output schemas. `view` is called on every use, so
 * a reloaded configuration shows at once.
 */
export function readSchemaTool(view: () => AgentSchemaView): Tool {
  return defineTool<{ capability?: string }>({
    name: READ_SCHEMA,
    description:
      "Describes this agent: its id, models, tools and the capabilities it serves. Without arguments it lists every capability briefly; with capability it returns that capability's description and its input and output JSON Schemas.",
    parameters: {
      type: 'object',
      properties: { capability: { type: 'string', minLength: 1, description: 'The capability to show in full, with its schemas.' } },
      additionalProperties: false,
    },
    async run({ capability }) {
      const agent = view();
      if (capability === undefined) return { output: overview(agent) };
      const found = agent.capabilities.find((entry) => entry.name === capability);
      if (found === undefined) {
        const known = agent.capabilities.map((entry) => entry.name).join(', ') || '(none)';
        return { isError: true, output: `Unknown capability "${capability}". Known capabilities: ${known}` };
      }
      return { output: detail(found) };
    },
  });
}

function overview(agent: AgentSchemaView): string {
  const list = (items: readonly string[]): string => (items.length === 0 ? '(none)' : items.join(', '));
  const capabilities = agent.capabilities.map((entry) => `- ${entry.name}${entry.description ? `: ${entry.description}` : ''}`);
  return [
    `Agent: ${agent.agentId}`,
    `Models: ${list(agent.config.models)}`,
    `Tools: ${list(agent.config.tools)}`,
    `Capabilities (${agent.capabilities.length}):`,
    ...(capabilities.length === 0 ? ['(none)'] : capabilities),
    ...(capabilities.length === 0 ? [] : ['Call read_schema with capability=<name> for its input and output schemas.']),
  ].join('\n');
}

function detail(entry: CapabilitySchemaView): string {
  const schema = (value: Readonly<Record<string, unknown>> | undefined): string => (value === undefined ? '(none: not checked)' : JSON.stringify(value, null, 2));
  return [
    `Capability: ${entry.name}`,
    `Description: ${entry.description || '(none)'}`,
    `Input schema:\n${schema(entry.inputSchema)}`,
    `Output schema:\n${schema(entry.outputSchema)}`,
  ].join('\n');
}
