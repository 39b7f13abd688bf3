import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every entry point of package.json `exports` (a `*` pattern expanded over the folders it matches), as the source file its types come from. */
function entryPoints(): Array<{ subpath: string; source: string }> {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, { types: string }> };
  const sourceOf = (types: string): string => `${root}${types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')}`;
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (!subpath.includes('*')) return [{ subpath, source: sourceOf(target.types) }];
    const [before, after] = sourceOf(target.types).split('*') as [string, string];
    return readdirSync(before, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(`${before}${entry.name}${after}`))
      .map((entry) => ({ subpath: subpath.replace('*', entry.name), source: `${before}${entry.name}${after}` }))
      .sort((a, b) => a.subpath.localeCompare(b.subpath));
  });
}

/** `name (kind)` for each export, kinds from the compiler: a type-only export shows as such. */
function exportsOf(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new TypeError(`public API: ${file} is not part of the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) return [];
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const flags = target.flags;
      const kind =
        flags & ts.SymbolFlags.Class ? 'class'
        : flags & ts.SymbolFlags.Function ? 'function'
        : flags & ts.SymbolFlags.Variable ? 'const'
        : flags & ts.SymbolFlags.Interface ? 'interface'
        : flags & ts.SymbolFlags.TypeAlias ? 'type'
        : 'other';
      return `${symbol.getName()} (${kind})`;
    })
    .sort();
}

describe('public API', () => {
  it('public API - the exports of every entry point match the recorded list (a change to the API is a visible diff)', async () => {
    const entries = entryPoints();
    const program = ts.createProgram(
      entries.map((entry) => entry.source),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, noEmit: true },
    );
    const listing = entries.map(({ subpath, source }) => [`## agent-rpc${subpath === '.' ? '' : subpath.slice(1)}`, ...exportsOf(program, source)].join('\n')).join('\n\n');
    await expect(`${listing}\n`).toMatchFileSnapshot('./public-api.snapshot.md');
  }, 60_000);
});
