import { agentFileSchemaOf } from '../../src/config/agent-file.js';
import { capabilitiesFileSchema } from '../../src/config/capabilities-file.js';
import { eventSourcesFileSchema, eventSourcesListSchema } from '../../src/config/event-sources-file.js';
import { peersFileSchema } from '../../src/config/peers-file.js';
import { transportsListSchema } from '../../src/config/transports-list.js';
import { workflowSchema } from '../../src/workflows/workflow-schema.js';
import { configKinds } from '../../src/config/config-kinds.js';
import { builtinPlugins } from '../../transports/plugins.js';
import type { ConfigReferenceInputs, TransportDoc } from './render-config-reference.js';

/** The transports and gateways, as the config files see them. */
const kinds = configKinds(builtinPlugins);

/** Each transport and gateway plug-in's capabilities.yaml block and rpc-peers.yaml route fields. */
function transportDocs(): TransportDoc[] {
  return kinds.map((plugin) => ({ kind: plugin.kind, configSchema: plugin.configSchema, routeSchema: plugin.routeSchema }));
}

/** What docs/config-reference.md is generated from. */
export function configReferenceInputs(): ConfigReferenceInputs {
  return {
    files: [
      { file: 'agent.yaml', required: true, summary: 'Who the agent is, what it may do, and how it runs.', schema: agentFileSchemaOf(builtinPlugins) },
      {
        file: 'capabilities.yaml',
        required: true,
        summary: "The agent's RPC surface: where it connects, its topics and the capabilities it serves.",
        schema: capabilitiesFileSchema(kinds),
        external: { transports: '(See [Transports](#transports).)' },
      },
      {
        file: 'rpc-peers.yaml',
        required: false,
        summary: 'Producer-side routing: how this agent reaches each peer, and how it authenticates to it.',
        schema: peersFileSchema(kinds),
        external: { 'peers[].transports[]': '(See [Transports](#transports): `kind` and that transport\'s route fields.)' },
      },
      {
        file: 'capabilities.yaml `transports`, list form',
        required: false,
        summary: "The design documents' form of `transports`: one entry per kind, with that transport's fields (see [Transports](#transports)) and the agent's topics (`topics`, or `subjects` for NATS), which are the same settings as the file's `topics`.",
        schema: transportsListSchema(kinds),
      },
      { file: 'event-sources.yaml', required: false, summary: "How the agent's inbox consumes. The agent has one inbox: sources that set the same thing must agree.", schema: eventSourcesFileSchema },
      {
        file: 'event-sources.yaml, list form',
        required: false,
        summary: "The design documents' form of the file: a list of sources, each `{type, config}`; `config` has the fields of a source above.",
        schema: eventSourcesListSchema,
      },
      {
        file: 'workflow.yaml',
        required: false,
        summary: 'A workflow, run by a `type: workflow` handler or `agent-rpc run` (docs/workflows.md): its params and its steps, each a model agent (configured as a `type: agent` handler is) or a call.',
        schema: workflowSchema,
      },
    ],
    transports: transportDocs(),
  };
}
