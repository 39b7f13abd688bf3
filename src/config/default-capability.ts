import { sessionConfigSchema } from '../sessions/index.js';
import { ConfigError } from '../yaml/index.js';
import type { AgentConfig } from './agent-config.js';
import { sectionOf } from './plugins.js';

/**
 * agent.yaml `session.capability`, the capability a plain message calls: the session API's,
 * which `/execute` and the A2A server use too. Must be one of the agent's declared capabilities.
 */
export function defaultCapabilityOf(config: AgentConfig): { defaultCapability?: string } {
  const capability = sectionOf(config, 'session', sessionConfigSchema)?.capability;
  if (capability === undefined) return {};
  if (!config.capabilities.value.capabilities.some((c) => c.name === capability)) {
    throw new ConfigError(config.agent.file, config.agent.lineOf(['session', 'capability']), 'session.capability', `capability ${capability} is not declared in capabilities.yaml`);
  }
  return { defaultCapability: capability };
}
