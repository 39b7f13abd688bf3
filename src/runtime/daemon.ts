import { join } from 'node:path';
import { dataDirOf, loadAgentConfig, type AgentConfig } from '../config/index.js';
import { ConfigError } from '../yaml/index.js';
import type { Logger } from '../logger.js';
import { createPinoLogger } from '../observability/pino-logger.js';
import { PrometheusMetrics } from '../observability/prometheus-metrics.js';
import { createSecretResolver, maskingResolver, SecretMasker } from '../secrets/index.js';
import type { DaemonPlugins } from './plugins.js';
import { DEFAULT_A2A_TASKS_PER_USER, type SessionManager } from '../server/index.js';
import { startNodeHttpServer, type NodeHttpServer, type ApiRoute } from '../http-server/index.js';
import { buildAgent, type BuiltAgent } from './build-agent.js';
import { loadApiTokens, openSessions } from './node-api.js';
import { remoteNodesOf } from './remote-nodes-of.js';
import { openExecuteApi } from './execute-api.js';
import type { A2aServer } from '../server/a2a/a2a-server.js';
import { a2aUnavailable, loadA2aModules } from './daemon-a2a.js';
import { packageVersion, publicBaseUrl } from './public-base-url.js';
import { startProcessTracing } from './process-tracing.js';
import { DaemonFlows } from './daemon-flows.js';
import { systemClock } from '../clock.js';

export interface RunningDaemon {
  /** The agents this process runs (one for `agent-rpc serve`, several for an example fleet). */
  readonly agents: readonly BuiltAgent[];
  /** /healthz, /readyz, /metrics and the /api/v1 session and remote-node API. */
  readonly http: NodeHttpServer;
  readonly sessions: SessionManager;
  /** Every agent as an A2A agent: its card and JSON-RPC endpoint on the HTTP server (docs/a2a.md); undefined without the A2A SDK installed. */
  readonly a2a: A2aServer | undefined;
  /** The flow records behind /flows. */
  readonly flows: DaemonFlows;
  /** Stops consuming, lets in-flight handlers finish (drain timeout), settles pending calls, closes stores. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  /** Overrides agent.yaml's `http` (of the first agent). */
  readonly http?: { readonly host?: string; readonly port?: number };
}

/**
 * Loads each agent's config directory with the `plugins`, starts the agents with the transports the
 * transport plug-ins create (agents on the memory transport share one in-process bus;
 * every agent gets a gateway of each gateway plug-in, `http` to call remote nodes; the session API
 * hands requests to each agent's inbound port) and one HTTP server
 * for the process: /healthz, /readyz, /metrics with every agent's series, and the
 * token-protected session and remote-node API (docs/remote-nodes.md) and the remote
 * execution endpoints (docs/remote-execution.md), and every agent as an A2A agent: its card and
 * JSON-RPC endpoint (docs/a2a.md) when the A2A SDK is installed.
 */
