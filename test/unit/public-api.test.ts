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

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** The kind of an exported symbol, from the compiler: a type-only export shows as such. */
function kindOf(flags: ts.SymbolFlags): string {
  return flags & ts.SymbolFlags.Class ? 'class'
    : flags & ts.SymbolFlags.Function ? 'function'
    : flags & ts.SymbolFlags.Variable ? 'const'
    : flags & ts.SymbolFlags.Interface ? 'interface'
    : flags & ts.SymbolFlags.TypeAlias ? 'type'
    : 'other';
}

/** One line per public member (properties with their types, methods with each signature), sorted. */
function membersOf(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string[] {
  const lines: string[] = [];
  for (const member of checker.getPropertiesOfType(type)) {
    // A member keyed by a unique symbol is named `__@toPrimitive@<id>`; the id counts the
    // compiler's symbols, so it moves with any change to the program.
    const name = member.getName().replace(/^__@(\w+)@\d+$/, '[$1]');
    const declaration = member.valueDeclaration ?? member.declarations?.[0];
    const modifiers = declaration ? ts.getCombinedModifierFlags(declaration) : ts.ModifierFlags.None;
    if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) || name.startsWith('#')) continue;
    const memberType = checker.getTypeOfSymbolAtLocation(member, at);
    const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
    const readonly = modifiers & ts.ModifierFlags.Readonly ? 'readonly ' : '';
    const signatures = member.flags & ts.SymbolFlags.Method ? memberType.getCallSignatures() : [];
    if (signatures.length > 0) for (const signature of signatures) lines.push(`  ${name}${optional}${checker.signatureToString(signature, undefined, FORMAT)}`);
    else lines.push(`  ${readonly}${name}${optional}: ${checker.typeToString(memberType, undefined, FORMAT)}`);
  }
  return lines.sort();
}

/** What an export promises: a function's signatures, a constant's type, a class's and an interface's public members, a type's definition. */
function signatureOf(checker: ts.TypeChecker, target: ts.Symbol, at: ts.Node): string[] {
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) {
    const constructorType = checker.getTypeOfSymbolAtLocation(target, at);
    const constructors = constructorType.getConstructSignatures().map((signature) => `  new${checker.signatureToString(signature, undefined, FORMAT)}`);
    const statics = membersOf(checker, constructorType, at).filter((line) => !line.startsWith('  prototype:')).map((line) => `  static${line.slice(1)}`);
    return [...constructors, ...statics, ...membersOf(checker, checker.getDeclaredTypeOfSymbol(target), at)];
  }
  if (flags & ts.SymbolFlags.Function) return checker.getTypeOfSymbolAtLocation(target, at).getCallSignatures().map((signature) => `  ${checker.signatureToString(signature, undefined, FORMAT)}`);
  if (flags & ts.SymbolFlags.Variable) return [`  ${checker.typeToString(checker.getTypeOfSymbolAtLocation(target, at), undefined, FORMAT)}`];
  if (flags & ts.SymbolFlags.Interface) return membersOf(checker, checker.getDeclaredTypeOfSymbol(target), at);
  if (flags & ts.SymbolFlags.TypeAlias) return [`  = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(target), undefined, FORMAT | ts.TypeFormatFlags.InTypeAlias)}`];
  return [];
}

/** Paths in types relative to the repository, also where node_modules is a link to another checkout's. */
const relativePaths = (line: string): string => line.replaceAll(root, '').replace(/import\("[^"]*\/node_modules\//g, 'import("node_modules/');

/** `name (kind)` for each export, then what it promises, indented: a changed option type is a changed line. */
function exportsOf(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new TypeError(`public API: ${file} is not part of the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) return [];
  return checker
    .getExportsOfModule(module)
    .sort((a, b) => a.getName().localeCompare(b.getName()))
    .flatMap((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return [`${symbol.getName()} (${kindOf(target.flags)})`, ...signatureOf(checker, target, source).map(relativePaths)];
    });
}

describe('public API', () => {
  it('public API - the exports of every entry point and their signatures match the recorded list (a change to the API, an option type included, is a visible diff)', async () => {
    const entries = entryPoints();
    const program = ts.createProgram(
      entries.map((entry) => entry.source),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, noEmit: true },
    );
    const listing = entries.map(({ subpath, source }) => [`## agent-rpc${subpath === '.' ? '' : subpath.slice(1)}`, ...exportsOf(program, source)].join('\n')).join('\n\n');
    await expect(`${listing}\n`).toMatchFileSnapshot('./public-api.snapshot.md');
    // The root holds what building and calling agents needs; a feature's names go to its own subpath.
    const root = entries.find((entry) => entry.subpath === '.')!;
    const rootExports = exportsOf(program, root.source).filter((line) => !line.startsWith(' '));
    expect(rootExports.length).toBeLessThanOrEqual(120);
  }, 60_000);
});
