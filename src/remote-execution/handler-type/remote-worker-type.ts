import { HANDLER_SECTIONS, handlerEntriesOf, type AgentConfig, type HandlerType, type HandlerTypeBase } from '../../config/index.js';
import { mergedResolver, type RemoteNodeResolver } from '../../remote-nodes/index.js';
import { remoteNodesFromConfig } from '../../remote-nodes/remote-nodes-config.js';
import type { AgentNode } from '../../rpc/agent-node.js';
import type { Handler } from '../../rpc/index.js';
import { ConfigError } from '../../yaml/index.js';
import { remoteWorkerHandlerSchema, remoteWorkerHandler, workerStepRunner } from '../index.js';

/**
 * `type: remote-worker`: a capability run on another node through the remote execution
 * protocol (docs/remote-execution.md). It also runs workflows' `worker:` steps.
 */
export const remoteWorkerHandlerType: HandlerType = {
  name: 'remote-worker',
  entrySchema: remoteWorkerHandlerSchema,
  check: checkWorkers,
  async services(context) {
    const remoteNodes = await workerNodesOf(context);
    return remoteNodes ? { workerSteps: workerStepRunner({ remoteNodes, agentId: agentIdOf(context), mask: (text) => context.masker.mask(text) }) } : {};
  },
  async handlers(context) {
    const handlers = new Map<string, Handler>();
    const entries = handlerEntriesOf(context.config, 'remote-worker', remoteWorkerHandlerSchema, context.section);
    if (entries.length === 0) return handlers;
    // Checked when the files loaded: the worker is one of agent.yaml's remoteNodes.
    const remoteNodes = (await workerNodesOf(context))!;
    for (const [capability, entry] of entries) {
      handlers.set(capability, remoteWorkerHandler({ entry, remoteNodes, agentId: agentIdOf(context), mask: (text) => context.masker.mask(text) }));
    }
    return handlers;
  },
};

/** A worker must be one of agent.yaml's remoteNodes, as a workflow step's must. */
function checkWorkers(config: AgentConfig): void {
  const { agent } = config;
  const names = (agent.value.remoteNodes ?? []).map((node) => node.name);
  for (const section of HANDLER_SECTIONS) {
    for (const [capability, entry] of handlerEntriesOf(config, 'remote-worker', remoteWorkerHandlerSchema, section)) {
      if (names.includes(entry.worker)) continue;
      const known = names.length === 0 ? 'no remoteNodes are configured' : `the remote nodes are ${names.join(', ')}`;
      throw new ConfigError(agent.file, agent.lineOf([section, capability, 'worker']), `${section}.${capability}.worker`, `${entry.worker} is not a remote node: ${known}`);
    }
  }
}

function agentIdOf(context: HandlerTypeBase): string {
  return context.config.agent.value.agent.id;
}

// One resolver per node: the worker steps and the capabilities look nodes up alike.
const resolvers = new WeakMap<AgentNode, Promise<RemoteNodeResolver | undefined>>();

/** The daemon's remote nodes; built without them (library use), agent.yaml's own still reach their workers. */
function workerNodesOf(context: HandlerTypeBase): Promise<RemoteNodeResolver | undefined> {
  if (context.remoteNodes) return Promise.resolve(context.remoteNodes);
  let resolver = resolvers.get(context.node);
  if (!resolver) {
    const { config, secrets } = context;
    resolver = config.agent.value.remoteNodes ? remoteNodesFromConfig(config.agent, (ref) => secrets.resolve(ref, config.dir)).then((nodes) => mergedResolver(nodes, undefined)) : Promise.resolve(undefined);
    resolvers.set(context.node, resolver);
  }
  return resolver;
}
