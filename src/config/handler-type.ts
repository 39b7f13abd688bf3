import type { z } from 'zod';
import type { AuditLog } from '../audit/index.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics } from '../observability/index.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { AgentNode } from '../rpc/agent-node.js';
import type { Handler } from '../rpc/index.js';
import type { SecretMasker, SecretResolver } from '../secrets/index.js';
import type { WorkflowStepRunners } from '../workflows/index.js';
import type { AgentConfig } from './agent-config.js';
import type { HandlerEntryContribution } from './plugins.js';

/** What every handler type is given: the agent's files, its node and what the node's handlers share. */
export interface HandlerTypeBase {
  readonly config: AgentConfig;
  readonly node: AgentNode;
  /** Resolves secret references; every secret it resolves is also added to `masker`. */
  readonly secrets: SecretResolver;
  /** The secrets handlers must never send or log. */
  readonly masker: SecretMasker;
  readonly audit: AuditLog;
  readonly metrics: RpcMetrics;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  /** The process's remote nodes (agent.yaml's and the node store's), when the daemon resolves them. */
  readonly remoteNodes?: RemoteNodeResolver;
}

/**
 * What handler types offer each other, so one runs a step through another without naming its
 * internals: a workflow's agent steps run as model agents do, its worker steps as remote workers do.
 */
export type HandlerServices = WorkflowStepRunners;

/**
 * The sections of agent.yaml that name handlers, by capability: `handlers:` those of its
 * requests, `events:` those of the events sent to it (docs/events.md). Both take the same
 * entries; a handler type builds the handlers of one section at a time.
 */
export const HANDLER_SECTIONS = ['handlers', 'events'] as const;
export type HandlerSection = (typeof HANDLER_SECTIONS)[number];

/** What a handler type is given to build its handlers: the base, the services the types offered, and the section it builds. */
export interface HandlerTypeContext extends HandlerTypeBase {
  readonly services: HandlerServices;
  readonly section: HandlerSection;
}

/**
 * One kind of handler agent.yaml's `handlers:` can name, in a feature folder of its own: its
 * entry schema and sections, its check, and the handlers of its own entries by capability.
 */
export interface HandlerType extends HandlerEntryContribution {
  /** Services this type offers the others; asked of every type before any builds its handlers. */
  services?(context: HandlerTypeBase): Promise<HandlerServices> | HandlerServices;
  /** The handlers of its entries in `context.section`, by capability. */
  handlers(context: HandlerTypeContext): Promise<ReadonlyMap<string, Handler>> | ReadonlyMap<string, Handler>;
}

/** agent.yaml's entries of one type (`type: <type>`) in one section, as its schema parsed them when the files loaded. */
export function handlerEntriesOf<S extends z.ZodType>(config: Pick<AgentConfig, 'agent'>, type: string, _schema: S, section: HandlerSection): Array<[capability: string, entry: z.output<S>]> {
  return Object.entries(config.agent.value[section]).filter((pair): pair is [string, z.output<S>] => {
    const entry = pair[1];
    return typeof entry === 'object' && entry !== null && (entry as { type?: unknown }).type === type;
  });
}
