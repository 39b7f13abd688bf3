import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDirOf, sectionOf, type AgentConfig } from '../../config/index.js';
import { ConfigError } from '../../yaml/index.js';
import { remoteNodesFromConfig } from '../remote-nodes-config.js';
import type { Logger } from '../../logger.js';
import type { SecretResolver } from '../../secrets/index.js';
import { remoteNodeRoutes } from './remote-nodes-routes.js';
import { remoteNodeStoreSection } from './remote-node-store-section.js';
import type { ApiRoute } from '../../http-server/index.js';
import { CredentialCipher, mergedResolver, type RemoteNodeResolver } from '../index.js';
import { RemoteNodeStore } from '../remote-node-store.js';

/**
 * An agent's remote nodes: agent.yaml `remoteNodes` merged with its node store (when
 * `remoteNodeStore` names a key; the file is `<dataDir>/remote-nodes.json`), and the
 * store's admin API.
 */
export async function remoteNodesOf(config: AgentConfig, secrets: SecretResolver, logger?: Logger): Promise<{ resolver: RemoteNodeResolver; routes: ApiRoute[] }> {
  const { agent } = config;
  const configNodes = await remoteNodesFromConfig(agent, (ref) => secrets.resolve(ref, config.dir));
  let store: RemoteNodeStore | undefined;
  const storeConfig = sectionOf(config, 'remoteNodeStore', remoteNodeStoreSection);
  if (storeConfig) {
    let cipher: CredentialCipher;
    try {
      cipher = new CredentialCipher(await secrets.resolve(storeConfig.keyRef, config.dir), 'remoteNodeStore.keyRef');
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new ConfigError(agent.file, agent.lineOf(['remoteNodeStore', 'keyRef']), 'remoteNodeStore.keyRef', problem);
    }
    const dataDir = dataDirOf(config);
    await mkdir(dataDir, { recursive: true });
    store = await RemoteNodeStore.open(join(dataDir, 'remote-nodes.json'), cipher, logger);
  }
  const resolver = mergedResolver(configNodes, store);
  return { resolver, routes: remoteNodeRoutes(store, resolver) };
}
