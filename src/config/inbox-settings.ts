import { canonicalJson } from '../envelope/index.js';
import type { AgentFile } from './agent-file.js';
import type { CapabilitiesFile } from './capabilities-file.js';
import { ConfigError, fieldPath, type LoadedYaml } from '../yaml/index.js';
import { sourcePath, type EventSourcesFile } from './event-sources-file.js';
import { TOPIC_ROLES, type TopicRole } from './inbox-fields.js';

type Idempotency = NonNullable<EventSourcesFile['sources'][number]['idempotency']>;

/** What the agent's one inbox is configured with, gathered from every file that may say it. */
export interface InboxSettings {
  readonly topics: Readonly<Partial<Record<TopicRole, string>>>;
  readonly concurrency?: number;
  readonly maxInflight?: number;
  readonly idempotency?: Idempotency;
}

interface Origin {
  readonly loaded: LoadedYaml<unknown>;
  readonly path: readonly PropertyKey[];
}

/**
 * An agent has one inbox, so every event source describes the same one: a setting given in
 * several places (its home — capabilities.yaml `topics`, agent.yaml `limits` — and any
 * number of sources) must have one value, or it is a ConfigError at the line that
 * disagrees, naming where the other value is.
 */
export function inboxSettingsOf(agent: LoadedYaml<AgentFile>, capabilities: LoadedYaml<CapabilitiesFile>, eventSources: LoadedYaml<EventSourcesFile> | undefined): InboxSettings {
  const seen = new Map<string, { value: unknown; origin: Origin }>();
  const settle = (setting: string, value: unknown, origin: Origin): void => {
    if (value === undefined) return;
    const earlier = seen.get(setting);
    if (earlier === undefined) {
      seen.set(setting, { value, origin });
      return;
    }
    if (same(earlier.value, value)) return;
    const where = `${earlier.origin.loaded.file}${lineSuffix(earlier.origin)} ${fieldPath(earlier.origin.path)}`;
    throw new ConfigError(origin.loaded.file, origin.loaded.lineOf(origin.path), fieldPath(origin.path), `is ${canonicalJson(value)}, but ${where} is ${canonicalJson(earlier.value)}: the agent has one inbox, so they must agree`);
  };
  for (const role of TOPIC_ROLES) settle(`topics.${role}`, capabilities.value.topics?.[role], { loaded: capabilities, path: ['topics', role] });
  // The design documents' list-form transports name the topics in each entry: the same settings.
  for (const listed of capabilities.value.listedTopics) {
    for (const role of TOPIC_ROLES) settle(`topics.${role}`, listed.topics[role], { loaded: capabilities, path: [...listed.path, role] });
  }
  for (const limit of ['concurrency', 'maxInflight'] as const) settle(`limits.${limit}`, agent.value.limits?.[limit], { loaded: agent, path: ['limits', limit] });
  eventSources?.value.sources.forEach((source, index) => {
    const at = (...path: PropertyKey[]): Origin => ({ loaded: eventSources, path: [...sourcePath(eventSources.value, index), ...path] });
    for (const role of TOPIC_ROLES) settle(`topics.${role}`, source[`${role}Topic`], at(`${role}Topic`));
    for (const limit of ['concurrency', 'maxInflight'] as const) settle(`limits.${limit}`, source.limits?.[limit], at('limits', limit));
    settle('idempotency', source.idempotency, at('idempotency'));
  });
  const value = <T>(setting: string): T | undefined => seen.get(setting)?.value as T | undefined;
  const topics: Partial<Record<TopicRole, string>> = {};
  for (const role of TOPIC_ROLES) {
    const topic = value<string>(`topics.${role}`);
    if (topic !== undefined) topics[role] = topic;
  }
  const concurrency = value<number>('limits.concurrency');
  const maxInflight = value<number>('limits.maxInflight');
  const idempotency = value<Idempotency>('idempotency');
  return { topics, ...(concurrency !== undefined ? { concurrency } : {}), ...(maxInflight !== undefined ? { maxInflight } : {}), ...(idempotency !== undefined ? { idempotency } : {}) };
}

function lineSuffix(origin: Origin): string {
  const line = origin.loaded.lineOf(origin.path);
  return line === undefined ? '' : `:${line}`;
}

/** Canonical text (RFC 8785): key order does not make two values differ. */
function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
