import type { InboundPort } from '../../rpc/index.js';
import type { SecretValue } from '../../secrets/index.js';
import { apiError, type ApiResponse, type ApiRoute } from '../../http-server/index.js';
import type { Principal } from '../../auth/index.js';
import { resolveComponents } from './execute-components.js';
import { ExecuteHandlers } from './execute-handlers.js';
import { executeBodySchema, firstIssue } from '../../remote-nodes/index.js';
import { runExecute, type ExecuteOutcome } from './execute-runner.js';
import type { RedisConnections } from './redis-execution-store.js';

/** An agent of this process that execute requests can run on. */
export interface ExecuteAgent {
  readonly id: string;
  readonly port: InboundPort;
  readonly capabilities: readonly string[];
  /** agent.yaml `session.capability`: called when the body names none. */
  readonly defaultCapability?: string;
}

export interface ExecuteRoutesOptions {
  readonly agents: readonly ExecuteAgent[];
  /** agent.yaml `execute.connections`, resolved: the worker's own credentials. */
  readonly connections: ReadonlyMap<string, SecretValue>;
  readonly redis: RedisConnections;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly handlers?: ExecuteHandlers;
}

type Prepared = { run: () => Promise<ExecuteOutcome> } | { refused: ApiResponse };

/**
 * The remote execution protocol (docs/remote-execution.md): `POST /execute`,
 * `POST /execute/async` and `GET /execute/status/:id`. A request is checked completely —
 * body, agent, capability, components — before anything runs, so a refused one leaves
 * no trace but its 4xx.
 */
export function executeRoutes(options: ExecuteRoutesOptions): ApiRoute[] {
  const handlers = options.handlers ?? new ExecuteHandlers();
  const prepare = (body: unknown): Prepared => {
    const parsed = executeBodySchema.safeParse(body ?? {});
    if (!parsed.success) return { refused: apiError(400, firstIssue(parsed.error)) };
    const request = parsed.data;
    const agent = options.agents.find((a) => a.id === request.agent_id);
    if (!agent) return { refused: apiError(404, `not found: no agent ${request.agent_id} on this node; agents here: ${options.agents.map((a) => a.id).join(', ')}`) };
    const capability = request.capability ?? agent.defaultCapability;
    if (capability === undefined) return { refused: apiError(400, `bad request: capability: agent ${agent.id} has no session.capability; name one of ${agent.capabilities.join(', ')}`) };
    if (!agent.capabilities.includes(capability)) return { refused: apiError(404, `not found: agent ${agent.id} has no capability ${capability}; it has ${agent.capabilities.join(', ')}`) };
    const components = resolveComponents(request.context, options.connections, options.redis);
    if ('error' in components) return { refused: apiError(400, components.error) };
    return { run: () => runExecute(agent.port, request, capability, components.store, options.timeoutMs) };
  };
  const common = { permission: 'execute' as const, maxBodyBytes: options.maxBodyBytes };
  return [
    {
      ...common,
      method: 'POST',
      pattern: '/execute',
      async handle({ body }) {
        const prepared = prepare(body);
        if ('refused' in prepared) return prepared.refused;
        const outcome = await prepared.run();
        if (outcome.ok) return { status: 200, body: { result: outcome.result, updated_context: outcome.updatedContext } };
        return { status: outcome.status, body: { error: outcome.error, updated_context: outcome.updatedContext } };
      },
    },
    {
      ...common,
      method: 'POST',
      pattern: '/execute/async',
      async handle({ body, principal }) {
        const prepared = prepare(body);
        if ('refused' in prepared) return prepared.refused;
        return { status: 202, body: { handler_id: handlers.start(principal.user, prepared.run()) } };
      },
    },
    {
      ...common,
      method: 'GET',
      pattern: '/execute/status/:id',
      async handle({ params, principal }: { params: Readonly<Record<string, string>>; principal: Principal }) {
        const status = handlers.get(principal.user, params.id!);
        return status ? { status: 200, body: status } : apiError(404, 'not found');
      },
    },
  ];
}
