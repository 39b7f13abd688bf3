import type { Node } from 'web-tree-sitter';
import { excerpt } from './shell-misreadings.js';
import { wordOf } from './shell-word.js';

/** The line is not read the way the shell would read it: the policy refuses what it cannot see. */
export class Unreadable extends Error {}

/** What reading a redirection needs from the walk it is part of. */
export interface Walker {
  readonly writes: string[];
  /** The text of the script being walked. */
  readonly source: string;
  visit(node: Node, nesting: number, depth: number): void;
  /** Parses and walks `text` as a script of its own. */
  script(text: string, nesting: number): void;
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>']);
/** What expands in a here-document whose delimiter is not quoted. */
const HEREDOC_SUBSTITUTION = /\$\(|`|\$\[|\$\{/;

/**
 * A newline between two parts of one command ends the command for bash; the grammar reads
 * some as blanks (after `=~`, after a redirection operator), which would hide the next line.
 */
export function endsLine(walker: Walker, node: Node, from: number, to: number): void {
  if (!walker.source.slice(from, to).replace(/\\\n/g, '').includes('\n')) return;
  throw new Unreadable(`\`${excerpt(node.text)}\`: a newline inside a command ends it for the shell`);
}

/**
 * Reads a redirection: records where an output redirection writes and walks what its
 * target substitutes. The grammar hangs words that follow a redirection on it (`cat > out
 * x` reads `x` as a second destination); they go to `extra`, the arguments of the command
 * the redirection belongs to, and make the line unreadable where there is no such command.
 */
export function readRedirect(walker: Walker, node: Node, extra: Node[] | undefined, nesting: number, depth: number): void {
  const more = (words: readonly Node[]): void => {
    if (words.length === 0) return;
    if (extra === undefined) throw new Unreadable(`\`${excerpt(node.text)}\`: words after a redirection that belong to no command`);
    extra.push(...words);
  };
  switch (node.type) {
    case 'file_redirect': {
      const destinations = node.childrenForFieldName('destination');
      const [target, ...rest] = destinations;
      if (target !== undefined) endsLine(walker, node, node.startIndex, target.startIndex);
      // The grammar splits a few words bash reads as one (`a$7`).
      if (destinations.some((word, i) => i > 0 && destinations[i - 1]!.endIndex === word.startIndex)) throw new Unreadable(`\`${excerpt(node.text)}\`: one word to the shell`);
      more(rest);
      if (target !== undefined) walker.visit(target, nesting, depth + 1);
      const op = node.children.find((child) => !child.isNamed)?.type ?? '';
      const value = target === undefined ? undefined : wordOf(target).value;
      // After `>&` or `<&` bash reads a leading `-` as a token of its own: `>&-f` closes and passes `f` on.
      if ((op === '>&' || op === '<&') && value?.startsWith('-') && value !== '-') throw new Unreadable(`\`${node.text}\`: the shell reads \`-\` and \`${value.slice(1)}\` apart`);
      if (op === '>&-' || op === '<&-') {
        more(target === undefined ? [] : [target]);
        return;
      }
      // `>&2` and `>&-` duplicate or close a descriptor; `>&file` writes file.
      const dup = op === '>&' && /^(\d+|-)$/.test(value ?? '');
      if (!WRITE_OPS.has(op) && !(op === '>&' && !dup)) return;
      if (value === undefined) throw new Unreadable(`cannot tell where \`${node.text}\` writes`);
      // bash expands a `>&file` target a second time: `>& '$(rm y)'` runs rm.
      if (op === '>&' && !/^[\w./@%+=:,-]+$/.test(value)) throw new Unreadable(`\`${node.text}\`: bash expands this target twice`);
      walker.writes.push(value);
      return;
    }
    case 'herestring_redirect':
      endsLine(walker, node, node.startIndex, node.lastNamedChild?.startIndex ?? node.startIndex);
      for (const child of node.namedChildren) walker.visit(child, nesting, depth + 1);
      return;
    case 'heredoc_redirect':
      return heredoc(walker, node, more, extra, nesting, depth);
    default:
      throw new Unreadable(`\`${excerpt(node.text)}\`: ${node.type} is not supported`);
  }
}

/** `<<delimiter`, what the grammar reads after it on the same line, then the body. */
function heredoc(walker: Walker, node: Node, more: (words: readonly Node[]) => void, extra: Node[] | undefined, nesting: number, depth: number): void {
  const delimiter = node.children.find((child) => child.type === 'heredoc_start')?.text ?? '';
  for (const [i, child] of node.children.entries()) {
    const field = node.fieldNameForChild(i);
    if (field === 'argument') more([child]);
    else if (field === 'redirect') readRedirect(walker, child, extra, nesting, depth + 1);
    else if (field === 'right' || child.type === 'pipeline') walker.visit(child, nesting, depth + 1);
    else if (child.type === 'heredoc_body') heredocBody(walker, child, /['"\\]/.test(delimiter), nesting, depth);
    // `<<`, the delimiter, `&&` or `||`, the closing line: nothing runs there.
  }
}

/** A body is expanded, and its substitutions run, unless its delimiter is quoted. */
function heredocBody(walker: Walker, body: Node, quoted: boolean, nesting: number, depth: number): void {
  if (quoted) {
    if (body.namedChildCount > 0) throw new Unreadable('a here-document with a quoted delimiter is read as expanding');
    return;
  }
  // The grammar reads `$(…)` and `${…}` in a body, not backticks: the text between them must hold no substitution.
  let text = '';
  let at = body.startIndex;
  for (const child of body.namedChildren) {
    if (child.type === 'heredoc_content') continue;
    text += `${body.text.slice(at - body.startIndex, child.startIndex - body.startIndex)} `;
    at = child.endIndex;
  }
  text += body.text.slice(at - body.startIndex);
  if (HEREDOC_SUBSTITUTION.test(text.replace(/\\[\s\S]/g, ''))) throw new Unreadable(`\`${excerpt(body.text)}\`: a substitution in a here-document the parser does not read`);
  for (const child of body.namedChildren) {
    // The grammar reads `$((…))` in a body as `$( (…) )`; bash reads arithmetic, as it does in a word.
    if (child.type === 'command_substitution' && child.text.startsWith('$((')) walker.script(`arithmetic=${child.text}`, nesting);
    else walker.visit(child, nesting, depth + 1);
  }
}