export async function startDaemon(dirs: string | readonly string[], plugins: DaemonPlugins, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const env = options.env ?? process.env;
  const configs: Array<AgentConfig<DaemonPlugins>> = [];
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) configs.push(await loadAgentConfig(dir, plugins, env));
  const first = configs[0];
  if (!first) throw new TypeError('startDaemon: at least one config directory is required');
  const logger = options.logger ?? createPinoLogger({ level: first.agent.value.log?.level ?? 'info' });
  // Before anything is opened: a configured A2A block without the SDK fails the start here.
  const a2aModules = await loadA2aModules(configs, logger);
  // The process's API tokens and remote-node credentials are secrets its model agents must never send or log.
  const masker = new SecretMasker();
  const secrets = maskingResolver(createSecretResolver({ env }), masker);
  const tokens = await loadApiTokens(first, secrets);
  const metrics = new PrometheusMetrics();
  const tracing = await startProcessTracing(first.agent.value.tracing, configs.map((c) => c.agent.value.agent.id), logger);
  // What the agents' transports share in this process: the memory plug-in keeps its bus here.
  const shared = new Map<string, unknown>();
  const sessions = await openSessions(first, logger);
  let ready = false;
  const a2a = a2aModules && new a2aModules.server.A2aServer({ tokens, ready: () => ready, logger: logger.child({ component: 'a2a' }), version: await packageVersion() });
  const agents: BuiltAgent[] = [];
  const flows = new DaemonFlows(first, systemClock, logger);
  let remoteRoutes: ApiRoute[] | undefined;
  for (const config of configs) {
    const remote = await remoteNodesOf(config, secrets, logger);
    // The first agent's node store serves the remote-node API of the process.
    remoteRoutes ??= remote.routes;
    const recorder = flows.recorderFor(config);
    const summaryIntervalMs = first.agent.value.log?.summaryIntervalMs;
    const built = await buildAgent(config, { logger, env, shared, ...(summaryIntervalMs ? { warnSummaryIntervalMs: summaryIntervalMs } : {}), metrics: metrics.forAgent(config.agent.value.agent.id), remoteNodes: remote.resolver, approvals: a2a ? a2a.runs.gateOver(sessions.manager.prompts) : sessions.manager.prompts, masker, tracerProvider: tracing.provider, ...(recorder ? { flows: recorder } : {}) });
    sessions.manager.attach({ port: built.node.inbound, ...defaultCapabilityOf(config) });
    const capabilities = config.capabilities.value.capabilities;
    if (a2a && a2aModules) {
      const a2aSettings = config.agent.value.a2a;
      // Kept in the data directory, so a client can read its tasks across a restart.
      const taskStore = await a2aModules.taskStore.TaskFileStore.open(join(dataDirOf(config), 'a2a-tasks', built.node.id), a2aSettings?.tasksPerUser ?? DEFAULT_A2A_TASKS_PER_USER, logger.child({ component: 'a2a', agentId: built.node.id }));
      a2a.attach({ id: built.node.id, port: built.node.inbound, capabilities: new Set(capabilities.map((c) => c.name)), capabilityConfigs: capabilities, ...defaultCapabilityOf(config), ...a2aSettings, taskStore });
    }
    agents.push(built);
  }
  const execute = await openExecuteApi(
    first,
    secrets,
    agents.map(({ node, config }) => ({ id: node.id, port: node.inbound, capabilities: config.capabilities.value.capabilities.map((c) => c.name), ...defaultCapabilityOf(config) })),
    logger,
  );
  const address = { host: '127.0.0.1', port: 9464, ...first.agent.value.http, ...options.http };
  // The API's bodies are bounded like the envelopes the process's agents accept (limits.maxBytes, limits.maxDepth), the widest of them.
  const limits = agents.map(({ node }) => node.inbound.limits);
  const http = await startNodeHttpServer({
    ...address,
    agent: agents.map((a) => a.node.uri).join(','),
    ready: () => ready,
    metrics: metrics.registry,
    tokens,
    routes: [...sessions.routes, ...(remoteRoutes ?? []), ...execute.routes],
    maxBodyBytes: Math.max(...limits.map((l) => l.maxBytes)),
    maxDepth: Math.max(...limits.map((l) => l.maxDepth)),
    frontDoors: [a2a ? a2a.frontDoor : a2aUnavailable, flows.routes],
    logger,
  });
  a2a?.listen(publicBaseUrl(first.agent.value.http?.publicUrl, address.host, http.port));
  for (const agent of agents) await agent.node.start();
  await flows.start(agents);
  ready = true;
  for (const { node, config } of agents) {
    logger.info({ agentId: node.id, port: http.port, capabilities: config.capabilities.value.capabilities.map((c) => c.name) }, 'agent serving');
  }
  return {
    agents,
    http,
    sessions: sessions.manager,
    a2a,
    flows,
    async stop() {
      ready = false;
      a2a?.runs.declineQuestions();
      // Off the flows topic while the transports are still open.
      await flows.close();
      // Every agent stops taking work before any drains, so none is called by a closed peer.
      await Promise.all(agents.map((agent) => agent.close()));
      await sessions.manager.flush();
      await http.close();
      await execute.close();
      await tracing.shutdown();
      logger.info({ agents: agents.map((a) => a.node.id) }, 'stopped');
    },
  };
}

/** agent.yaml `session.capability`: must be one of the agent's declared capabilities. */
function defaultCapabilityOf(config: AgentConfig): { defaultCapability?: string } {
  const capability = config.agent.value.session?.capability;
  if (capability === undefined) return {};
  if (!config.capabilities.value.capabilities.some((c) => c.name === capability)) {
    throw new ConfigError(config.agent.file, config.agent.lineOf(['session', 'capability']), 'session.capability', `capability ${capability} is not declared in capabilities.yaml`);
  }
  return { defaultCapability: capability };
}

/**
 * Runs until SIGTERM or SIGINT, then shuts down gracefully and resolves with exit code 0.
 * A second signal during shutdown exits at once (code 1).
 */
export async function serveUntilSignalled(daemon: RunningDaemon, exit: (code: number) => void = (code) => process.exit(code)): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        process.stderr.write(`agent-rpc serve: second ${signal}, exiting without draining\n`);
        return exit(1);
      }
      stopping = true;
      daemon.stop().then(
        () => resolve(0),
        (error: unknown) => {
          process.stderr.write(`agent-rpc serve: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(3);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
