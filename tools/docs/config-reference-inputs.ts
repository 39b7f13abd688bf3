import type { z } from 'zod';
import { agentFileSchema } from '../../src/config/agent-file.js';
import { capabilitiesFileSchema } from '../../src/config/capabilities-file.js';
import { eventSourcesFileSchema } from '../../src/config/event-sources-file.js';
import { peersFileSchema } from '../../src/config/peers-file.js';
import { transportsConfigSchema } from '../../src/config/transports-config.js';
import type { ConfigReferenceInputs, TransportDoc } from './render-config-reference.js';

/** The transports' config blocks; when transports are plugins, each plugin's `{kind, configSchema, routeSchema}`. */
function transportDocs(): TransportDoc[] {
  const shape = transportsConfigSchema.shape as Record<string, z.ZodType>;
  return [...Object.entries(shape).map(([kind, configSchema]) => ({ kind, configSchema })), { kind: 'http' }];
}

/** What docs/config-reference.md is generated from. */
export function configReferenceInputs(): ConfigReferenceInputs {
  return {
    files: [
      { file: 'agent.yaml', required: true, summary: 'Who the agent is, what it may do, and how it runs.', schema: agentFileSchema },
      {
        file: 'capabilities.yaml',
        required: true,
        summary: "The agent's RPC surface: where it connects, its topics and the capabilities it serves.",
        schema: capabilitiesFileSchema,
        external: { transports: '(See [Transports](#transports).)' },
      },
      { file: 'rpc-peers.yaml', required: false, summary: 'Producer-side routing: how this agent reaches each peer, and how it authenticates to it.', schema: peersFileSchema },
      { file: 'event-sources.yaml', required: false, summary: "How the agent's inbox consumes. The agent has one inbox: sources that set the same thing must agree.", schema: eventSourcesFileSchema },
    ],
    transports: transportDocs(),
  };
}
