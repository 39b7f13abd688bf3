import type { Node } from 'web-tree-sitter';
import type { Arg } from './command-wrappers.js';

/** What a word is being built from; `dynamic` once any part is only known when the line runs. */
interface WordState {
  value: string;
  dynamic: boolean;
  /** The unquoted, unescaped characters alone: globs, braces and `~` only expand there. */
  unquoted: string;
}

/** `value` as rules read it: bare unless blanks, quotes or shell operators would blur where it starts and ends. */
export const quote = (value: string): string => (value !== '' && !/[\s'"\\$`;&|()<>]/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

/**
 * One word of a command as the shell will pass it: quotes and escapes removed, so `"rm"`,
 * `r\m` and `'r'm` all read `rm`. A word whose value depends on expansion (`$x`, `$(…)`,
 * globs, braces, `~`, `$'…'`) has no value and keeps its source text.
 */
export function wordOf(node: Node): Arg {
  const state: WordState = { value: '', dynamic: false, unquoted: '' };
  read(node, state);
  const value = state.dynamic || expands(state.unquoted) ? undefined : state.value;
  return { value, text: value === undefined ? node.text : quote(value) };
}

/** Characters that stand for themselves, outside quotes. */
const plain = (text: string, state: WordState): void => {
  state.value += text;
  state.unquoted += text;
};

function read(node: Node, state: WordState): void {
  if (!node.isNamed) {
    // An operator the grammar keeps as a token (`[`, `=`, `==`), or a `$` that ends a word; `$$`,
    // a `$` the grammar left before more of the word, and `` `` `` are expansions.
    const more = node.parent?.type === 'concatenation' && node.nextSibling !== null;
    if (node.type === '``' || (node.text.includes('$') && (node.text !== '$' || more))) state.dynamic = true;
    else plain(node.text, state);
    return;
  }
  switch (node.type) {
    case 'word':
      unescape(node.text, state);
      return;
    case 'number':
    case 'variable_name':
    case 'test_operator':
      // A number may carry an expansion as its base (`10#$x`).
      if (node.childCount > 0) state.dynamic = true;
      else plain(node.text, state);
      return;
    case 'raw_string':
      state.value += node.text.slice(1, -1);
      return;
    case 'string': {
      // The grammar leaves a quoted newline between the parts of a string.
      let end = node.startIndex;
      for (const part of node.children) {
        state.value += node.text.slice(end - node.startIndex, part.startIndex - node.startIndex);
        readDoubleQuoted(part, state);
        end = part.endIndex;
      }
      return;
    }
    case 'translated_string':
      for (const part of node.namedChildren) read(part, state);
      return;
    case 'concatenation':
    case 'variable_assignment':
      for (const [i, part] of node.children.entries()) {
        // `$"…"` is a string translated for the locale: bash drops the `$`, which the grammar keeps apart.
        const translated = part.type === '$' && node.children[i + 1]?.type === 'string' && node.children[i + 1]!.startIndex === part.endIndex;
        if (!translated) read(part, state);
      }
      return;
    default:
      // Expansions, substitutions, `{1..3}`, `$'…'` (its escapes are not decoded), arrays, subscripts.
      state.dynamic = true;
  }
}

/** A backslash outside quotes escapes the next character; before a newline it joins lines. */
function unescape(text: string, state: WordState): void {
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      i += 1;
      if (text[i] !== '\n') state.value += text[i];
    } else plain(c, state);
  }
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
function readDoubleQuoted(part: Node, state: WordState): void {
  if (part.type === '"') return;
  if (part.type === '$') {
    // The grammar's token for a `$` before the closing quote takes the blanks before it.
    state.value += part.text;
    return;
  }
  if (part.type !== 'string_content') {
    state.dynamic = true;
    return;
  }
  state.value += part.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** Globs, brace expansion and tilde expansion make a word's value depend on the file system or the environment. */
function expands(unquoted: string): boolean {
  if (/[*?]/.test(unquoted)) return true;
  if (/\[.*\]/.test(unquoted)) return true;
  if (unquoted !== '{}' && /\{.*\}/.test(unquoted)) return true;
  return unquoted.startsWith('~') || /[=:]~/.test(unquoted);
}
