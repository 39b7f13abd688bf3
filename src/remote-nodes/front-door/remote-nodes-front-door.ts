import type { FrontDoorPlugin, FrontDoorProcess, OpenFrontDoor } from '../../config/index.js';
import type { ApiRoute } from '../../http-server/index.js';
import { remoteNodesOf } from './remote-nodes-of.js';
import { remoteNodeStoreSection } from './remote-node-store-section.js';

/**
 * Each agent's remote nodes (agent.yaml `remoteNodes` merged with its node store), which its
 * transports and model agents call, and the node store's admin API `/api/v1/remote-nodes`:
 * the first agent's store serves the process's.
 */
export const remoteNodesFrontDoor: FrontDoorPlugin = {
  name: 'remote-nodes',
  configShape: { remoteNodeStore: remoteNodeStoreSection },
  open: openRemoteNodes,
};

function openRemoteNodes({ secrets, logger }: FrontDoorProcess): Promise<OpenFrontDoor> {
  let routes: ApiRoute[] | undefined;
  return Promise.resolve({
    async wire(config, wiring) {
      const remote = await remoteNodesOf(config, secrets, logger);
      routes ??= remote.routes;
      return { ...wiring, remoteNodes: remote.resolver };
    },
    routes: () => routes ?? [],
  });
}
