import type { Node } from 'web-tree-sitter';

/** How deep the syntax tree may go before a line counts as unreadable. */
export const MAX_TREE_DEPTH = 1000;

/** What starts a substitution: the shell runs what follows. */
const SUBSTITUTION = /\$\(|`|\$\[|\$\{|[<>]\(/;
/** Tokens whose text bash does not expand (a here-document's text is checked where it is read). */
const LITERAL_TEXT = new Set(['raw_string', 'ansi_c_string', 'comment', 'heredoc_start', 'heredoc_end', 'heredoc_body', 'heredoc_content']);
/** Characters after which a new word starts: a `#` there starts a comment, digits there may name a descriptor. */
const WORD_START_AFTER = /[\s;&|()<>]/;

/** A piece of a line short enough to quote in a reason. */
export const excerpt = (text: string): string => {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length <= 80 ? flat : `${flat.slice(0, 77)}…`;
};

const quoted = (node: Node): string => `\`${excerpt(node.text)}\``;

/** Whether `node` is inside double quotes or a here-document's text (not counting those around a substitution it is in). */
export function doubleQuoted(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === 'string' || up.type === 'heredoc_body') return true;
    if (up.type === 'command_substitution' || up.type === 'process_substitution') return false;
  }
  return false;
}

/**
 * Why tree-sitter-bash's reading of a line cannot be trusted to be bash's, or undefined.
 * The grammar recovers from errors and was written for editors; bash's lexer differs from
 * it in places this checks: a syntax error or a missing token anywhere; text the grammar
 * skipped that bash reads (a line continuation inside a word, `\r`, no-break spaces); a `#`
 * inside a word read as a comment; and the constructs `nodeMisreading` lists.
 */
export function misreading(root: Node, text: string): string | undefined {
  if (root.hasError) return describeError(root) ?? 'a syntax error';
  return gap(text.slice(0, root.startIndex), false) ?? gap(text.slice(root.endIndex), false) ?? inside(root, text, 0);
}

