import type { Node, Parser } from 'web-tree-sitter';
import { loadBashParser } from './bash-grammar.js';
import { unwrap, type Arg } from './command-wrappers.js';
import { doubleQuoted, excerpt, MAX_TREE_DEPTH, misreading } from './shell-misreadings.js';
import { quote, wordOf } from './shell-word.js';
import { endsLine, readRedirect, Unreadable, type Walker } from './shell-redirects.js';

/** One command the line would run, as policy rules see it. */
export interface SimpleCommand {
  /** Its words (assignments before it included), each quoted only where needed, joined by single spaces: `rm -rf y`. */
  readonly text: string;
  /** The command name as the shell reads it (`rm`, `/bin/rm`). */
  readonly name: string;
}

export type ParsedCommandLine =
  | {
      readonly ok: true;
      /** Every simple command, wherever it stands, and every command a wrapper or `eval`/`sh -c` runs. */
      readonly commands: readonly SimpleCommand[];
      /** The targets of output redirections (`>`, `>>`, `>|`, `&>`, `&>>`, `>&file`). */
      readonly writes: readonly string[];
      /** Something in the line runs in another directory (`cd`, `pushd`, `env -C`, `find -execdir`…). */
      readonly changesDirectory: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/** How deep wrappers and `eval`/`sh -c` scripts may nest. */
const MAX_NESTING = 8;
const DIRECTORY_COMMANDS = new Set(['cd', 'pushd', 'popd']);
/** Variables whose text the shell evaluates later (prompts under `set -x`, startup files). */
const SUBSCRIPT_SUBSTITUTION = /\[[^\]]*(\$\(|`)/;
const EVALUATED_VARIABLE = /^(PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV)(\[[^\]]*\])?\+?=/;
/** Reserved words the grammar does not read where bash would (`time { …; }`), and `coproc`, which it does not know. */
const RESERVED_NAMES = new Set(['{', '}', '!', '[[', ']]', 'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'select', 'in', 'function', 'coproc']);
/** Nodes whose children are walked as they are: statements around commands, and the parts of words. */
const CONTAINERS = new Set([
  ...['program', 'list', 'pipeline', 'subshell', 'compound_statement', 'do_group', 'if_statement', 'elif_clause', 'else_clause', 'while_statement'],
  ...['for_statement', 'case_statement', 'case_item', 'negated_command', 'function_definition', 'variable_assignments', 'test_command', 'command_name', 'expansion'],
  ...['word', 'number', 'string', 'string_content', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation', 'simple_expansion', 'command_substitution'],
  ...['process_substitution', 'arithmetic_expansion', 'brace_expression', 'array', 'subscript', 'variable_name', 'special_variable_name', 'binary_expression'],
  ...['unary_expression', 'ternary_expression', 'postfix_expression', 'parenthesized_expression', 'test_operator', 'file_descriptor', 'heredoc_content', 'regex', 'extglob_pattern'],
]);
/** Operators that end a command for bash, and so cannot be `[`'s arguments. */
const SHELL_OPERATOR = /[|&;<>()]/;

/** Walks the syntax tree of a line and of every script it runs, gathering commands and writes. */
class Collector implements Walker {
  readonly commands: SimpleCommand[] = [];
  readonly writes: string[] = [];
  changesDirectory = false;

  /** The text of the script being walked. */
  source = '';

  constructor(private readonly parser: Parser) {}

  script(text: string, nesting: number): void {
    if (nesting > MAX_NESTING) throw new Unreadable('commands are nested too deeply');
    const tree = this.parser.parse(text);
    if (tree === null) throw new Unreadable(`\`${excerpt(text)}\` could not be parsed`);
    const outer = this.source;
    this.source = text;
    try {
      const problem = misreading(tree.rootNode, text);
      if (problem !== undefined) throw new Unreadable(`\`${excerpt(text)}\`: ${problem}`);
      this.visit(tree.rootNode, nesting, 0);
    } finally {
      this.source = outer;
      tree.delete();
    }
  }

  visit(node: Node, nesting: number, depth: number): void {
    if (depth > MAX_TREE_DEPTH) throw new Unreadable('commands are nested too deeply');
    switch (node.type) {
      case 'command':
        return this.simple(node, [], nesting, depth);
      case 'declaration_command':
      case 'unset_command':
        return this.words(node, node.children.filter((child) => child.type !== 'comment'), [], nesting, depth);
      case 'redirected_statement':
        return this.redirected(node, nesting, depth);
      case 'file_redirect':
      case 'herestring_redirect':
      case 'heredoc_redirect':
        return readRedirect(this, node, undefined, nesting, depth);
      case 'c_style_for_statement':
        throw new Unreadable('the arithmetic `for ((…))` is not supported');
      case 'comment':
        return;
      case 'variable_assignment':
        if (EVALUATED_VARIABLE.test(node.text)) throw new Unreadable(`\`${node.text}\` sets a variable whose text the shell runs later`);
        break;
      case 'command_substitution':
        if (node.firstChild?.type === '`' || node.firstChild?.type === '$`') return this.backticks(node, nesting, depth);
        break;
      case 'test_command':
        if (node.firstChild?.type === '[') return this.bracketTest(node, nesting, depth);
        break;
      default:
        if (!CONTAINERS.has(node.type)) throw new Unreadable(`\`${excerpt(node.text)}\`: ${node.type} is not supported`);
    }
    for (const child of node.namedChildren) this.visit(child, nesting, depth + 1);
  }

  /**
   * `` `…` ``: bash undoes the backslash escapes of `$`, `` ` `` and `\` (and `"` inside double
   * quotes) before it reads the body, the grammar does not: a body with such escapes is read again.
   */
  private backticks(node: Node, nesting: number, depth: number): void {
    const body = node.text.slice(node.firstChild!.text.length, -1);
    const unescaped = body.replace(doubleQuoted(node) ? /\\([$`\\"])/g : /\\([$`\\])/g, '$1');
    if (unescaped !== body) return this.script(unescaped, nesting);
    for (const child of node.namedChildren) this.visit(child, nesting, depth + 1);
  }

  /** `body redirect…`: redirections after a statement; words the grammar hangs on them are the command's. */
  private redirected(node: Node, nesting: number, depth: number): void {
    const body = node.childForFieldName('body');
    const extra: Node[] = [];
    for (const child of node.namedChildren) {
      if (child.type.endsWith('_redirect')) readRedirect(this, child, extra, nesting, depth + 1);
      else if (child.id !== body?.id && child.type !== 'comment') throw new Unreadable(`\`${excerpt(node.text)}\`: ${child.type} after a statement is not supported`);
    }
    if (body?.type === 'command') return this.simple(body, extra, nesting, depth + 1);
    if (extra.length > 0) throw new Unreadable(`\`${excerpt(node.text)}\`: words after a redirection of a compound command`);
    if (body !== null) this.visit(body, nesting, depth + 1);
  }

  /** A simple command: assignments, redirections, its name and arguments (`extra`: arguments the grammar put elsewhere). */
  private simple(node: Node, extra: readonly Node[], nesting: number, depth: number): void {
    const words: Node[] = [];
    for (const [i, child] of node.children.entries()) {
      const field = node.fieldNameForChild(i);
      const previous = node.children[i - 1];
      if (previous !== undefined) endsLine(this, node, previous.endIndex, child.startIndex);
      // A redirection's target runs on into a word right after it: `>out\;x` writes `out;x`.
      if (previous?.type.endsWith('_redirect') && field !== 'redirect' && previous.endIndex === child.startIndex) {
        throw new Unreadable(`\`${excerpt(previous.text + child.text)}\` is one word to the shell`);
      }
      if (field === 'redirect') readRedirect(this, child, undefined, nesting, depth + 1);
      else if (child.type === 'command_name') words.push(child.firstChild!);
      else if (field === 'argument' || child.type === 'variable_assignment') words.push(child);
      // `name (list)`: bash refuses it, unless name is `time`; its commands count either way.
      else if (child.type === 'subshell') this.visit(child, nesting, depth + 1);
      else if (child.type !== 'comment') throw new Unreadable(`\`${excerpt(node.text)}\`: ${child.type} in a command is not supported`);
    }
    const assigns = words.filter((word) => word.type === 'variable_assignment');
    this.words(node, [...words.slice(assigns.length), ...extra], assigns, nesting, depth);
  }

  /** `[ … ]` is the command `[`: the grammar reads it as an expression, whose parts are its arguments. */
  private bracketTest(node: Node, nesting: number, depth: number): void {
    const atoms: Node[] = [];
    const collect = (parent: Node): void => {
      for (const child of parent.children) {
        if (/^(binary|unary|ternary|postfix)_expression$/.test(child.type)) collect(child);
        else if (!child.isNamed && SHELL_OPERATOR.test(child.type)) throw new Unreadable(`\`${excerpt(node.text)}\`: \`${child.type}\` inside \`[ ]\` is the shell's, not test's`);
        else if (child.type === 'redirected_statement' || child.type === 'parenthesized_expression') throw new Unreadable(`\`${excerpt(node.text)}\` is not supported`);
        else atoms.push(child);
      }
    };
    collect(node);
    this.words(node, atoms, [], nesting, depth);
  }

  /** A command made of `words` (name first) after `assigns`: walks what they substitute, then records it. */
  private words(node: Node, words: readonly Node[], assigns: readonly Node[], nesting: number, depth: number): void {
    const all = [...assigns, ...words].sort((a, b) => a.startIndex - b.startIndex);
    for (let i = 1; i < all.length; i += 1) {
      // The grammar splits a few words bash reads as one (`$"…"`).
      if (all[i - 1]!.endIndex === all[i]!.startIndex) throw new Unreadable(`\`${excerpt(all[i - 1]!.text + all[i]!.text)}\` is one word to the shell`);
      endsLine(this, node, all[i - 1]!.endIndex, all[i]!.startIndex);
    }
    for (const word of all) if (word.isNamed) this.visit(word, nesting, depth + 1);
    if (words.length > 0) this.command(words.map(wordOf), assigns.map(wordOf), nesting, false);
  }

  /** A command, and what it runs through its arguments. */
  private command(args: Arg[], assigns: Arg[], nesting: number, inputAppended: boolean): void {
    if (nesting > MAX_NESTING) throw new Unreadable('commands are nested too deeply');
    const name = args[0]!.value;
    if (name === undefined || name === '') throw new Unreadable(`the command name \`${args[0]!.text}\` is not a literal word`);
    if (RESERVED_NAMES.has(name)) throw new Unreadable(`\`${name}\` where a command starts is not supported`);
    const evaluated = [...assigns, ...args].find((arg) => EVALUATED_VARIABLE.test(arg.value ?? arg.text));
    if (evaluated !== undefined) throw new Unreadable(`\`${evaluated.text}\` sets a variable whose text the shell runs later`);
    // printf -v, read, unset, declare, let and test -v evaluate a quoted `a[$(…)]` subscript.
    const subscript = args.find((arg) => arg.value !== undefined && SUBSCRIPT_SUBSTITUTION.test(arg.value));
    if (subscript !== undefined) throw new Unreadable(`\`${subscript.text}\` holds a substitution in a subscript the shell may evaluate`);
    const text = (words: Arg[]): string => words.map((arg) => arg.text).join(' ');
    this.commands.push({ text: text([...assigns, ...args]), name });
    // `VAR=x cmd` and `/bin/cmd` also count as plain `cmd`, so a rule about cmd sees them.
    if (assigns.length > 0) this.commands.push({ text: text(args), name });
    const base = name.split('/').pop()!;
    if (base !== name && base !== '') this.commands.push({ text: text([{ value: base, text: quote(base) }, ...args.slice(1)]), name: base });
    if (DIRECTORY_COMMANDS.has(base)) this.changesDirectory = true;
    const inner = unwrap(args, inputAppended);
    if (typeof inner === 'string') throw new Unreadable(inner);
    this.changesDirectory ||= inner.changesDirectory;
    for (const command of inner.commands) this.command(command, [], nesting + 1, inner.appendsInput ?? false);
    for (const script of inner.scripts) this.script(script, nesting + 1);
  }
}

/**
 * Reads a bash command line the way bash would, and lists every simple command it would
 * run and every file it would write through a redirection. The line is parsed by
 * tree-sitter-bash (through web-tree-sitter, both optional peers). Conservative: a syntax
 * error, a construct the walk does not know, a command name that is not a literal word, or
 * a place where the grammar and bash may read the line differently makes the line
 * unreadable (`ok: false`), and a policy refuses what it cannot read.
 */
export async function parseCommandLine(line: string): Promise<ParsedCommandLine> {
  if (typeof line !== 'string') throw new TypeError('line must be a string');
  const collector = new Collector(await loadBashParser());
  try {
    collector.script(line, 0);
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, commands: collector.commands, writes: collector.writes, changesDirectory: collector.changesDirectory };
}
