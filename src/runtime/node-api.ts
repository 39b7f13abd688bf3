import { join } from 'node:path';
import { dataDirOf, type AgentConfig } from '../config/agent-config.js';
import { ConfigError } from '../config/config-error.js';
import type { Logger } from '../observability/logger.js';
import type { ApprovalAnswer, ApprovalGate, ApprovalPrompt } from '../rpc/approvals.js';
import { noApprovals } from '../rpc/approvals.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { ApiRoute } from '../server/api-route.js';
import { ApiTokens } from '../server/api-tokens.js';
import { SessionManager, type SessionAgent } from '../server/sessions/session-manager.js';
import { sessionRoutes } from '../server/sessions/sessions-routes.js';
import { SessionFileStore } from '../server/sessions/session-store.js';
import type { HttpIngress } from '../../transports/http/http-ingress.js';

/** Approval prompts go to the session manager once it exists (it needs the agents, which need the gate). */
export class LateApprovalGate implements ApprovalGate {
  target: ApprovalGate = noApprovals;

  request(request: AgentRpcEnvelope, prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    return this.target.request(request, prompt);
  }
}

/** The API tokens of a process: those listed in its first agent's agent.yaml (`api.tokens`). */
export async function loadApiTokens(config: AgentConfig, secrets: SecretResolver): Promise<ApiTokens> {
  const { agent } = config;
  const entries = [];
  for (const [index, entry] of (agent.value.api?.tokens ?? []).entries()) {
    try {
      entries.push({ user: entry.user, role: entry.role, token: await secrets.resolve(entry.tokenRef, config.dir) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(agent.file, agent.lineOf(['api', 'tokens', index, 'tokenRef']), `api.tokens[${index}].tokenRef`, message);
    }
  }
  return new ApiTokens(entries);
}

/** The session API over the agents of this process; sessions are kept under the first agent's data dir. */
export async function startSessions(
  configs: readonly AgentConfig[],
  agents: readonly SessionAgent[],
  ingress: HttpIngress,
  logger: Logger,
): Promise<{ manager: SessionManager; routes: ApiRoute[] }> {
  const first = configs[0]!;
  const store = await SessionFileStore.open(join(dataDirOf(first), 'sessions'));
  const manager = new SessionManager({
    agents,
    ingress,
    store,
    logger: logger.child({ component: 'sessions' }),
    maxPerUser: first.agent.value.session?.maxPerUser ?? 100,
  });
  await manager.load();
  return { manager, routes: sessionRoutes(manager) };
}
