import { z } from 'zod';
import type { ConfigKind } from './config-kinds.js';

/** capabilities.yaml `transports`: per configured kind, that plug-in's config. */
export type TransportsConfig = Readonly<Record<string, unknown>>;

/**
 * Where this agent connects, per transport kind (capabilities.yaml `transports`), one key
 * per loaded plug-in validated by its `configSchema`. An unknown kind is an error naming
 * the field (a strict object); `${env:NAME}` works in any string but `…Ref` fields.
 */
export function transportsConfigSchema(plugins: readonly ConfigKind[]): z.ZodType<TransportsConfig> {
  // A gateway (http, a2a) comes without asking; the agent still needs a transport to listen on.
  const listening = plugins.filter((plugin) => !plugin.implicit).map((plugin) => plugin.kind);
  return z
    .strictObject(Object.fromEntries(plugins.map((plugin) => [plugin.kind, plugin.configSchema.optional()])))
    .refine((value) => listening.some((kind) => value[kind] !== undefined), `at least one transport (${listening.join(', ')}) is required`);
}
