import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { CapabilityConfig } from '../../config/index.js';

/** The card extension that carries each capability's JSON Schemas (a skill has no field for them). */
export const CAPABILITY_SCHEMAS_EXTENSION = 'urn:agent-rpc:a2a:capability-schemas:v1';
/** The key of the API's bearer tokens in the card's `securitySchemes`. */
export const BEARER_SCHEME = 'bearer';

const JSON_MODE = 'application/json';
const TEXT_MODE = 'text/plain';

export interface AgentCardInput {
  /** The agent id (the card's name). */
  readonly agentId: string;
  readonly capabilities: readonly CapabilityConfig[];
  /** agent.yaml `session.capability`: the one a plain text message calls. */
  readonly defaultCapability?: string;
  /** The JSON-RPC endpoint, absolute (`<public base URL>/a2a/<agentId>`). */
  readonly url: string;
  /** The version of agent-rpc serving the card. */
  readonly version: string;
}

/**
 * The A2A Agent Card of one agent, from its capabilities.yaml: one skill per capability,
 * the API's bearer tokens as its security, streaming declared, the JSON-RPC interface in
 * protocol 1.0 and its 0.3 mirror (same URL) for older clients.
 */
export function buildAgentCard(input: AgentCardInput): AgentCard {
  const schemas: Record<string, { inputSchema?: unknown; outputSchema?: unknown }> = {};
  for (const capability of input.capabilities) {
    if (capability.inputSchema === undefined && capability.outputSchema === undefined) continue;
    schemas[capability.name] = {
      ...(capability.inputSchema !== undefined ? { inputSchema: capability.inputSchema } : {}),
      ...(capability.outputSchema !== undefined ? { outputSchema: capability.outputSchema } : {}),
    };
  }
  const hasDefault = input.defaultCapability !== undefined;
  return {
    name: input.agentId,
    description: cardDescription(input),
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: input.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }], ['JSONRPC']),
    provider: undefined,
    version: input.version,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions:
        Object.keys(schemas).length === 0
          ? []
          : [{ uri: CAPABILITY_SCHEMAS_EXTENSION, description: 'JSON Schemas (draft 2020-12) of each skill’s input and output, by skill id.', required: false, params: schemas }],
    },
    securitySchemes: {
      [BEARER_SCHEME]: {
        scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'A bearer token of the node’s HTTP API (agent.yaml api.tokens), role operator or above.', scheme: 'Bearer', bearerFormat: '' } },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: hasDefault ? [JSON_MODE, TEXT_MODE] : [JSON_MODE],
    defaultOutputModes: [JSON_MODE, TEXT_MODE],
    skills: input.capabilities.map((capability) => skillOf(capability, capability.name === input.defaultCapability)),
    signatures: [],
  };
}

function skillOf(capability: CapabilityConfig, isDefault: boolean): AgentSkill {
  return {
    id: capability.name,
    name: capability.name,
    description: capability.description || `The ${capability.name} capability.`,
    tags: isDefault ? ['agent-rpc', 'default'] : ['agent-rpc'],
    examples: [],
    // Plain text reaches only the default capability; every skill takes a data part.
    inputModes: isDefault ? [JSON_MODE, TEXT_MODE] : [JSON_MODE],
    outputModes: [JSON_MODE, TEXT_MODE],
    securityRequirements: [],
  };
}

function cardDescription(input: AgentCardInput): string {
  const names = input.capabilities.map((c) => c.name).join(', ');
  const text = input.defaultCapability === undefined ? '' : ` Plain text calls ${input.defaultCapability}.`;
  return `agent-rpc agent ${input.agentId}: capabilities ${names}. Name one in a data part {"capability": "<skill id>", "input": {...}}.${text}`;
}
