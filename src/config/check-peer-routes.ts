import type { ConfigKind } from './config-kinds.js';
import { ConfigError, type LoadedYaml } from '../yaml/index.js';
import type { PeersFile } from './peers-file.js';
import type { TransportsConfig } from './transports-config.js';

/**
 * An agent holds one connection per transport kind, so a peer said to listen on other
 * servers or brokers than this agent's could never be reached: each plug-in's `checkRoute`
 * says so at start, naming the file, line and field, rather than time out on every call.
 */
export function checkPeerRoutes(peers: LoadedYaml<PeersFile>, transports: TransportsConfig, plugins: readonly ConfigKind[]): void {
  const kinds = plugins;
  peers.value.peers.forEach((peer, index) => {
    peer.transports.forEach((route, routeIndex) => {
      const problem = kinds.find((kind) => kind.kind === route.kind)?.checkRoute?.(route, transports[route.kind]);
      if (problem === undefined) return;
      const path = ['peers', index, 'transports', routeIndex, problem.field];
      throw new ConfigError(peers.file, peers.lineOf(path), `peers[${index}].transports[${routeIndex}].${problem.field}`, problem.message);
    });
  });
}
