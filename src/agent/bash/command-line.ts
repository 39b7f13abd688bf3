import { unwrap, type Arg } from './command-wrappers.js';
import { checkList, syntaxError } from './sh-syntax-check.js';
import { excerpt, ShellSyntaxError, type ShellList, type ShellStmt, type ShellWord } from './shell-ast.js';
import { ShellReader } from './shell-reader.js';

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
      /** The targets of output redirections (`>`, `>>`, `>|`, `<>`, `&>`, `&>>`, `>&file`). */
      readonly writes: readonly string[];
      /** Something in the line runs in another directory (`cd`, `pushd`, `env -C`, `find -execdir`…). */
      readonly changesDirectory: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/** How deep wrappers and `eval`/`sh -c` scripts may nest. */
const MAX_NESTING = 8;
/** Each list is checked by its own sh-syntax run (about 20 ms each). */
const MAX_LISTS = 64;
const CHECKS_AT_ONCE = 4;
const WRITE_OPS = new Set(['>', '>>', '>|', '<>', '&>', '&>>']);
const DIRECTORY_COMMANDS = new Set(['cd', 'pushd', 'popd']);
/** Variables whose text the shell evaluates later (prompts under `set -x`, startup files). */
const SUBSCRIPT_SUBSTITUTION = /\[[^\]]*(\$\(|`)/;
const EVALUATED_VARIABLE = /^(PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV)(\[[^\]]*\])?\+?=/;

class Unreadable extends Error {}

/** `value` as rules read it: bare unless blanks, quotes or shell operators would blur where it starts and ends. */
const quote = (value: string): string => (value !== '' && !/[\s'"\\$`;&|()<>]/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
const toArg = (word: ShellWord): Arg => ({ value: word.value, text: word.value === undefined ? word.raw : quote(word.value) });

/** Walks the syntax of a line and of every script it runs, gathering commands, writes and the lists to check. */
class Collector {
  readonly commands: SimpleCommand[] = [];
  readonly writes: string[] = [];
  readonly lists: ShellList[] = [];
  changesDirectory = false;

  script(text: string, nesting: number): void {
    if (nesting > MAX_NESTING) throw new Unreadable('commands are nested too deeply');
    let program: ShellList;
    try {
      program = new ShellReader(text).readProgram();
    } catch (error) {
      if (!(error instanceof ShellSyntaxError)) throw error;
      throw new ShellSyntaxError(`\`${excerpt(text)}\`: ${error.message}`, error.offset);
    }
    this.list(program, nesting);
  }

  private list(list: ShellList, nesting: number): void {
    this.lists.push(list);
    for (const stmt of list.stmts) this.stmt(stmt, nesting);
  }

  private stmt(stmt: ShellStmt, nesting: number): void {
    for (const redirect of stmt.redirects) {
      this.words([redirect.target], nesting);
      for (const program of redirect.heredocPrograms) this.list(program, nesting);
      const dup = redirect.op === '>&' && /^(\d+|-)$/.test(redirect.target.value ?? '');
      if (!WRITE_OPS.has(redirect.op) && !(redirect.op === '>&' && !dup)) continue;
      if (redirect.target.value === undefined) throw new Unreadable(`cannot tell where \`${redirect.op}${redirect.target.raw}\` writes`);
      this.writes.push(redirect.target.value);
    }
    const command = stmt.command;
    if (command.kind === 'binary') {
      this.stmt(command.left, nesting);
      this.stmt(command.right, nesting);
    } else if (command.kind === 'compound') {
      this.words(command.words, nesting);
      for (const list of command.lists) this.list(list, nesting);
    } else {
      this.words(command.assigns, nesting);
      this.words(command.words, nesting);
      if (command.words.length > 0) this.command(command.words.map(toArg), command.assigns.map(toArg), nesting, false);
      else {
        const evaluated = command.assigns.find((assign) => EVALUATED_VARIABLE.test(assign.raw));
        if (evaluated !== undefined) throw new Unreadable(`\`${evaluated.raw}\` sets a variable whose text the shell runs later`);
      }
    }
  }

  private words(words: readonly ShellWord[], nesting: number): void {
    for (const word of words) for (const program of word.programs) this.list(program, nesting);
  }

  /** A command, and what it runs through its arguments. */
  private command(args: Arg[], assigns: Arg[], nesting: number, inputAppended: boolean): void {
    if (nesting > MAX_NESTING) throw new Unreadable('commands are nested too deeply');
    const name = args[0]!.value;
    if (name === undefined || name === '') throw new Unreadable(`the command name \`${args[0]!.text}\` is not a literal word`);
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
 * run and every file it would write through a redirection. Conservative: a construct it
 * does not know, a command name that is not a literal word, or a syntax error makes the
 * line unreadable (`ok: false`), and a policy refuses what it cannot read. Needs the
 * optional package sh-syntax (mvdan/sh), against which every list is checked.
 */
export async function parseCommandLine(line: string): Promise<ParsedCommandLine> {
  if (typeof line !== 'string') throw new TypeError('line must be a string');
  const collector = new Collector();
  try {
    collector.script(line, 0);
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    if (!(error instanceof ShellSyntaxError)) throw error;
    // Prefer the reference grammar's account of a plain syntax error.
    return { ok: false, reason: (await syntaxError(line)) ?? error.message };
  }
  if (collector.lists.length > MAX_LISTS) return { ok: false, reason: `the line has more than ${MAX_LISTS} command lists to check` };
  // A few at a time: each check runs its own WebAssembly instance.
  for (let i = 0; i < collector.lists.length; i += CHECKS_AT_ONCE) {
    const disagreements = await Promise.all(collector.lists.slice(i, i + CHECKS_AT_ONCE).map((list) => checkList(list)));
    const disagreement = disagreements.find((reason) => reason !== undefined);
    if (disagreement !== undefined) return { ok: false, reason: disagreement };
  }
  return { ok: true, commands: collector.commands, writes: collector.writes, changesDirectory: collector.changesDirectory };
}
