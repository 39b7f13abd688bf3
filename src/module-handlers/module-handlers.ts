import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { AgentFile, HandlerSection, HandlerType } from '../config/index.js';
import type { Handler } from '../rpc/index.js';
import { ConfigError, type LoadedYaml } from '../yaml/index.js';

/**
 * Imports each handler module named in agent.yaml (`handlers: {capability: ./path.js}`,
 * relative to agent.yaml). The module's default export, or its export named like the
 * capability, must be a function.
 */
export async function handlersFromConfig(agent: LoadedYaml<AgentFile>, baseDir: string, section: HandlerSection = 'handlers'): Promise<Map<string, Handler>> {
  const handlers = new Map<string, Handler>();
  for (const [capability, modulePath] of Object.entries(agent.value[section])) {
    // Entries with a `type` are other handler types'.
    if (typeof modulePath !== 'string') continue;
    const fail = (problem: string): ConfigError => new ConfigError(agent.file, agent.lineOf([section, capability]), `${section}.${capability}`, problem);
    const file = isAbsolute(modulePath) ? modulePath : resolve(baseDir, modulePath);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      throw fail(`cannot load ${file}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    const handler = module['default'] ?? module[capability];
    if (typeof handler !== 'function') throw fail(`${file} exports no function (default export or export named ${capability})`);
    handlers.set(capability, handler as Handler);
  }
  return handlers;
}

/** A code module: `handlers.<capability>` is the path of a module whose export is the handler. */
export const moduleHandlerType: HandlerType = {
  name: 'module',
  entrySchema: z.string().min(1).describe('A module path, relative to agent.yaml, whose default export or export named like the capability is the handler.'),
  handlers: ({ config, section }) => handlersFromConfig(config.agent, config.dir, section),
};
