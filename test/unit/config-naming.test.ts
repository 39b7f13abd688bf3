import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { alias, seconds } from '../../src/yaml/aliases.js';
import { configReferenceInputs } from '../../tools/docs/config-reference-inputs.js';

/**
 * The config convention: canonical field names are camelCase and durations are milliseconds.
 * snake_case and seconds are only ever aliases (src/yaml/aliases.ts), which the JSON Schema
 * of a file lists beside the field, never as a property of its own.
 */
const SNAKE = /_/;
const IN_SECONDS = /(Sec|Seconds)$/;

// Keywords whose values are data (defaults, constants), not schemas.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples', 'aliases', 'secondsAliases']);

/** Every canonical field name of a JSON Schema, with its path, wherever it is nested (objects, lists, maps, unions, $defs). */
function fieldNames(schema: unknown, path = ''): Array<{ path: string; name: string }> {
  if (Array.isArray(schema)) return schema.flatMap((item) => fieldNames(item, path));
  if (typeof schema !== 'object' || schema === null) return [];
  const found: Array<{ path: string; name: string }> = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, field] of Object.entries(value)) {
        const fieldPath = path === '' ? name : `${path}.${name}`;
        found.push({ path: fieldPath, name }, ...fieldNames(field, fieldPath));
      }
    } else {
      found.push(...fieldNames(value, path));
    }
  }
  return found;
}

/** Every config schema a user writes: each file (and its list form) and each transport plug-in's block and route. */
function everyConfigSchema(): Array<{ where: string; schema: z.ZodType }> {
  const inputs = configReferenceInputs();
  return [
    ...inputs.files.map((file) => ({ where: file.file, schema: file.schema })),
    ...inputs.transports.flatMap((transport) => [
      ...(transport.configSchema ? [{ where: `capabilities.yaml transports.${transport.kind}`, schema: transport.configSchema }] : []),
      ...(transport.routeSchema ? [{ where: `rpc-peers.yaml route kind ${transport.kind}`, schema: transport.routeSchema }] : []),
    ]),
  ];
}

function offendersIn(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return fieldNames(json)
    .filter(({ name }) => SNAKE.test(name) || IN_SECONDS.test(name))
    .map(({ path }) => path);
}

describe('config naming', () => {
  it('config naming - every canonical field of every config schema is camelCase, and no duration is in seconds', () => {
    const schemas = everyConfigSchema();
    const files = schemas.map(({ where }) => where);
    // The walk covers what the brief of the convention names; a schema dropped from the inputs fails here.
    for (const file of ['agent.yaml', 'capabilities.yaml', 'rpc-peers.yaml', 'event-sources.yaml', 'workflow.yaml']) expect(files).toContain(file);
    expect(files.filter((where) => where.startsWith('capabilities.yaml transports.')).length).toBeGreaterThan(3);
    const offenders = schemas.flatMap(({ where, schema }) => offendersIn(schema).map((path) => `${where}: ${path}`));
    expect(offenders, 'canonical names are camelCase in milliseconds; declare the snake_case or seconds name with alias() (src/yaml/aliases.ts)').toEqual([]);
  });

  it('config naming - the walk finds a snake_case or seconds field at any depth, and passes over aliases', () => {
    const nested = z.strictObject({
      list: z.array(z.strictObject({ retry_count: z.int() })),
      byName: z.record(z.string(), z.strictObject({ waitSeconds: z.int() })),
      auth: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('a'), ttlSec: z.int() }), z.strictObject({ kind: z.literal('b') })]),
      waitMs: alias(z.int().default(1), 'wait_ms', seconds('wait_sec')),
    });
    expect(offendersIn(nested)).toEqual(['list.retry_count', 'byName.waitSeconds', 'auth.ttlSec']);
  });
});
