// ESLint plug-in with one rule, `layers/imports`: the imports tools/lint/layers.js allows.
// - An import between units points down the layers (never up, never to a sibling), so
//   folders cannot form cycles.
// - It goes through the unit's index.ts (or an entry layers.js names), not its internals;
//   the package's entry points and dynamic import() (one module loaded when needed) may
//   name any module of a lower unit.
// - A file does not import its own folder's index.ts: the index imports it, and the cycle
//   would leave one of the two half-initialised at load time.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANY_MODULE, CHECKED, entriesOf, layerOf, rankOf, unitOf } from './layers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const repoPath = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/** The repository path an import specifier names, `.js` read as the `.ts` it is compiled from. */
function targetOf(file, specifier) {
  const target = path.resolve(path.dirname(file), specifier);
  const ts = target.replace(/\.js$/, '.ts');
  return repoPath(existsSync(ts) ? ts : target);
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers of tools/lint/layers.js and enter a folder through its index.ts' },
    schema: [],
    messages: {
      unplaced: '{{unit}} has no layer: add it to tools/lint/layers.js.',
      outside: '{{target}} is outside the layered folders ({{checked}}): code there may not depend on it.',
      upward: '{{from}} ({{fromLayer}}) may not import {{to}} ({{toLayer}}): imports point down the layers of tools/lint/layers.js. Move what both need down to the lower one.',
      sibling: '{{from}} and {{to}} are siblings in tools/lint/layers.js and may not import each other. Move what both need down, or order them.',
      internal: 'Import {{to}} through {{entries}}, not {{target}}: other folders use a folder through its index.',
      ownIndex: 'Import the module itself, not {{target}}: a folder\'s own index imports this file, and the cycle loads one of them half-initialised.',
    },
  },
  create(context) {
    const file = context.filename;
    const from = repoPath(file);
    const fromUnit = unitOf(from);
    if (fromUnit === undefined) return {};
    function check(node, source, dynamic) {
      if (source?.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = targetOf(file, source.value);
      const toUnit = unitOf(target);
      if (toUnit === undefined) {
        context.report({ node, messageId: 'outside', data: { target, checked: CHECKED.join(', ') } });
        return;
      }
      for (const unit of [fromUnit, toUnit]) {
        if (rankOf(unit) === undefined) {
          context.report({ node, messageId: 'unplaced', data: { unit } });
          return;
        }
      }
      if (toUnit === fromUnit) {
        if (target === `${fromUnit}index.ts` && from !== target) context.report({ node, messageId: 'ownIndex', data: { target } });
        return;
      }
      const fromRank = rankOf(fromUnit);
      const toRank = rankOf(toUnit);
      if (toRank === fromRank) {
        context.report({ node, messageId: 'sibling', data: { from: fromUnit, to: toUnit } });
      } else if (toRank > fromRank) {
        context.report({ node, messageId: 'upward', data: { from: fromUnit, fromLayer: layerOf(fromUnit), to: toUnit, toLayer: layerOf(toUnit) } });
      } else if (!dynamic && !ANY_MODULE.includes(fromUnit) && entriesOf(toUnit)?.includes(target) === false) {
        context.report({ node, messageId: 'internal', data: { to: toUnit, target, entries: entriesOf(toUnit)?.join(' or ') } });
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source, false),
      ExportNamedDeclaration: (node) => check(node, node.source, false),
      ExportAllDeclaration: (node) => check(node, node.source, false),
      ImportExpression: (node) => check(node, node.source, true),
    };
  },
};

export default { meta: { name: 'layers' }, rules: { imports: importsRule } };
