import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agentFileSchemaOf, type AgentFile } from './agent-file.js';
import { capabilitiesFileSchema, type CapabilitiesFile } from './capabilities-file.js';
import { checkPeerRoutes } from './check-peer-routes.js';
import { configKinds } from './config-kinds.js';
import { eventSourcesFileSchema, sourcePath, type EventSourcesFile } from './event-sources-file.js';
import { ConfigError, fieldPath, loadYamlFile, type LoadedYaml } from '../yaml/index.js';
import { inboxSettingsOf, type InboxSettings } from './inbox-settings.js';
import { peersFileSchema, type PeersFile } from './peers-file.js';
import type { Plugins } from './plugins.js';
import { HANDLER_SECTIONS } from './handler-type.js';

export const CONFIG_FILES = {
  agent: 'agent.yaml',
  capabilities: 'capabilities.yaml',
  peers: 'rpc-peers.yaml',
  eventSources: 'event-sources.yaml',
} as const;

/** The validated files of one agent's config directory, before anything is built from them. */
export interface AgentConfig<P extends Plugins = Plugins> {
  readonly dir: string;
  readonly agent: LoadedYaml<AgentFile>;
  readonly capabilities: LoadedYaml<CapabilitiesFile>;
  readonly peers: LoadedYaml<PeersFile> | undefined;
  readonly eventSources: LoadedYaml<EventSourcesFile> | undefined;
  /** The inbox's topics, limits and dedupe, gathered from every file (and every event source) that sets them. */
  readonly inbox: InboxSettings;
  /** The plug-ins the files were checked against; the agent's transports, front doors and handlers come from them. */
  readonly plugins: P;
}

/**
 * Reads `agent.yaml` and `capabilities.yaml` (required), `rpc-peers.yaml` and
 * `event-sources.yaml` (optional) from `dir`. Transport sections and peer routes are
 * checked against the transport and gateway plug-ins, agent.yaml against the core's sections and every
 * plug-in's. Every mistake is a ConfigError naming the file, the line and the field.
 */
export async function loadAgentConfig<P extends Plugins>(dir: string, plugins: P, env: NodeJS.ProcessEnv = process.env): Promise<AgentConfig<P>> {
  const kinds = configKinds(plugins);
  const path = (name: string): string => join(dir, name);
  const optional = <T>(name: string, load: (file: string) => Promise<T>): Promise<T | undefined> =>
    existsSync(path(name)) ? load(path(name)) : Promise.resolve(undefined);
  const agent = await loadYamlFile(path(CONFIG_FILES.agent), agentFileSchemaOf(plugins), { env });
  const capabilities = await loadYamlFile(path(CONFIG_FILES.capabilities), capabilitiesFileSchema(kinds), { env });
  const peers = await optional(CONFIG_FILES.peers, (file) => loadYamlFile(file, peersFileSchema(kinds), { env }));
  const eventSources = await optional(CONFIG_FILES.eventSources, (file) => loadYamlFile(file, eventSourcesFileSchema, { env }));
  checkAcrossFiles(agent, capabilities, eventSources);
  const inbox = inboxSettingsOf(agent, capabilities, eventSources);
  if (peers) checkPeerRoutes(peers, capabilities.value.transports, kinds);
  const config: AgentConfig<P> = { dir, agent, capabilities, peers, eventSources, inbox, plugins };
  for (const type of plugins.handlerTypes) await type.check?.(config, env);
  return config;
}

/** Where the agent keeps its files (DLQ, audit log, dedupe store): agent.yaml's dataDir, relative to the config directory. */
export function dataDirOf(config: AgentConfig): string {
  return resolve(config.dir, config.agent.value.dataDir);
}

function checkAcrossFiles(agent: LoadedYaml<AgentFile>, capabilities: LoadedYaml<CapabilitiesFile>, eventSources: LoadedYaml<EventSourcesFile> | undefined): void {
  const declared = capabilities.value.agent;
  if (declared !== undefined && declared.replace(/^agent:\/\//, '') !== agent.value.agent.id) {
    throw new ConfigError(capabilities.file, capabilities.lineOf(['agent']), 'agent', `is ${declared}, but agent.yaml declares agent ${agent.value.agent.id}`);
  }
  const names = new Set<string>();
  capabilities.value.capabilities.forEach((capability, index) => {
    if (names.has(capability.name)) {
      throw new ConfigError(capabilities.file, capabilities.lineOf(['capabilities', index, 'name']), `capabilities[${index}].name`, `${capability.name} is declared twice`);
    }
    names.add(capability.name);
  });
  for (const section of HANDLER_SECTIONS) {
    for (const capability of Object.keys(agent.value[section])) {
      if (!names.has(capability)) {
        throw new ConfigError(agent.file, agent.lineOf([section, capability]), `${section}.${capability}`, `capability ${capability} is not declared in ${CONFIG_FILES.capabilities}`);
      }
    }
  }
  const auth = agent.value.rpc?.auth;
  if (auth?.required === 'hmac' && auth.replay?.store === 'redis' && agent.value.guard?.store === undefined) {
    const path = ['rpc', 'auth', 'replay', 'store'];
    throw new ConfigError(agent.file, agent.lineOf(path), path.join('.'), 'redis needs guard.store (kind: redis): the replay memory uses the same Redis');
  }
  const sourceIds = new Set<string>();
  eventSources?.value.sources.forEach((source, index) => {
    const at = (field: string): PropertyKey[] => [...sourcePath(eventSources.value, index), field];
    if (sourceIds.has(source.id)) {
      throw new ConfigError(eventSources.file, eventSources.lineOf(at('id')), fieldPath(at('id')), `${source.id} is listed twice`);
    }
    sourceIds.add(source.id);
    if (source.agentId !== agent.value.agent.id) {
      throw new ConfigError(eventSources.file, eventSources.lineOf(at('agentId')), fieldPath(at('agentId')), `is ${source.agentId}, but agent.yaml declares agent ${agent.value.agent.id}`);
    }
  });
}
