// Fixes what `layers/imports` reports as "through its index": rewrites each static import of
// another unit's internal module to that unit's index.ts (one declaration per index) and adds
// the names to the index. Run it after moving code or merging branches, then review the diff:
//   node tools/lint/route-through-index.js
// It prints what it cannot do by itself (a default or namespace import, a name two modules of
// one folder export); entry modules (ENTRIES), entry points and dynamic import() stay as they are.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ANY_MODULE, CHECKED, entriesOf, unitOf } from './layers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LINE = 140;
const problems = [];

const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
const parse = (file) => ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
const resolve = (from, specifier) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, from)), specifier)).split(path.sep).join('/').replace(/\.js$/, '.ts');
function specifierOf(from, target) {
  const relative = path.relative(path.dirname(path.join(ROOT, from)), path.join(ROOT, target)).split(path.sep).join('/').replace(/\.ts$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
function sourceFiles(folder, out = []) {
  for (const entry of readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    const file = `${folder}/${entry.name}`;
    if (entry.isDirectory()) sourceFiles(file, out);
    else if (file.endsWith('.ts') && !file.endsWith('.d.ts')) out.push(file);
  }
  return out;
}
const namedExports = (statement) =>
  ts.isExportDeclaration(statement) && statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause);
/** `a`, `type A`, `a as b`: one line or, past LINE characters, one name a line. */
function declaration(head, names, tail) {
  const line = `${head}{ ${names.join(', ')} }${tail}`;
  return line.length <= LINE ? line : `${head}{\n${names.map((name) => `  ${name},`).join('\n')}\n}${tail}`;
}
function applyEdits(text, edits) {
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text;
}

/** The module that declares `name`, following `export { name } from` (a sub-folder's index). */
function origin(file, name) {
  if (!existsSync(path.join(ROOT, file))) return file;
  for (const statement of parse(file).statements) {
    if (!namedExports(statement)) continue;
    const element = statement.exportClause.elements.find((e) => e.name.text === name);
    if (element) return origin(resolve(file, statement.moduleSpecifier.text), (element.propertyName ?? element.name).text);
  }
  return file;
}

/** Whether `name` is declared as a value (class, function, const) in `file`: then the index re-exports it as one. */
function declaresValue(file, name) {
  const exported = (node) => ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of parse(file).statements) {
    if (!exported(statement)) continue;
    if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name?.text === name) return true;
    if (ts.isVariableStatement(statement) && statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name)) return true;
  }
  return false;
}

/** The names a declaration brings: `{ name (as imported), text (as written, without `type`), typeOnly }`. */
function elementsOf(file, statement) {
  const specifier = statement.moduleSpecifier.text;
  if (ts.isExportDeclaration(statement)) {
    if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) return problems.push(`${file}: export * from ${specifier}`), undefined;
    return statement.exportClause.elements.map((e) => element(e, statement.isTypeOnly));
  }
  const clause = statement.importClause;
  if (!clause || clause.name || (clause.namedBindings && !ts.isNamedImports(clause.namedBindings))) {
    return problems.push(`${file}: a default, namespace or side-effect import of ${specifier}`), undefined;
  }
  return (clause.namedBindings?.elements ?? []).map((e) => element(e, clause.isTypeOnly));
}
function element(node, typeOnlyDeclaration) {
  return { name: (node.propertyName ?? node.name).text, text: node.getText().replace(/^type\s+/, ''), typeOnly: typeOnlyDeclaration || node.isTypeOnly };
}

// 1. The declarations to rewrite, per file, and the names each index must offer.
const rewrites = new Map(); // file -> [{ statement, index, elements, isExport }]
const needed = new Map(); // unit -> Map(name -> { file, value })
for (const file of CHECKED.flatMap((folder) => sourceFiles(folder.replace(/\/$/, '')))) {
  const fromUnit = unitOf(file);
  if (fromUnit === undefined || ANY_MODULE.includes(fromUnit)) continue;
  for (const statement of parse(file).statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue;
    if (!statement.moduleSpecifier.text.startsWith('.')) continue;
    const target = resolve(file, statement.moduleSpecifier.text);
    const toUnit = unitOf(target);
    if (toUnit === undefined || toUnit === fromUnit || entriesOf(toUnit) === undefined || !toUnit.endsWith('/')) continue;
    const [index, ...entries] = entriesOf(toUnit);
    if (entries.includes(target)) continue;
    const elements = elementsOf(file, statement);
    if (elements === undefined) continue;
    // Imports of the index itself are rewritten too, so that a file ends with one declaration per index.
    if (!rewrites.has(file)) rewrites.set(file, []);
    rewrites.get(file).push({ statement, index, elements, isExport: ts.isExportDeclaration(statement) });
    if (target === index) continue;
    if (!needed.has(toUnit)) needed.set(toUnit, new Map());
    const names = needed.get(toUnit);
    for (const { name, typeOnly } of elements) {
      const declaredIn = origin(target, name);
      const before = names.get(name);
      if (before && before.file !== declaredIn) problems.push(`${toUnit}: ${name} is exported by ${before.file} and ${declaredIn}`);
      names.set(name, { file: declaredIn, value: (before?.value ?? false) || !typeOnly || declaresValue(declaredIn, name) });
    }
  }
}

