import type { FrontDoorPlugin, FrontDoorProcess, OpenFrontDoor } from '../../config/index.js';
import { DaemonFlows, flowsSection } from './daemon-flows.js';

/**
 * The process's flow records and their pages (`/flows`, docs/observability.md): a recorder
 * for each agent, the fleet's flows topic once the agents run, closed before they stop so
 * the process leaves the topic while its transports are still open.
 */
export const flowsFrontDoor: FrontDoorPlugin<DaemonFlows> = {
  name: 'flows',
  configShape: { flows: flowsSection },
  open: openFlows,
};

function openFlows({ first, clock, logger }: FrontDoorProcess): Promise<OpenFrontDoor<DaemonFlows>> {
  const flows = new DaemonFlows(first, clock, logger);
  return Promise.resolve({
    handle: flows,
    wire(config, wiring) {
      const recorder = flows.recorderFor(config);
      return recorder ? { ...wiring, flows: recorder } : wiring;
    },
    requests: flows.routes,
    started: (agents) => flows.start(agents),
    closeBeforeAgents: () => flows.close(),
  });
}
