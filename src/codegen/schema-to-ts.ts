/**
 * A TypeScript type for a JSON Schema, for the constructs capability schemas use: `type`
 * (one or several), `enum`, `const`, objects (`properties`, `required`,
 * `additionalProperties`), arrays (`items`), `anyOf`/`oneOf` (union), `allOf`
 * (intersection) and `description` (JSDoc). Anything else becomes `unknown`, which is
 * always safe: the runtime validates against the full schema anyway.
 */
type Schema = Record<string, unknown>;

const IDENTIFIER_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

function indentLines(text: string, indent: string): string {
  return text.split('\n').join(`\n${indent}`);
}

export function schemaToTs(schema: unknown, indent = ''): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isSchema(schema)) return 'unknown';
  if ('const' in schema) return literal(schema['const']);
  if (Array.isArray(schema['enum'])) return schema['enum'].map(literal).join(' | ') || 'never';
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.map((option) => wrap(schemaToTs(option, indent))).join(' | ') || 'never';
  }
  if (Array.isArray(schema['allOf'])) return schema['allOf'].map((part) => wrap(schemaToTs(part, indent))).join(' & ') || 'unknown';
  const type = schema['type'];
  if (Array.isArray(type)) return type.map((t) => wrap(typeFor(String(t), schema, indent))).join(' | ');
  if (typeof type === 'string') return typeFor(type, schema, indent);
  if (isSchema(schema['properties'])) return typeFor('object', schema, indent);
  return 'unknown';
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !type.startsWith('{') ? `(${type})` : type;
}

function typeFor(type: string, schema: Schema, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${schemaToTs(schema['items'], indent)}>`;
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

function objectType(schema: Schema, indent: string): string {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const description = isSchema(property) && typeof property['description'] === 'string' ? property['description'] : undefined;
    if (description) lines.push(`${inner}/** ${description.replace(/\*\//g, '*\\/')} */`);
    const key = IDENTIFIER_RE.test(name) ? name : literal(name);
    lines.push(`${inner}${key}${required.has(name) ? '' : '?'}: ${indentLines(schemaToTs(property, inner), '')};`);
  }
  const additional = schema['additionalProperties'];
  if (additional !== false && !(Object.keys(properties).length > 0 && additional === undefined)) {
    lines.push(`${inner}[key: string]: ${additional === undefined || additional === true ? 'unknown' : schemaToTs(additional, inner)};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}
