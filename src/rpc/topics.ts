/**
 * Default topic names. Every agent owns a durable request inbox, a reply target and an
 * optional fan-out event stream; tenants get their own set so one tenant's traffic never
 * shares a topic with another's.
 */

export interface AgentTopics {
  readonly requests: string;
  readonly responses: string;
  readonly events: string;
  /** DLQ records (JSON) of this agent, for operators and tools on the broker side. */
  readonly dlq: string;
}

export function defaultAgentTopics(agentId: string, tenantId?: string): AgentTopics {
  const base = tenantId === undefined ? `agents.${agentId}` : `agents.${agentId}.${tenantId}`;
  return { requests: `${base}.requests`, responses: `${base}.responses`, events: `${base}.events`, dlq: `${base}.dlq` };
}
