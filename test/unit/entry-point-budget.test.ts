import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How many of our own modules importing each public surface loads, at most. A subpath
 * should load what it exports and little else: an import that goes through a folder's
 * index.ts loads the whole folder. When a change lowers a count, lower its budget with it;
 * raise one only for code the surface really needs.
 */
const BUDGETS = [
  { subpath: 'agent-rpc/tools', entry: 'src/entry-points/tools.ts', budget: 35 },
  { subpath: 'agent-rpc/envelope', entry: 'src/entry-points/envelope.ts', budget: 38 },
  { subpath: 'agent-rpc', entry: 'src/index.ts', budget: 145 },
];

/**
 * The modules of ours a module loads when it is imported: its static imports and re-exports
 * of relative paths, except `import type`/`export type` declarations. Under
 * verbatimModuleSyntax (checked below) those are exactly the imports the compiled module
 * keeps; a dynamic import() loads on demand and is not counted.
 */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const imported: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true) specifier = statement.moduleSpecifier;
    else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier.text);
    const typescript = target.replace(/\.js$/, '.ts');
    imported.push(existsSync(typescript) ? typescript : target);
  }
  return imported;
}

/** Every module of ours the entry loads, each with the module that first imports it (for the failure message). */
function loadedModules(entry: string): Map<string, string | undefined> {
  const start = resolve(root, entry);
  const importer = new Map<string, string | undefined>([[start, undefined]]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const imported of staticImports(file)) {
      if (importer.has(imported)) continue;
      importer.set(imported, file);
      queue.push(imported);
    }
  }
  return importer;
}

function chainOf(module: string, importer: Map<string, string | undefined>): string {
  const chain: string[] = [];
  for (let at: string | undefined = module; at !== undefined; at = importer.get(at)) chain.unshift(relative(root, at));
  return chain.join(' -> ');
}

describe('entry points - module budget', () => {
  it('entry points - the count assumes verbatimModuleSyntax: only `import type` is erased', () => {
    const config = ts.readConfigFile(resolve(root, 'tsconfig.json'), ts.sys.readFile).config as { compilerOptions: Record<string, unknown> };
    expect(config.compilerOptions['verbatimModuleSyntax']).toBe(true);
  });

  for (const { subpath, entry, budget } of BUDGETS) {
    it(`entry points - ${subpath} loads at most ${budget} of our own modules`, () => {
      const loaded = loadedModules(entry);
      // On failure, the path by which each module is loaded shows which import to narrow.
      const chains = [...loaded.keys()].map((module) => chainOf(module, loaded));
      expect(loaded.size, `${subpath} loads ${loaded.size} modules:\n${chains.join('\n')}`).toBeLessThanOrEqual(budget);
    });
  }
});
