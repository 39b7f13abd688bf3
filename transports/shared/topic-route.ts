import { z } from 'zod';

/** The rpc-peers.yaml route field every topic-based transport has: the peer's inbox topic. */
export const topicRouteFields = {
  /** The peer's inbox topic (NATS subject, Kafka topic); default agents.<id>.requests. */
  requestsTopic: z.string().min(1).optional(),
};

export function requestsTopicOf(route: { readonly requestsTopic?: string | undefined }): string | undefined {
  return route.requestsTopic;
}

/**
 * One entry may hold several endpoints, comma-separated: `brokers: ["${env:KAFKA_BROKERS}"]`
 * with `KAFKA_BROKERS=kafka-1:9092,kafka-2:9092`, as such variables are usually set.
 */
export function splitEndpoints(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

/** One or several servers (brokers, URLs) a connection or a route names. */
export type Endpoints = string | readonly string[];

/** Sorted and joined: two lists name the same cluster when they hold the same entries. */
function endpointList(value: Endpoints): string {
  return (typeof value === 'string' ? [value] : [...value]).sort().join(',');
}

/**
 * A transport's `checkRoute` for routes that name servers or brokers: an agent holds one
 * connection per kind, so a peer said to listen elsewhere could never be reached.
 */
export function endpointMismatch(kind: string, field: string, theirs: Endpoints | undefined, own: Endpoints | undefined): { field: string; message: string } | undefined {
  if (theirs === undefined || own === undefined || endpointList(theirs) === endpointList(own)) return undefined;
  return { field, message: `${endpointList(theirs)} is not where this agent connects for ${kind} (${endpointList(own)})` };
}
