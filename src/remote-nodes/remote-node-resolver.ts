import type { RemoteNode, RemoteNodeResolver } from './remote-node.js';
import type { RemoteNodeStore } from './remote-node-store.js';

/**
 * Config nodes merged with the store's; on a name collision the store wins. An unreadable
 * store entry (remote-node-store.ts) is left out, and so is a config node of its name: the
 * operator meant to override it, so it is not used in the stored node's stead.
 */
export function mergedResolver(configNodes: readonly RemoteNode[], store: RemoteNodeStore | undefined): RemoteNodeResolver {
  const unreadable = (): Set<string> => new Set(store?.unreadable().map((entry) => entry.name));
  return {
    async list() {
      const byName = new Map(configNodes.map((node) => [node.name, node]));
      for (const name of unreadable()) byName.delete(name);
      for (const name of store?.names() ?? []) byName.set(name, store!.get(name)!);
      return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    },
    async get(name) {
      if (unreadable().has(name)) return undefined;
      return store?.get(name) ?? configNodes.find((node) => node.name === name);
    },
  };
}
