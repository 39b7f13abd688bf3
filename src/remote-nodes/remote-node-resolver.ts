import type { RemoteNode, RemoteNodeResolver } from './remote-node.js';
import type { RemoteNodeStore } from './remote-node-store.js';

/** Config nodes merged with the store's; on a name collision the store wins. */
export function mergedResolver(configNodes: readonly RemoteNode[], store: RemoteNodeStore | undefined): RemoteNodeResolver {
  return {
    async list() {
      const byName = new Map(configNodes.map((node) => [node.name, node]));
      for (const name of store?.names() ?? []) byName.set(name, store!.get(name)!);
      return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    },
    async get(name) {
      return store?.get(name) ?? configNodes.find((node) => node.name === name);
    },
  };
}
