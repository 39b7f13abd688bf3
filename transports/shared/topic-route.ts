import { z } from 'zod';

/** The rpc-peers.yaml route field every topic-based transport has: the peer's inbox topic. */
export const topicRouteFields = {
  /** The peer's inbox topic (NATS subject, Kafka topic); default agents.<id>.requests. */
  requestsTopic: z.string().min(1).optional(),
};

export function requestsTopicOf(route: { readonly requestsTopic?: string | undefined }): string | undefined {
  return route.requestsTopic;
}

/** Two lists of servers or brokers name the same cluster when they hold the same entries. */
export function sameEndpoints(a: string | readonly string[], b: string | readonly string[]): boolean {
  const sorted = (value: string | readonly string[]): string => (typeof value === 'string' ? [value] : [...value]).sort().join(',');
  return sorted(a) === sorted(b);
}

export function endpointList(value: string | readonly string[]): string {
  return (typeof value === 'string' ? [value] : [...value]).sort().join(',');
}
