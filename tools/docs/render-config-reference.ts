import { z } from 'zod';
import { schemaRows, type ExternalPaths, type FieldRow, type JsonSchema } from './schema-rows.js';

/** One config file of an agent's directory. */
export interface ConfigFileDoc {
  readonly file: string;
  readonly required: boolean;
  /** One paragraph: what the file is for. */
  readonly summary: string;
  readonly schema: z.ZodType;
  /** Paths documented in another section (e.g. capabilities.yaml `transports`), with the note their row gets. */
  readonly external?: ExternalPaths;
}

/**
 * One transport kind: its block in capabilities.yaml `transports` and, where it has its
 * own, the fields of its routes in rpc-peers.yaml. Transport plugins will supply these.
 */
export interface TransportDoc {
  readonly kind: string;
  readonly configSchema?: z.ZodType;
  readonly routeSchema?: z.ZodType;
}

export interface ConfigReferenceInputs {
  readonly files: readonly ConfigFileDoc[];
  readonly transports: readonly TransportDoc[];
}

const HEADER = `# Config reference

<!-- Generated from the zod schemas by \`npm run docs:config\` (tools/docs/config-reference.ts). Do not edit: change the schemas and run it again. -->

Every field of an agent's config files, as the loader validates them. [config.md](config.md)
explains the files with examples; this page is the list. Unknown fields are errors.

Field names are camelCase and durations are milliseconds (\`timeoutMs\`). Where the design
documents spell a field in snake_case (RFC 014's \`max_iterations\`, workflow.yaml's
\`timeout_sec\`, RFC 027's \`remote_nodes\`, ...), in seconds, or name it otherwise (a peer's
\`agent\`), that name is accepted as an **alias**: the file loads as if the field had been
written (an alias marked *(seconds)* is multiplied by 1,000), errors name the field, and giving
the field twice (an alias beside the field, or two aliases of it) is an error. \`<name>\` in a
path stands for a key of your choosing; \`[]\` for every item of a list.
`;

export function renderConfigReference(inputs: ConfigReferenceInputs): string {
  const out = [HEADER];
  for (const file of inputs.files) {
    out.push(`## ${file.file} (${file.required ? 'required' : 'optional'})`, '', file.summary, '', table(rowsOf(file.schema, file.external)), '');
  }
  out.push(
    '## Transports',
    '',
    "Each kind this agent connects with has a block in capabilities.yaml `transports` (at least one);",
    "`http` needs none: every agent run by `agent-rpc serve` has it. Routes in rpc-peers.yaml name a kind.",
    '',
  );
  for (const transport of inputs.transports) {
    out.push(`### \`${transport.kind}\``, '');
    if (transport.configSchema) out.push(...section(`capabilities.yaml \`transports.${transport.kind}\``, rowsOf(transport.configSchema)));
    else out.push('No block in capabilities.yaml.', '');
    if (transport.routeSchema) out.push(...section(`rpc-peers.yaml routes (\`peers[].transports[]\` with \`kind: ${transport.kind}\`)`, rowsOf(transport.routeSchema)));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function rowsOf(schema: z.ZodType, external?: ExternalPaths): FieldRow[] {
  // Input side: what a file may contain. zod leaves out the default of a field whose
  // schema transforms (a port given as a string, a duration): it is put back here.
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
      if (def.type === 'default' && jsonSchema.default === undefined) jsonSchema.default = def.defaultValue as never;
    },
  });
  return schemaRows(json as JsonSchema, external);
}

function section(title: string, rows: readonly FieldRow[]): string[] {
  return rows.length === 0 ? [`${title}: no fields (\`{}\`).`, ''] : [`${title}:`, '', table(rows), ''];
}

function table(rows: readonly FieldRow[]): string {
  const lines = ['| field | type | required | default | aliases | description |', '|---|---|---|---|---|---|'];
  for (const row of rows) {
    const description = row.variants === undefined ? row.description : `*${row.variants}.* ${row.description}`;
    const cells = [
      `\`${row.path}\``,
      row.type,
      row.required ? 'yes' : '',
      row.default === undefined ? '' : `\`${typeof row.default === 'string' && row.default !== '' ? row.default : JSON.stringify(row.default)}\``,
      row.aliases.map((name) => (row.secondsAliases?.includes(name) ? `\`${name}\` (seconds)` : `\`${name}\``)).join(', '),
      description,
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
