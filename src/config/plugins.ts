import { z } from 'zod';
import type { GatewayPlugin } from '../gateway-plugin.js';
import type { TransportPlugin } from '../transport-plugin.js';
import { configKinds } from './config-kinds.js';
import type { AgentConfig } from './agent-config.js';

/**
 * agent.yaml sections a plug-in reads, by top-level key: each section's schema says whether
 * it is optional or what it defaults to. The file is checked against the core's sections and
 * every plug-in's, so a plug-in's settings are documented and refused like the core's.
 */
export type ConfigShape = Readonly<Record<string, z.ZodType>>;

/** What any plug-in adds to agent.yaml. */
export interface ConfigContribution {
  /** Names the plug-in (in errors and in `agent-rpc` listings). */
  readonly name: string;
  readonly configShape?: ConfigShape;
}

/** What a handler type adds to agent.yaml: besides its sections, the form of its `handlers:` entries. */
export interface HandlerEntryContribution extends ConfigContribution {
  /** A `handlers.<capability>` entry of this type: a module path (a string), or an object with its own `type`. */
  readonly entrySchema: z.ZodType;
  /** Checks that need every file loaded (a model agent's model is declared, a workflow file loads): a ConfigError on a mistake. `env` expands `${env:NAME}` in files the type reads itself. */
  check?(config: AgentConfig, env: NodeJS.ProcessEnv): Promise<void> | void;
}

/**
 * Everything a daemon or a CLI is built from besides the core, one list per kind of plug-in:
 * transports (byte carriers), gateways (peers of other protocols: http, a2a), front doors (HTTP surfaces of the process) and handler types
 * (what agent.yaml's `handlers:` can name). The runtime narrows the last two to its own
 * plug-in interfaces; the config files are checked against all of them.
 */
export interface Plugins<FrontDoor extends ConfigContribution = ConfigContribution, HandlerType extends HandlerEntryContribution = HandlerEntryContribution> {
  readonly transports: readonly TransportPlugin[];
  readonly gateways: readonly GatewayPlugin[];
  readonly frontDoors: readonly FrontDoor[];
  readonly handlerTypes: readonly HandlerType[];
}

/** Throws TypeError on a list with a repeated name, or two plug-ins (or a plug-in and the core) owning one agent.yaml key: a programming mistake, found at start. */
export function checkPlugins(plugins: Plugins, coreKeys: readonly string[]): void {
  // Transports and gateways: a bad or repeated kind throws.
  configKinds(plugins);
  const owners = new Map<string, string>(coreKeys.map((key) => [key, 'the core']));
  for (const [kind, list] of [['front door', plugins.frontDoors], ['handler type', plugins.handlerTypes]] as const) {
    const names = new Set<string>();
    for (const plugin of list) {
      if (names.has(plugin.name)) throw new TypeError(`two ${kind} plug-ins named ${plugin.name}`);
      names.add(plugin.name);
      for (const key of Object.keys(plugin.configShape ?? {})) {
        const owner = owners.get(key);
        if (owner !== undefined) throw new TypeError(`agent.yaml key ${key} is claimed by ${kind} ${plugin.name} and by ${owner}`);
        owners.set(key, `${kind} ${plugin.name}`);
      }
    }
  }
}

/** The settings of a plug-in's section of agent.yaml, typed by the schema it declared for it. */
export function sectionOf<S extends z.ZodType>(config: Pick<AgentConfig, 'agent'>, key: string, _schema: S): z.output<S> | undefined {
  return (config.agent.value as Readonly<Record<string, unknown>>)[key] as z.output<S> | undefined;
}
