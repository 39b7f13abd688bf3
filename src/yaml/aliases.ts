import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { z } from 'zod';
import { ConfigError, fieldPath } from './config-error.js';

/**
 * Config field names are camelCase, and durations are milliseconds (`timeoutMs`). Files
 * written for the design documents use snake_case (RFC 014's agent block and workflow.yaml:
 * `max_iterations`, `timeout_sec`; RFC 027's `remote_nodes`, `auth_token`, ...), seconds, or
 * another name (a peer's `agent` for `id`): those names are accepted as aliases of the field.
 * An alias is declared on the field's schema, so the schema stays the one description of the
 * file (the generated config reference lists aliases too):
 *
 *     maxPerUser: alias(z.int().min(1).default(100), 'max_per_user')
 *     timeoutMs: alias(z.int().min(1).optional(), seconds('timeout_sec'))
 */
export function alias<S extends z.ZodType>(schema: S, ...aliases: Array<string | SecondsAlias>): S {
  const names = aliases.map((entry) => (typeof entry === 'string' ? entry : entry.seconds));
  const inSeconds = aliases.flatMap((entry) => (typeof entry === 'string' ? [] : [entry.seconds]));
  return schema.meta(inSeconds.length === 0 ? { aliases: names } : { aliases: names, secondsAliases: inSeconds }) as S;
}

/** An alias whose value is in seconds, of a field in milliseconds. */
export interface SecondsAlias {
  readonly seconds: string;
}

/** Declares `name` as an alias written in seconds: its value is multiplied by 1,000 when it is renamed to the field. */
export function seconds(name: string): SecondsAlias {
  return { seconds: name };
}

/** The aliases declared on a field, looking through optional/default wrappers. */
export function aliasesOf(schema: z.ZodType): readonly string[] {
  return aliasMeta(schema, 'aliases');
}

/** The aliases of a field that are written in seconds (a subset of aliasesOf). */
export function secondsAliasesOf(schema: z.ZodType): readonly string[] {
  return aliasMeta(schema, 'secondsAliases');
}

function aliasMeta(schema: z.ZodType, key: 'aliases' | 'secondsAliases'): readonly string[] {
  for (let current: z.ZodType | undefined = schema; current !== undefined; current = inner(current)) {
    const meta = z.globalRegistry.get(current);
    if (meta !== undefined && Array.isArray(meta['aliases'])) return Array.isArray(meta[key]) ? (meta[key] as string[]) : [];
  }
  return [];
}

/**
 * Renames every alias key of a parsed YAML document to its field's name, in place, before
 * the document is validated. Renaming the key nodes (not a copy of the data) keeps their
 * positions, so errors found later still point at the line the user wrote. An alias given
 * next to its field is an error: one field, one value.
 */
export function renameAliases(node: unknown, schema: z.ZodType, file: string, lineOf: (node: Node) => number | undefined, path: PropertyKey[] = []): void {
  const type = unwrap(schema);
  if (type === undefined) return;
  if (isSeq(node)) {
    if (type instanceof z.ZodArray) {
      for (const [index, item] of node.items.entries()) renameAliases(item, type.element as z.ZodType, file, lineOf, [...path, index]);
    }
    return;
  }
  if (!isMap(node)) return;
  if (type instanceof z.ZodRecord) {
    for (const pair of node.items) if (isScalar(pair.key)) renameAliases(pair.value, type.valueType as z.ZodType, file, lineOf, [...path, String(pair.key.value)]);
    return;
  }
  const object = type instanceof z.ZodUnion ? optionFor(type, node) : type;
  if (!(object instanceof z.ZodObject)) return;
  const shape = object.shape as Record<string, z.ZodType>;
  const canonical = new Map<string, string>();
  const inSeconds = new Set<string>();
  for (const [name, field] of Object.entries(shape)) {
    for (const written of aliasesOf(field)) canonical.set(written, name);
    for (const written of secondsAliasesOf(field)) inSeconds.add(written);
  }
  const keys = new Set(node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : undefined)));
  for (const pair of node.items) {
    if (!isScalar(pair.key)) continue;
    const written = String(pair.key.value);
    const name = canonical.get(written);
    if (name !== undefined) {
      // `keys` gains each renamed field, so two aliases of one field are refused like an alias beside its field.
      if (keys.has(name)) throw new ConfigError(file, lineOf(pair.key), fieldPath([...path, written]), `is an alias of ${name}, which is also given: keep one`);
      keys.add(name);
      pair.key.value = name;
      if (inSeconds.has(written)) toMilliseconds(pair.value);
    }
    const field = shape[name ?? written];
    if (field !== undefined) renameAliases(pair.value, field, file, lineOf, [...path, name ?? written]);
  }
}

/**
 * A number of seconds becomes milliseconds, rounded to whole ones (`0.05` → `50`). Anything
 * else is left for the field's schema to report, under the field's name.
 */
function toMilliseconds(value: unknown): void {
  if (isScalar(value) && typeof value.value === 'number') value.value = Math.round(value.value * 1_000);
}

/**
 * The object option of a union that a mapping is meant for: by discriminator value; in a
 * plain union (agent.yaml handlers: a path, or `type: agent`, or `type: workflow`), the only
 * object option, or the only one whose constant fields the mapping has.
 */
function optionFor(union: z.ZodUnion, node: { get(key: unknown): unknown }): z.ZodType | undefined {
  const objects = (union.options as z.ZodType[]).map(unwrap).filter((option): option is z.ZodObject => option instanceof z.ZodObject);
  const discriminator = (union._zod.def as { discriminator?: string }).discriminator;
  if (discriminator === undefined) {
    if (objects.length === 1) return objects[0];
    const meant = objects.filter((option) => hasConstantsOf(option, node));
    return meant.length === 1 ? meant[0] : undefined;
  }
  const value = node.get(discriminator);
  return objects.find((option) => {
    const tag = option.shape[discriminator] as z.ZodType | undefined;
    return tag instanceof z.ZodLiteral && tag.values.has(value as never);
  });
}

/** Whether the mapping has the value of every constant field of the option (and the option has one). */
function hasConstantsOf(option: z.ZodObject, node: { get(key: unknown): unknown }): boolean {
  const constants = Object.entries(option.shape as Record<string, z.ZodType>).filter((entry): entry is [string, z.ZodLiteral] => entry[1] instanceof z.ZodLiteral);
  return constants.length > 0 && constants.every(([key, literal]) => literal.values.has(node.get(key) as never));
}

/** The schema under optional, default, pipe and similar wrappers. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let next = current && inner(current); next !== undefined; next = inner(next)) current = next;
  return current;
}

function inner(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; getter?: () => z.ZodType };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return def.innerType;
    case 'pipe':
      return def.in;
    case 'lazy':
      return def.getter?.();
    default:
      return undefined;
  }
}
