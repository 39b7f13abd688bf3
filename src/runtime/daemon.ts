import { loadAgentConfig, type AgentConfig, type ServedAgent } from '../config/index.js';
import type { Logger } from '../logger.js';
import { createPinoLogger } from '../observability/pino-logger.js';
import { PrometheusMetrics } from '../observability/prometheus-metrics.js';
import { createSecretResolver, maskingResolver, SecretMasker } from '../secrets/index.js';
import type { DaemonPlugins } from './plugins.js';
import { startNodeHttpServer, type NodeHttpServer } from '../http-server/index.js';
import type { SessionManager } from '../sessions/index.js';
import { sessionsFrontDoor } from '../sessions/front-door/index.js';
import type { A2aServer } from '../a2a/server/a2a-server.js';
import { a2aFrontDoor } from '../a2a/server/index.js';
import { flowsFrontDoor, type DaemonFlows } from '../flow-recording/front-door/index.js';
import { buildAgent, type BuiltAgent } from './build-agent.js';
import { loadApiTokens } from './api-tokens.js';
import { OpenedFrontDoors } from './opened-front-doors.js';
import { packageVersion, publicBaseUrl } from './public-base-url.js';
import { startProcessTracing, type ProcessTracing } from './process-tracing.js';
import { systemClock } from '../clock.js';

export interface RunningDaemon {
  /** The agents this process runs (one for `agent-rpc serve`, several for an example fleet). */
  readonly agents: readonly BuiltAgent[];
  /** /healthz, /readyz, /metrics, the front doors' /api routes and their own paths. */
  readonly http: NodeHttpServer;
  /** The session API; undefined when the plug-ins have no sessions front door. */
  readonly sessions: SessionManager | undefined;
  /** Every agent as an A2A agent: its card and JSON-RPC endpoint on the HTTP server (docs/a2a.md); undefined without the A2A SDK installed. */
  readonly a2a: A2aServer | undefined;
  /** The flow records behind /flows; undefined when the plug-ins have no flows front door. */
  readonly flows: DaemonFlows | undefined;
  /** Stops consuming, lets in-flight handlers finish (drain timeout), settles pending calls, closes stores. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  /** Overrides agent.yaml's `http` (of the first agent). */
  readonly http?: { readonly host?: string; readonly port?: number };
}

/** What the agents of a process share while it runs. */
interface DaemonProcess {
  readonly configs: ReadonlyArray<AgentConfig<DaemonPlugins>>;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly masker: SecretMasker;
  readonly metrics: PrometheusMetrics;
  readonly tracing: ProcessTracing;
  readonly doors: OpenedFrontDoors;
}

/**
 * Loads each agent's config directory with the `plugins`, starts the agents with the transports the
 * transport plug-ins create (agents on the memory transport share one in-process bus;
 * every agent gets a gateway of each gateway plug-in, `http` to call remote nodes) and one HTTP server
 * for the process: /healthz, /readyz, /metrics with every agent's series, and what each
 * front door plug-in serves (the session and remote-node API, docs/remote-nodes.md; the remote
 * execution endpoints, docs/remote-execution.md; every agent as an A2A agent, docs/a2a.md;
 * the flow pages). The front doors are opened before the agents and stopped in list order.
 */
export async function startDaemon(dirs: string | readonly string[], plugins: DaemonPlugins, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const env = options.env ?? process.env;
  const configs: Array<AgentConfig<DaemonPlugins>> = [];
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) configs.push(await loadAgentConfig(dir, plugins, env));
  const first = configs[0];
  if (!first) throw new TypeError('startDaemon: at least one config directory is required');
  const logger = options.logger ?? createPinoLogger({ level: first.agent.value.log?.level ?? 'info' });
  // The process's API tokens and remote-node credentials are secrets its model agents must never send or log.
  const masker = new SecretMasker();
  const secrets = maskingResolver(createSecretResolver({ env }), masker);
  const tokens = await loadApiTokens(first, secrets);
  let ready = false;
  // Before anything else is opened: a front door that cannot open (an A2A block without the SDK) fails the start here.
  const doors = await OpenedFrontDoors.open(plugins.frontDoors, { first, configs, tokens, secrets, logger, ready: () => ready, version: await packageVersion(), clock: systemClock });
  const metrics = new PrometheusMetrics();
  const tracing = await startProcessTracing(first.agent.value.tracing, configs.map((c) => c.agent.value.agent.id), logger);
  const agents = await buildAgents({ configs, env, logger, masker, metrics, tracing, doors });
  const address = { host: '127.0.0.1', port: 9464, ...first.agent.value.http, ...options.http };
  // The API's bodies are bounded like the envelopes the process's agents accept (limits.maxBytes, limits.maxDepth), the widest of them.
  const limits = agents.map(({ node }) => node.inbound.limits);
  const http = await startNodeHttpServer({
    ...address,
    agent: agents.map((a) => a.node.uri).join(','),
    ready: () => ready,
    metrics: metrics.registry,
    tokens,
    routes: doors.routes(),
    maxBodyBytes: Math.max(...limits.map((l) => l.maxBytes)),
    maxDepth: Math.max(...limits.map((l) => l.maxDepth)),
    frontDoors: doors.requests(),
    logger,
  });
  doors.listening(publicBaseUrl(first.agent.value.http?.publicUrl, address.host, http.port));
  for (const agent of agents) await agent.node.start();
  await doors.started(agents.map(servedAgent));
  ready = true;
  for (const { node, config } of agents) {
    logger.info({ agentId: node.id, port: http.port, capabilities: config.capabilities.value.capabilities.map((c) => c.name) }, 'agent serving');
  }
  return {
    agents,
    http,
    sessions: doors.handleOf(sessionsFrontDoor),
    a2a: doors.handleOf(a2aFrontDoor),
    flows: doors.handleOf(flowsFrontDoor),
    async stop() {
      ready = false;
      // The front doors let go of the agents first (A2A declines open questions, flows leave the topic while the transports are open).
      await doors.closeBeforeAgents();
      // Every agent stops taking work before any drains, so none is called by a closed peer.
      await Promise.all(agents.map((agent) => agent.close()));
      await doors.closeAfterAgents();
      await http.close();
      await doors.closeAfterServer();
      await tracing.shutdown();
      logger.info({ agents: agents.map((a) => a.node.id) }, 'stopped');
    },
  };
}

/** Builds each agent with what the front doors wire into it, and attaches it to them. */
async function buildAgents({ configs, env, logger, masker, metrics, tracing, doors }: DaemonProcess): Promise<BuiltAgent[]> {
  const agents: BuiltAgent[] = [];
  const summaryIntervalMs = configs[0]?.agent.value.log?.summaryIntervalMs;
  // What the agents' transports share in this process: the memory plug-in keeps its bus here.
  const shared = new Map<string, unknown>();
  for (const config of configs) {
    const { approvals, flows, remoteNodes } = await doors.wire(config);
    const built = await buildAgent(config, {
      logger,
      env,
      shared,
      ...(summaryIntervalMs ? { warnSummaryIntervalMs: summaryIntervalMs } : {}),
      metrics: metrics.forAgent(config.agent.value.agent.id),
      ...(remoteNodes ? { remoteNodes } : {}),
      ...(approvals ? { approvals } : {}),
      masker,
      tracerProvider: tracing.provider,
      ...(flows ? { flows } : {}),
    });
    await doors.attach(servedAgent(built));
    agents.push(built);
  }
  return agents;
}

function servedAgent({ node, config }: BuiltAgent): ServedAgent {
  return { id: node.id, config, port: node.inbound, transports: node.transports };
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
