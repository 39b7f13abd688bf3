import { loadAgentConfig } from '../config/agent-config.js';
import type { Logger } from '../observability/logger.js';
import { createPinoLogger } from '../observability/pino-logger.js';
import { PrometheusMetrics } from '../observability/prometheus-metrics.js';
import { buildAgent, type BuiltAgent } from './build-agent.js';
import { startHealthServer, type HealthServer } from './health-server.js';

export interface RunningDaemon {
  readonly agent: BuiltAgent;
  readonly health: HealthServer;
  /** Stops consuming, lets in-flight handlers finish (drain timeout), settles pending calls, closes stores. */
  stop(): Promise<void>;
}

/** Loads an agent's config directory, starts the agent and its health endpoints. */
export async function startDaemon(dir: string, options: { env?: NodeJS.ProcessEnv; logger?: Logger } = {}): Promise<RunningDaemon> {
  const env = options.env ?? process.env;
  const config = await loadAgentConfig(dir, env);
  const level = config.agent.value.log?.level ?? 'info';
  const logger = options.logger ?? createPinoLogger({ level });
  const metrics = new PrometheusMetrics({ defaultLabels: { agent: config.agent.value.agent.id } });
  const agent = await buildAgent(config, { logger, env, metrics });
  let ready = false;
  const http = config.agent.value.http ?? { host: '127.0.0.1', port: 9464 };
  const health = await startHealthServer({ ...http, agent: agent.node.uri, ready: () => ready, metrics: metrics.registry });
  await agent.node.start();
  ready = true;
  logger.info({ agentId: agent.node.id, port: health.port, capabilities: config.capabilities.value.capabilities.map((c) => c.name) }, 'agent serving');
  return {
    agent,
    health,
    async stop() {
      ready = false;
      await agent.close();
      await health.close();
      logger.info({ agentId: agent.node.id }, 'agent stopped');
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
