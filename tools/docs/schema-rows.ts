/**
 * Flattens a JSON Schema (as `z.toJSONSchema` writes it) into one row per field, with
 * dotted paths (`peers[].auth.issuer`, `handlers.<name>`). Object variants of a
 * discriminated union become rows marked with the variant they belong to.
 */

export interface JsonSchema {
  readonly type?: string;
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly minimum?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: JsonSchema | boolean;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly default?: unknown;
  readonly description?: string;
  readonly aliases?: readonly string[];
  /** The aliases written in seconds, of a field in milliseconds. */
  readonly secondsAliases?: readonly string[];
}

export interface FieldRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly description: string;
  readonly aliases: readonly string[];
  /** Those of `aliases` written in seconds (the field is in milliseconds). */
  readonly secondsAliases?: readonly string[];
  /** `provider: hmac, oidc` for fields of some variants of a union only. */
  readonly variants?: string;
  /** The field that selects a union's variant. */
  readonly discriminator?: true;
}

/** Paths documented elsewhere: the row says where, and the walk does not go into them. */
export type ExternalPaths = Readonly<Record<string, string>>;

export function schemaRows(schema: JsonSchema, external: ExternalPaths = {}): FieldRow[] {
  const rows: FieldRow[] = [];
  expand(schema, '', rows, external);
  return merge(rows);
}

function expand(schema: JsonSchema, path: string, rows: FieldRow[], external: ExternalPaths, variant?: string): void {
  if (schema.properties) {
    for (const [name, child] of Object.entries(schema.properties)) {
      const childPath = path === '' ? name : `${path}.${name}`;
      const note = external[childPath];
      const description = [child.description, note].filter(Boolean).join(' ');
      rows.push({
        path: childPath,
        type: typeOf(child),
        required: (schema.required ?? []).includes(name) && child.default === undefined,
        ...(child.default !== undefined ? { default: child.default } : {}),
        description,
        aliases: child.aliases ?? [],
        ...(child.secondsAliases !== undefined ? { secondsAliases: child.secondsAliases } : {}),
        ...(variant !== undefined ? { variants: variant } : {}),
      });
      if (note === undefined) expand(child, childPath, rows, external, variant);
    }
  }
  if (typeof schema.additionalProperties === 'object' && schema.properties === undefined) expand(schema.additionalProperties, `${path}.<name>`, rows, external, variant);
  if (schema.items) expand(schema.items, `${path}[]`, rows, external, variant);
  const options = (schema.anyOf ?? schema.oneOf ?? []).filter((option) => option.properties !== undefined);
  const discriminator = discriminatorOf(options);
  for (const option of options) {
    if (discriminator === undefined) {
      expand(option, path, rows, external, variant);
      continue;
    }
    // The discriminator has its own row (the union's type says its values); the variant's other fields are marked.
    const { [discriminator]: tag, ...rest } = option.properties!;
    expand({ ...option, properties: rest }, path, rows, external, `${discriminator}: ${String(tag!.const)}`);
  }
  if (discriminator !== undefined) {
    rows.push({
      path: `${path}.${discriminator}`,
      type: options.map((option) => JSON.stringify(option.properties![discriminator]!.const)).join(' or '),
      required: true,
      description: `Selects the variant; the fields marked \`${discriminator}: …\` belong to that variant only.`,
      aliases: [],
      discriminator: true,
    });
  }
}

/** The property every option has as a constant, if there is one. */
function discriminatorOf(options: readonly JsonSchema[]): string | undefined {
  if (options.length < 2) return undefined;
  const first = options[0]!.properties!;
  return Object.keys(first).find((key) => options.every((option) => option.properties?.[key]?.const !== undefined));
}

export function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' or ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeOf))].join(' or ');
  switch (schema.type) {
    case 'array':
      return schema.items ? `${typeOf(schema.items)}[]` : 'array';
    case 'object':
      if (schema.properties) return 'object';
      if (typeof schema.additionalProperties === 'object' && Object.keys(schema.additionalProperties).length > 0) return `map of ${typeOf(schema.additionalProperties)}`;
      return 'map';
    case 'integer':
      return schema.minimum !== undefined && schema.minimum >= 0 ? `integer ≥ ${schema.minimum}` : 'integer';
    case 'string':
      return schema.format === 'uri' ? 'URL' : 'string';
    case undefined:
      return 'any';
    default:
      return schema.type;
  }
}

/**
 * One row for a field that several variants share unchanged (`keysRef` of hmac), listed
 * where the field first appears; discriminator rows go before their variants' fields.
 */
function merge(rows: FieldRow[]): FieldRow[] {
  const out: FieldRow[] = [];
  const byKey = new Map<string, number>();
  for (const row of rows) {
    const key = JSON.stringify([row.path, row.type, row.required, row.default, row.description, row.aliases]);
    const at = byKey.get(key);
    if (at === undefined) {
      byKey.set(key, out.length);
      out.push(row);
    } else if (row.variants !== undefined && out[at]!.variants !== undefined) {
      out[at] = { ...out[at]!, variants: `${out[at]!.variants}, ${row.variants.split(': ')[1]}` };
    }
  }
  // Discriminators were pushed after their variants' fields; they read better first.
  const discriminators = out.filter((row) => row.discriminator);
  const rest = out.filter((row) => !discriminators.includes(row));
  for (const row of discriminators) {
    const parent = row.path.slice(0, row.path.lastIndexOf('.'));
    const first = rest.findIndex((other) => other.path.startsWith(`${parent}.`));
    rest.splice(first === -1 ? rest.length : first, 0, row);
  }
  return rest;
}
