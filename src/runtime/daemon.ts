import { loadAgentConfig } from '../config/agent-config.js';
import type { Logger } from '../observability/logger.js';
import { createPinoLogger } from '../observability/pino-logger.js';
import { PrometheusMetrics } from '../observability/prometheus-metrics.js';
import { buildAgent, type BuiltAgent } from './build-agent.js';
import { startHealthServer, type HealthServer } from './health-server.js';

export interface RunningDaemon {
  /** The agents this process runs (one for `agent-rpc serve`, several for an example fleet). */
  readonly agents: readonly BuiltAgent[];
  readonly health: HealthServer;
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
 * Loads each agent's config directory, starts the agents (agents on the memory transport
 * share one in-process bus) and one HTTP server for the process: /healthz, /readyz and
 * /metrics with every agent's series.
 */
export async function startDaemon(dirs: string | readonly string[], options: DaemonOptions = {}): Promise<RunningDaemon> {
  const env = options.env ?? process.env;
  const configs = [];
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) configs.push(await loadAgentConfig(dir, env));
  const first = configs[0];
  if (!first) throw new TypeError('startDaemon: at least one config directory is required');
  const logger = options.logger ?? createPinoLogger({ level: first.agent.value.log?.level ?? 'info' });
  const metrics = new PrometheusMetrics();
  const { MemoryBus } = await import('../../transports/memory/index.js');
  const memoryBus = new MemoryBus();
  const agents: BuiltAgent[] = [];
  for (const config of configs) agents.push(await buildAgent(config, { logger, env, memoryBus, metrics: metrics.forAgent(config.agent.value.agent.id) }));
  let ready = false;
  const http = { host: '127.0.0.1', port: 9464, ...first.agent.value.http, ...options.http };
  const health = await startHealthServer({ ...http, agent: agents.map((a) => a.node.uri).join(','), ready: () => ready, metrics: metrics.registry });
  for (const agent of agents) await agent.node.start();
  ready = true;
  for (const { node, config } of agents) {
    logger.info({ agentId: node.id, port: health.port, capabilities: config.capabilities.value.capabilities.map((c) => c.name) }, 'agent serving');
  }
  return {
    agents,
    health,
    async stop() {
      ready = false;
      // Every agent stops taking work before any drains, so none is called by a closed peer.
      await Promise.all(agents.map((agent) => agent.close()));
      await health.close();
      logger.info({ agents: agents.map((a) => a.node.id) }, 'stopped');
    },
  };
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
