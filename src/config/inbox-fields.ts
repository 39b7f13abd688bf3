import { z } from 'zod';

/**
 * Fields that describe the agent's one inbox and that two files may set: agent.yaml
 * `limits` and capabilities.yaml `topics` are their homes; event-sources.yaml repeats them
 * (as the design documents' inbox source does) as aliases of the same settings.
 */
export const inboxLimitFields = {
  concurrency: z.int().min(1).optional().describe('Handlers running at once on this node; above it deliveries wait (and count against maxInflight). Default 256.'),
  maxInflight: z
    .int()
    .min(1)
    .optional()
    .describe("Deliveries one subscription holds unacknowledged before the transport pauses consumption. Default: the transport's own."),
};

export const TOPIC_ROLES = ['requests', 'responses', 'events'] as const;
export type TopicRole = (typeof TOPIC_ROLES)[number];

export const topicFields = {
  requests: z.string().min(1).optional().describe("The agent's durable request inbox. Default `agents.<id>.requests` (`agents.<id>.<tenantId>.requests` with a tenant)."),
  responses: z.string().min(1).optional().describe("Base of the replicas' reply topics (`<responses>.<instanceId>`). Default `agents.<id>.responses`."),
  events: z.string().min(1).optional().describe('Fan-out event stream. Default `agents.<id>.events`.'),
};
