import type { LoadedYaml } from '../yaml/index.js';
import { z } from 'zod';
import { workflowHandlerSchema, type AgentFile, type HandlerEntryContribution } from '../config/index.js';
import { agentHandlerSchema } from '../model-agents/index.js';
import type { Handler } from '../rpc/index.js';
import { handlersFromConfig } from './handlers-from-config.js';
import { modelAgentHandlers, type ModelAgents } from './model-agents.js';
import { workflowHandlers, type WorkflowHandlersContext } from './workflow-handlers.js';

/** What a handler type is given to build its handlers: the agent's files and what it shares. */
export interface HandlerTypeContext {
  readonly agent: LoadedYaml<AgentFile>;
  readonly dir: string;
  readonly modelAgents: ModelAgents;
  readonly workflows: WorkflowHandlersContext;
}

/**
 * One kind of handler agent.yaml's `handlers:` can name: it builds, by capability, the
 * handlers of its own entries and passes over the others.
 */
export interface HandlerType extends HandlerEntryContribution {
  handlers(context: HandlerTypeContext): Promise<ReadonlyMap<string, Handler>> | ReadonlyMap<string, Handler>;
}

/** The handler types an agent built from YAML knows, one line each (as transports/plugins.ts lists the transports). */
export const builtinHandlerTypes: readonly HandlerType[] = [
  { name: 'module', entrySchema: z.string().min(1), handlers: ({ agent, dir }) => handlersFromConfig(agent, dir) },
  { name: 'agent', entrySchema: agentHandlerSchema, handlers: ({ modelAgents }) => modelAgentHandlers(modelAgents) },
  { name: 'workflow', entrySchema: workflowHandlerSchema, handlers: ({ workflows }) => workflowHandlers(workflows) },
];
