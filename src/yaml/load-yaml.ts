import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isNode, type Node } from 'yaml';
import type { z } from 'zod';
import { renameAliases } from './aliases.js';
import { ConfigError, fieldPath } from './config-error.js';
import { expandEnv } from './expand-env.js';

export interface LoadedYaml<T> {
  readonly file: string;
  readonly value: T;
  /** Line (1-based) of the node at `path`, for errors found after validation. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

export interface YamlLoadOptions {
  /** Expands `${env:NAME}` in strings (not in `...Ref` fields) from this environment. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Reads a YAML file and validates it; every problem becomes a ConfigError naming file, line
 * and field. Aliases declared in the schema (snake_case names, see aliases.ts) are renamed
 * to their fields first, so the value and every error use the camelCase names.
 */
export async function loadYamlFile<S extends z.ZodType>(file: string, schema: S, options: YamlLoadOptions = {}): Promise<LoadedYaml<z.infer<S>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, undefined, '', `cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseYaml(file, text, schema, options);
}

export function parseYaml<S extends z.ZodType>(file: string, text: string, schema: S, options: YamlLoadOptions = {}): LoadedYaml<z.infer<S>> {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = document.errors[0];
  if (syntax !== undefined) {
    throw new ConfigError(file, lineCounter.linePos(syntax.pos[0]).line, '', syntax.message.split('\n')[0]!);
  }
  const lineOf = (path: readonly PropertyKey[]): number | undefined => {
    // The deepest node that exists on the path: a missing field is reported where its parent is.
    for (let depth = path.length; depth >= 0; depth--) {
      const node: unknown = depth === 0 ? document.contents : document.getIn(path.slice(0, depth) as unknown[], true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  const lineOfNode = (node: Node): number | undefined => (node.range ? lineCounter.linePos(node.range[0]).line : undefined);
  // Before anything reads the data: aliases become their fields' names, in the document itself.
  renameAliases(document.contents, schema, file, lineOfNode);
  const raw: unknown = document.toJS();
  const parsed = schema.safeParse(options.env === undefined ? raw : expandEnv(raw, options.env, file, lineOf));
  if (!parsed.success) {
    const issue = meantIssue(parsed.error.issues[0]!);
    throw new ConfigError(file, lineOf(issue.path), fieldPath(issue.path), issue.message);
  }
  return { file, value: parsed.data, lineOf };
}

/**
 * A field that may be written in two shapes (a map or, as the design documents write it, a
 * list) is a union; zod reports a mistake in either as "Invalid input" at the union. The
 * shape that was meant is the one whose value has the right type: its first problem is
 * reported instead, at its own path, so the error still names the field.
 */
function meantIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const meant = issue.errors.filter((problems) => !(problems[0]?.code === 'invalid_type' && problems[0].path.length === 0));
  if (meant.length !== 1 || meant[0]![0] === undefined) return issue;
  const inner = meantIssue(meant[0]![0]);
  return { path: [...issue.path, ...inner.path], message: inner.message };
}