function describeError(node: Node, depth = 0): string | undefined {
  if (depth > MAX_TREE_DEPTH) return undefined;
  if (node.isMissing) return node.type === 'word' ? 'a command is missing' : `a closing \`${node.type}\` is missing`;
  if (node.isError) {
    const at = node.text.trimStart();
    if (/^\$?["'`]/.test(at)) return `\`${excerpt(at)}\`: a quote without closing quote`;
    return `a syntax error at \`${excerpt(at)}\``;
  }
  for (const child of node.children) {
    const found = child.hasError || child.isMissing ? describeError(child, depth + 1) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Checks a node, the text between its children (what the grammar skipped as blanks), and the children. */
function inside(node: Node, text: string, depth: number): string | undefined {
  if (depth > MAX_TREE_DEPTH) return 'commands are nested too deeply';
  const problem = nodeMisreading(node, text);
  if (problem !== undefined || node.childCount === 0) return problem;
  // A here-document's text lies between its children; it is checked where it is read.
  const body = node.type === 'heredoc_body';
  // One word has no blanks between its parts: the grammar builds `]`+tab+`}` into one word, bash splits it.
  const word = node.type === 'word' || node.type === 'concatenation';
  let end = node.startIndex;
  for (const [i, child] of node.children.entries()) {
    if (word && child.startIndex !== end) return `${quoted(node)}: a blank inside a word`;
    const found = (body ? undefined : gap(text.slice(end, child.startIndex), i > 0)) ?? inside(child, text, depth + 1);
    if (found !== undefined) return found;
    end = child.endIndex;
  }
  return body ? undefined : gap(text.slice(end, node.endIndex), false);
}

/** Text the grammar skipped between two tokens: only spaces, tabs, newlines and line continuations may be there. */
function gap(skipped: string, between: boolean): string | undefined {
  if (skipped === '') return undefined;
  const rest = skipped.replace(/\\\n/g, '');
  if (/[^ \t\n]/.test(rest)) return `the parser skipped ${JSON.stringify(rest.replace(/^[ \t\n]+|[ \t\n]+$/g, ''))}, which the shell reads`;
  // bash removes `\`+newline before it splits words: with no blank around it, two tokens are one.
  if (between && rest === '') return 'a line continuation inside a word or an operator';
  return undefined;
}

/** Where bash reads one node differently from the grammar. */
function nodeMisreading(node: Node, text: string): string | undefined {
  const first = node.firstChild?.type;
  // After `=~` or `==` in a simple command the grammar reads a pattern, which can run on over `;` and `)`.
  if (node.type === 'regex' && node.parent?.type === 'command' && /[\s;&|()<>]/.test(node.text)) return `${quoted(node)}: words the parser reads as one pattern`;
  switch (node.type) {
    case 'comment': {
      const before = text[node.startIndex - 1];
      return before === undefined || WORD_START_AFTER.test(before) ? undefined : `${quoted(node)} is read as a comment, but the shell reads it as part of a word`;
    }
    case 'expansion':
      // ${x@P} expands the value like a prompt, running the substitutions it holds.
      if (node.text.endsWith('@P}')) return `${quoted(node)}: \${…@P} runs the substitutions of a value`;
      // Within double quotes, quotes inside ${…} are mostly literal: `"${x:-'$(rm y)'}"` runs rm.
      if (doubleQuoted(node) && node.descendantsOfType(['raw_string', 'ansi_c_string']).length > 0) return `${quoted(node)}: a single quote inside \${…} within double quotes or a here-document`;
      return undefined;
    case 'arithmetic_expansion':
      return arithmeticMisread(node);
    case 'compound_statement':
      if (first === '((') return arithmeticMisread(node);
      // `{` and `}` are reserved words only as words of their own: `{ls;}` runs a command `{ls`.
      return /^\{\s[\s\S]*[;&\n]\s*\}$/.test(node.text) ? undefined : `${quoted(node)}: \`{\` and \`}\` must stand as words of their own`;
    case 'file_descriptor': {
      // Only a word of digits right before `<` or `>` names a descriptor: in `-2>x`, `-2` is a word.
      const before = text[node.startIndex - 1];
      return /^\d+$/.test(node.text) && (before === undefined || WORD_START_AFTER.test(before)) ? undefined : `${quoted(node.parent!)}: \`${node.text}\` is a word for the shell, not a descriptor`;
    }
    case 'variable_assignment': {
      // bash assigns only to a name (or an array element): `9x=1` and `a-b=1` are commands.
      const name = node.childForFieldName('name');
      const variable = name?.type === 'subscript' ? name.childForFieldName('name') : name;
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(variable?.text ?? '') ? undefined : `${quoted(node)} is a command for the shell, not an assignment`;
    }
    case 'negated_command':
    case 'test_command':
      // `!x` and `[[x` are commands of those names; `]]` closes only as a word of its own.
      if (!/^(!|\[\[?)\s/.test(node.text) || (node.type === 'test_command' && !/\s\]\]?$/.test(node.text))) return `${quoted(node)}: \`${first}\` must stand as a word of its own`;
      return undefined;
    case 'file_redirect':
    case 'heredoc_redirect':
    case 'herestring_redirect': {
      // Digits (or `{name}`) right before `<` or `>` name a descriptor for bash: `0<x` is not the command `0`.
      if (first === 'file_descriptor') return undefined;
      return /(^|[\s;&|()<>])(\d+|\{\w+\})$/.test(text.slice(0, node.startIndex)) ? `${quoted(node)}: the word before it names a descriptor for the shell` : undefined;
    }
    default:
      // The grammar's token for a bare `$` sometimes takes the blanks before it.
      if (node.type === '$' && node.text !== '$' && node.parent?.type !== 'string') return `${quoted(node.parent ?? node)}: a blank inside a word`;
      if (node.childCount > 0 || !node.isNamed || LITERAL_TEXT.has(node.type)) return undefined;
      // The grammar keeps some text whole where bash substitutes: `${x#$(…)}` patterns, `${x:-`…`}`.
      if (SUBSTITUTION.test(node.text.replace(/\\[\s\S]/g, ''))) return `${quoted(node)}: a substitution the parser reads as text`;
      // An unquoted blank ends a word for bash; the grammar sometimes keeps one inside (`]`+tab+`}`, a leading newline).
      if (node.type === 'word' && /[ \t\n]/.test(node.text.replace(/\\[\s\S]/g, ''))) return `${quoted(node)}: a blank inside a word`;
      return node.type !== 'string_content' && node.text.replace(/\\\n/g, '').includes('\n') ? `${quoted(node)}: a newline inside a word` : undefined;
  }
}

/**
 * bash finds where `$((…))`, `((…))` and `$[…]` end by counting brackets in their text,
 * before it parses what is inside; the grammar parses first. A `)` of a case pattern in a
 * substitution inside ends bash's count early, and bash then reads `$((` as `$( (`, running
 * commands the grammar reads as arithmetic. The count must end exactly where the grammar's does.
 */
function arithmeticMisread(node: Node): string | undefined {
  const text = node.text;
  const differs = `\`${excerpt(text)}\`: bash may read where this arithmetic ends differently`;
  // bash skips quoted text while it counts; backticks and comments hide brackets from one reader or the other.
  if (/['"`]/.test(text) || node.descendantsOfType('comment').length > 0) return differs;
  const [open, close, first, last] = text.startsWith('$[') ? ['[', ']', 1, text.length - 1] : ['(', ')', text.startsWith('$') ? 2 : 1, text.length - 2];
  let depth = 0;
  for (let i = first; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\') i += 1;
    else if (c === open) depth += 1;
    else if (c === close && --depth === 0) return i === last ? undefined : differs;
  }
  return differs;
}
