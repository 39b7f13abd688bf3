import { ConfigError } from './config-error.js';
import type { LoadedYaml } from './load-yaml.js';
import type { PeersFile } from './peers-file.js';
import type { TransportsConfig } from './transports-config.js';

const asList = (value: string | readonly string[]): string[] => (typeof value === 'string' ? [value] : [...value]).sort();

/**
 * An agent holds one connection per transport kind, so a peer said to listen on other
 * NATS servers or Kafka brokers than this agent's could never be reached: say so at start,
 * naming the file, line and field, rather than time out on every call.
 */
export function checkPeerRoutes(peers: LoadedYaml<PeersFile>, transports: TransportsConfig): void {
  peers.value.peers.forEach((peer, index) => {
    peer.transports.forEach((route, routeIndex) => {
      const own = route.kind === 'nats' ? transports.nats?.servers : route.kind === 'kafka' ? transports.kafka?.brokers : undefined;
      const theirs = route.kind === 'nats' ? route.servers : route.kind === 'kafka' ? route.brokers : undefined;
      if (theirs === undefined || own === undefined) return;
      if (asList(theirs).join(',') !== asList(own).join(',')) {
        const field = route.kind === 'nats' ? 'servers' : 'brokers';
        const path = ['peers', index, 'transports', routeIndex, field];
        throw new ConfigError(peers.file, peers.lineOf(path), `peers[${index}].transports[${routeIndex}].${field}`, `${asList(theirs).join(',')} is not where this agent connects for ${route.kind} (${asList(own).join(',')})`);
      }
    });
  });
}
