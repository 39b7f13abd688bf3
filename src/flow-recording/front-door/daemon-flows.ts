import { sectionOf, type AgentConfig, type ServedAgent } from '../../config/index.js';
import { ConfigError } from '../../yaml/index.js';
import type { Clock } from '../../clock.js';
import { FlowRecorder, FlowRecordStore, flowsConfigSchema, flowsPublisher, viewFlows, type FlowCall, type FlowsConfig } from '../index.js';
import type { Logger } from '../../logger.js';
import { flowRoutes } from './flow-routes.js';
import type { FrontDoor } from '../../http-server/index.js';
import type { RpcTransport, Subscription } from '../../transport.js';

/** agent.yaml `flows`. */
export const flowsSection = flowsConfigSchema
  .optional()
  .describe("The flow pages (/flows) and the fleet's flows topic (docs/observability.md); only the first agent's `record`, `view`, `retain` and `sampleRatio` count.");

/** The process's flow records: one store, a recorder per agent, the flows topic, the pages. */
export class DaemonFlows {
  readonly store: FlowRecordStore;
  readonly routes: FrontDoor;
  private readonly settings: FlowsConfig;
  private readonly publishers = new Map<string, (call: FlowCall) => void>();
  private subscription: Subscription | undefined;

  constructor(
    first: AgentConfig,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.settings = settingsOf(first);
    const { retain } = this.settings;
    this.store = new FlowRecordStore(clock, { maxFlows: retain.flows, maxAgeMs: retain.maxAgeMs, maxCallsPerFlow: retain.callsPerFlow });
    this.routes = flowRoutes({ store: this.store, scope: this.settings.view ? 'fleet' : 'local' });
  }

  /** The observer for one agent's node; undefined when the process records nothing. */
  recorderFor(config: AgentConfig): FlowRecorder | undefined {
    if (!this.settings.record) return undefined;
    const id = config.agent.value.agent.id;
    const publish = settingsOf(config).publish;
    return new FlowRecorder({
      store: this.store,
      clock: this.clock,
      sampleRatio: this.settings.sampleRatio,
      // Bound once the agent's transports exist (see start).
      ...(publish ? { publish: (call: FlowCall) => this.publishers.get(id)?.(call) } : {}),
    });
  }

  /** Once the agents run: their flows-topic publishers, and this process's view of the topic. */
  async start(agents: readonly ServedAgent[]): Promise<void> {
    for (const { id, transports, config } of agents) {
      const settings = settingsOf(config);
      if (!settings.publish || !this.settings.record) continue;
      this.publishers.set(id, flowsPublisher(transportOf(config, transports, 'publish'), settings.topic, this.logger));
    }
    const first = agents[0];
    if (this.settings.view && first) {
      this.subscription = await viewFlows(transportOf(first.config, first.transports, 'view'), this.settings.topic, this.store, this.logger);
    }
  }

  async close(): Promise<void> {
    this.publishers.clear();
    await this.subscription?.close();
  }
}

function settingsOf(config: AgentConfig): FlowsConfig {
  return sectionOf(config, 'flows', flowsSection) ?? flowsConfigSchema.parse({});
}

/** `flows.transport`, else the first broker transport (a fleet's flows cross processes), else the in-process bus. */
function transportOf(config: AgentConfig, transports: ReadonlyMap<string, RpcTransport>, use: 'publish' | 'view'): RpcTransport {
  const { agent } = config;
  const kind = sectionOf(config, 'flows', flowsSection)?.transport;
  if (kind !== undefined) {
    const chosen = transports.get(kind);
    if (chosen) return chosen;
    throw new ConfigError(agent.file, agent.lineOf(['flows', 'transport']), 'flows.transport', `the agent has no ${kind} transport (it has ${[...transports.keys()].join(', ')})`);
  }
  const usable = [...transports.values()].filter((t) => t.traits.remoteSubscribe && t.traits.fanOut !== false);
  const chosen = usable.find((t) => t.kind !== 'memory') ?? usable[0];
  if (chosen) return chosen;
  throw new ConfigError(agent.file, agent.lineOf(['flows', use]), `flows.${use}`, 'needs a transport that fans messages out (a broker, or memory in one process)');
}
