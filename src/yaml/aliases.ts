import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { z } from 'zod';
import { ConfigError, fieldPath } from './config-error.js';

/**
 * Config field names are camelCase. A few files written for the design documents (RFC 027's
 * `remote_nodes`, `auth_token`, ...) use snake_case, or another name (a peer's `agent` for
 * `id`): those names are accepted as aliases of the field. An alias is declared on the field's schema, so the schema stays the
 * one description of the file (the generated config reference lists aliases too):
 *
 *     maxPerUser: alias(z.int().min(1).default(100), 'max_per_user')
 */
export function alias<S extends z.ZodType>(schema: S, ...aliases: string[]): S {
  return schema.meta({ aliases }) as S;
}

/** The aliases declared on a field, looking through optional/default wrappers. */
export function aliasesOf(schema: z.ZodType): readonly string[] {
  for (let current: z.ZodType | undefined = schema; current !== undefined; current = inner(current)) {
    const aliases = z.globalRegistry.get(current)?.['aliases'];
    if (Array.isArray(aliases)) return aliases as string[];
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
  for (const [name, field] of Object.entries(shape)) for (const written of aliasesOf(field)) canonical.set(written, name);
  const keys = new Set(node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : undefined)));
  for (const pair of node.items) {
    if (!isScalar(pair.key)) continue;
    const written = String(pair.key.value);
    const name = canonical.get(written);
    if (name !== undefined) {
      if (keys.has(name)) throw new ConfigError(file, lineOf(pair.key), fieldPath([...path, written]), `is an alias of ${name}, which is also given: keep one`);
      pair.key.value = name;
    }
    const field = shape[name ?? written];
    if (field !== undefined) renameAliases(pair.value, field, file, lineOf, [...path, name ?? written]);
  }
}

/** The object option of a union that a mapping is meant for: by discriminator value, or the only object option. */
function optionFor(union: z.ZodUnion, node: { get(key: unknown): unknown }): z.ZodType | undefined {
  const objects = (union.options as z.ZodType[]).map(unwrap).filter((option): option is z.ZodObject => option instanceof z.ZodObject);
  const discriminator = (union._zod.def as { discriminator?: string }).discriminator;
  if (discriminator === undefined) return objects.length === 1 ? objects[0] : undefined;
  const value = node.get(discriminator);
  return objects.find((option) => {
    const tag = option.shape[discriminator] as z.ZodType | undefined;
    return tag instanceof z.ZodLiteral && tag.values.has(value as never);
  });
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