// 2. The indexes: a name joins its module's existing `export { … } from` line, or a new one.
for (const [unit, names] of needed) {
  const index = entriesOf(unit)[0];
  let text = existsSync(path.join(ROOT, index)) ? read(index) : `/** ${unit}: what the layers above use of it. */\n`;
  const source = ts.createSourceFile(index, text, ts.ScriptTarget.Latest, true);
  const exported = new Map(); // name -> { file, typeOnly }
  const lineOf = new Map(); // module -> its first export declaration
  for (const statement of source.statements) {
    if (!namedExports(statement)) continue;
    const file = resolve(index, statement.moduleSpecifier.text);
    if (!lineOf.has(file)) lineOf.set(file, statement);
    for (const e of statement.exportClause.elements) exported.set(e.name.text, { file, typeOnly: statement.isTypeOnly || e.isTypeOnly });
  }
  const byFile = new Map();
  for (const [name, { file, value }] of names) {
    const already = exported.get(name);
    if (already) {
      if (already.file !== file) problems.push(`${index} exports ${name} from ${already.file}, not ${file}`);
      else if (already.typeOnly && value) problems.push(`${index} exports ${name} as a type; it is used as a value`);
      continue;
    }
    if (!byFile.has(file)) byFile.set(file, []);
    byFile.get(file).push({ name, text: name, value });
  }
  const edits = [];
  const added = [];
  for (const [file, additions] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const line = lineOf.get(file);
    const present = line ? line.exportClause.elements.map((e) => ({ text: e.getText().replace(/^type\s+/, ''), value: !(line.isTypeOnly || e.isTypeOnly) })) : [];
    additions.sort((a, b) => (a.value === b.value ? a.name.localeCompare(b.name) : a.value ? -1 : 1));
    const all = [...present, ...additions];
    const typesOnly = all.every((e) => !e.value);
    const written = declaration(typesOnly ? 'export type ' : 'export ', all.map((e) => (typesOnly || e.value ? e.text : `type ${e.text}`)), ` from '${specifierOf(index, file)}';`);
    if (line) edits.push({ start: line.getStart(), end: line.getEnd(), text: written });
    else added.push(written);
  }
  text = applyEdits(text, edits);
  if (added.length > 0) text = `${text.replace(/\n*$/, '\n')}${added.join('\n')}\n`;
  writeFileSync(path.join(ROOT, index), text);
}

// 3. The importers: one declaration per index (imports and re-exports apart), where the first was.
for (const [file, list] of rewrites) {
  const text = read(file);
  const groups = new Map();
  for (const rewrite of list) {
    const key = `${rewrite.isExport}:${rewrite.index}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(rewrite);
  }
  const edits = [];
  for (const group of groups.values()) {
    const elements = [];
    for (const e of group.flatMap((rewrite) => rewrite.elements)) {
      const same = elements.find((known) => known.text === e.text);
      if (same) same.typeOnly &&= e.typeOnly;
      else elements.push({ ...e });
    }
    elements.sort((a, b) => Number(a.typeOnly) - Number(b.typeOnly));
    const typesOnly = elements.every((e) => e.typeOnly);
    const keyword = group[0].isExport ? 'export' : 'import';
    const names = elements.map((e) => (typesOnly || !e.typeOnly ? e.text : `type ${e.text}`));
    const [first, ...rest] = group.sort((a, b) => a.statement.getStart() - b.statement.getStart());
    edits.push({ start: first.statement.getStart(), end: first.statement.getEnd(), text: declaration(`${keyword} ${typesOnly ? 'type ' : ''}`, names, ` from '${specifierOf(file, first.index)}';`) });
    for (const { statement } of rest) edits.push({ start: statement.getStart(), end: statement.getEnd() + (text[statement.getEnd()] === '\n' ? 1 : 0), text: '' });
  }
  writeFileSync(path.join(ROOT, file), applyEdits(text, edits));
}

for (const problem of problems) console.log(problem);
console.log(`${rewrites.size} files rewritten, ${needed.size} indexes extended`);
