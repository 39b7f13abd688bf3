import { z } from 'zod';
import type { ConfigKind } from './config-kinds.js';
import { topicFields, TOPIC_ROLES, type TopicRole } from './inbox-fields.js';
import type { TransportsConfig } from './transports-config.js';

/** Topics a list entry names (`topics:` / `subjects:`), and where, so a disagreement names the line. */
export interface ListedTopics {
  readonly path: readonly PropertyKey[];
  readonly topics: Readonly<Partial<Record<TopicRole, string>>>;
}

/** One entry as read: `kind`, that transport's own fields, and maybe its topics field. */
type ListEntry = { readonly kind: string } & Readonly<Record<string, unknown>>;

/**
 * capabilities.yaml `transports` as the design documents write it: a list of
 * `{ kind, <that transport's fields>, topics | subjects: { requests, responses, events } }`.
 * It says what the map form says (one connection per kind, so a kind listed twice is an
 * error), and its topics are the agent's own: the same settings as the file's `topics`.
 */
export function transportsListSchema(plugins: readonly ConfigKind[]): z.ZodType<ListEntry[]> {
  const listening = plugins.filter((plugin) => !plugin.implicit).map((plugin) => plugin.kind);
  const options = plugins.map((plugin) => {
    if (!(plugin.configSchema instanceof z.ZodObject)) throw new TypeError(`transport ${plugin.kind}: configSchema must be a zod object`);
    const topics =
      plugin.topicsField === undefined
        ? {}
        : { [plugin.topicsField]: z.strictObject(topicFields).optional().describe("The agent's topics: the same settings as capabilities.yaml `topics`.") };
    return plugin.configSchema.extend({ kind: z.literal(plugin.kind).describe('The transport kind.'), ...topics });
  });
  const entry = z.discriminatedUnion('kind', options as [z.ZodObject<{ kind: z.ZodLiteral<string> }>, ...Array<z.ZodObject<{ kind: z.ZodLiteral<string> }>>]);
  return z.array(entry).superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((item, index) => {
      if (seen.has(item.kind)) ctx.addIssue({ code: 'custom', path: [index, 'kind'], message: `${item.kind} is listed twice: an agent has one connection per transport kind` });
      seen.add(item.kind);
    });
    if (!list.some((item) => listening.includes(item.kind))) ctx.addIssue({ code: 'custom', message: `at least one transport (${listening.join(', ')}) is required` });
  }) as unknown as z.ZodType<ListEntry[]>;
}

/** The map form of a list (what the transports are created from) and the topics its entries name. */
export function fromTransportsList(list: readonly ListEntry[], plugins: readonly ConfigKind[]): { transports: TransportsConfig; listedTopics: ListedTopics[] } {
  const transports: Record<string, unknown> = {};
  const listedTopics: ListedTopics[] = [];
  list.forEach((item, index) => {
    const field = plugins.find((plugin) => plugin.kind === item.kind)?.topicsField;
    const { kind, ...config } = item as { kind: string } & Record<string, unknown>;
    if (field !== undefined) {
      const topics = config[field] as Partial<Record<TopicRole, string>> | undefined;
      delete config[field];
      if (topics !== undefined) listedTopics.push({ path: ['transports', index, field], topics: pick(topics) });
    }
    transports[kind] = config;
  });
  return { transports, listedTopics };
}

function pick(topics: Partial<Record<TopicRole, string>>): Partial<Record<TopicRole, string>> {
  const out: Partial<Record<TopicRole, string>> = {};
  for (const role of TOPIC_ROLES) if (topics[role] !== undefined) out[role] = topics[role];
  return out;
}
