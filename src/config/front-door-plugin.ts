import type { Clock } from '../clock.js';
import type { ApiRoute, ApiTokens, FrontDoor } from '../http-server/index.js';
import type { Logger } from '../logger.js';
import type { FlowObserver } from '../observability/index.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { ApprovalGate, InboundPort } from '../rpc/index.js';
import type { SecretResolver } from '../secrets/index.js';
import type { RpcTransport } from '../transport.js';
import type { AgentConfig } from './agent-config.js';
import type { ConfigContribution } from './plugins.js';

/**
 * An HTTP surface of the daemon (the session API, `/execute`, the A2A server, the flow pages,
 * the remote-node routes): its agent.yaml sections (`configShape`) and how it is opened. The
 * daemon opens each front door of its list once per process, in list order, and calls the
 * hooks of the opened ones in that order too.
 */
export interface FrontDoorPlugin<Handle = unknown> extends ConfigContribution {
  open(process: FrontDoorProcess): Promise<OpenFrontDoor<Handle>>;
}

/** What a front door is opened with: the process's settings and services, before any agent is built. */
export interface FrontDoorProcess {
  /** The process's first agent: its sections are the process's settings (read with `sectionOf`). */
  readonly first: AgentConfig;
  /** Every agent of the process, the first included. */
  readonly configs: readonly AgentConfig[];
  /** The bearer tokens of `/api` (agent.yaml `api.tokens` of the first agent). */
  readonly tokens: ApiTokens;
  /** Resolves secret references; what it resolves is kept out of what model agents send and log. */
  readonly secrets: SecretResolver;
  readonly logger: Logger;
  /** False while the process starts or stops. */
  readonly ready: () => boolean;
  /** The version of agent-rpc. */
  readonly version: string;
  readonly clock: Clock;
}

/** What the front doors give an agent to be built with; each front door may replace or wrap what those before it gave. */
export interface AgentWiring {
  /** Answers handlers' approval prompts. */
  readonly approvals?: ApprovalGate;
  /** Hears each call the agent makes and handles. */
  readonly flows?: FlowObserver;
  /** The agent's remote nodes. */
  readonly remoteNodes?: RemoteNodeResolver;
}

/** An agent once built, as the front doors see it. */
export interface ServedAgent {
  readonly id: string;
  readonly config: AgentConfig;
  /** Hands requests to the agent's inbox. */
  readonly port: InboundPort;
  readonly transports: ReadonlyMap<string, RpcTransport>;
}

/**
 * An opened front door. Every hook is optional; the daemon calls them in this order:
 * `wire` and `attach` for each agent, `routes` and `requests` when the server starts,
 * `listening`, `started` once the agents run; on stop `closeBeforeAgents`, (the agents
 * close), `closeAfterAgents`, (the server closes), `closeAfterServer`.
 */
export interface OpenFrontDoor<Handle = unknown> {
  /** What the daemon hands its caller (`RunningDaemon.sessions`, `.a2a`, `.flows`). */
  readonly handle?: Handle;
  /** What an agent is built with, given what the front doors before this one gave. */
  wire?(config: AgentConfig, wiring: AgentWiring): AgentWiring | Promise<AgentWiring>;
  /** The agent, built (not started yet). */
  attach?(agent: ServedAgent): void | Promise<void>;
  /** Token-protected routes under `/api`, asked once every agent is attached. */
  routes?(): readonly ApiRoute[];
  /** Requests of a protocol of its own (A2A, the flow pages), tried before `/api`. */
  readonly requests?: FrontDoor;
  /** The server listens; `baseUrl` is how clients reach it (agent.yaml `http.publicUrl`, else its address). */
  listening?(baseUrl: string): void;
  /** Every agent runs. */
  started?(agents: readonly ServedAgent[]): Promise<void>;
  /** Stopping, while the agents and their transports are still open. */
  closeBeforeAgents?(): void | Promise<void>;
  /** The agents are closed, the server still answers. */
  closeAfterAgents?(): Promise<void>;
  /** The server is closed. */
  closeAfterServer?(): Promise<void>;
}
