import { remoteNodeStoreConfigSchema } from '../remote-nodes-config.js';
import { alias } from '../../yaml/index.js';

/** agent.yaml `remoteNodeStore`: the node store behind /api/v1/remote-nodes (docs/remote-nodes.md). */
export const remoteNodeStoreSection = alias(
  remoteNodeStoreConfigSchema.optional().describe('Enables the node store managed over /api/v1/remote-nodes; its credentials are encrypted with this key.'),
  'remote_node_store',
);
