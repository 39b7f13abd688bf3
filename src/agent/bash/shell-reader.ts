import { REDIRECT_OPS, ShellSyntaxError, type RedirectOp, type ShellCommand, type ShellList, type ShellRedirect, type ShellStmt, type ShellWord } from './shell-ast.js';
import { readCompound } from './shell-compound.js';
import { readHeredocBodies, type PendingHeredoc } from './shell-heredoc.js';
import { isMeta, scanArithmetic, scanHeredocBody, scanWord, type ScanHost } from './shell-words.js';

/** How deep separate programs (backticks, here-documents) may nest before the reader gives up. */
const MAX_DEPTH = 24;
/** How deep commands may nest within one text (subshells, blocks, substitutions). */
const MAX_NESTING = 200;

/** Words that open a compound command where a command starts. */
const COMPOUND_OPENERS = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case', 'function', '[[']);
/** Words that only close or continue something: a command cannot start with them. */
const CLOSERS = new Set(['}', 'then', 'elif', 'else', 'fi', 'do', 'done', 'esac', ']]']);

const REDIRECT = new RegExp(`(\\d+|\\{[A-Za-z_][A-Za-z0-9_]*\\})?(${REDIRECT_OPS.map((op) => op.replace(/[|]/g, '\\|')).join('|')})`, 'y');
const RESERVED = /(\{|\}|!|\[\[|\]\]|[a-z]+)(?=[\s;&|()<>]|$)/y;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

interface ListOptions {
  /** Reserved words that end the list (`then`, `fi`, `}`…). */
  readonly stops?: ReadonlySet<string>;
  /** A `)` ends the list (subshell, substitution). */
  readonly closeParen?: boolean;
  /** `;;`, `;&` and `;;&` end the list (a case item). */
  readonly caseItem?: boolean;
}

/**
 * A recursive-descent reader for the shell language, conservative by design: what it does
 * not know (coproc, arithmetic for, `$[…]`…) is a ShellSyntaxError, never a guess.
 */
export class ShellReader implements ScanHost {
  pos = 0;
  private readonly pending: PendingHeredoc[] = [];
  private nesting = 0;

  constructor(
    readonly src: string,
    private readonly depth = 0,
  ) {
    if (depth > MAX_DEPTH) throw new ShellSyntaxError('programs are nested too deeply', 0);
  }

  /** Reads the whole text as one program. */
  readProgram(): ShellList {
    const list = this.listUntil({});
    if (this.pos < this.src.length) this.fail(`unexpected \`${this.src[this.pos]}\``);
    return list;
  }

  readSubstitution(): ShellList {
    const list = this.listUntil({ closeParen: true });
    if (this.src[this.pos] !== ')') this.fail('a substitution is not closed');
    this.pos += 1;
    return list;
  }

  readSeparate(source: string): ShellList {
    return new ShellReader(source, this.depth + 1).readProgram();
  }

  fail(message: string): never {
    throw new ShellSyntaxError(message, this.pos);
  }

  at(text: string): boolean {
    return this.src.startsWith(text, this.pos);
  }

  /** Spaces, tabs, line continuations and a comment up to (not including) the end of its line. */
  skipBlanks(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t') this.pos += 1;
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end;
      } else return;
    }
  }

  /** Blanks and newlines (reading any here-document bodies the newlines start). */
  skipBlankLines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.src[this.pos] !== '\n') return;
      this.newline();
    }
  }

  /** The reserved word at the cursor, if one stands there as a word of its own. */
  reserved(): string | undefined {
    RESERVED.lastIndex = this.pos;
    return RESERVED.exec(this.src)?.[1];
  }

  expect(word: string): void {
    this.skipBlankLines();
    if (this.reserved() !== word) this.fail(`expected \`${word}\``);
    this.pos += word.length;
  }

  word(): ShellWord | undefined {
    return scanWord(this);
  }

  /** Statements up to the end, a stop word, a `)` or a case terminator, as their own list. */
  listUntil(options: ListOptions): ShellList {
    const start = this.pos;
    const stmts: ShellStmt[] = [];
    for (;;) {
      this.skipBlankLines();
      const c = this.src[this.pos];
      if (c === undefined) break;
      if (c === ')' && options.closeParen) break;
      if ((this.at(';;') || this.at(';&')) && options.caseItem) break;
      const word = this.reserved();
      if (word !== undefined && options.stops?.has(word)) break;
      stmts.push(this.andOr());
      this.skipBlanks();
      if (this.at(';;') || this.at(';&')) continue;
      if (this.at(';') || (this.at('&') && !this.at('&&'))) this.pos += 1;
      else if (!(this.at('\n') || this.pos >= this.src.length || this.at(')'))) this.fail(`unexpected \`${this.src[this.pos]}\``);
    }
    return { source: this.src, start, end: this.pos, stmts };
  }

  /** `a && b || c`: left to right. */
  private andOr(): ShellStmt {
    let left = this.pipeline();
    for (;;) {
      this.skipBlanks();
      const op = this.at('&&') ? '&&' : this.at('||') ? '||' : undefined;
      if (op === undefined) return left;
      this.pos += 2;
      this.skipBlankLines();
      left = { start: left.start, command: { kind: 'binary', op, left, right: this.pipeline() }, redirects: [] };
    }
  }

  /** `[!] [time [-p]] a | b |& c`. */
  private pipeline(): ShellStmt {
    this.skipBlanks();
    const start = this.pos;
    const word = this.reserved();
    if (word === '!' || word === 'time') {
      this.pos += word.length;
      this.skipBlanks();
      if (word === 'time' && this.at('-p') && isMeta(this.src[this.pos + 2])) this.pos += 2;
      const inner = this.pipeline();
      const list: ShellList = { source: this.src, start: inner.start, end: this.pos, stmts: [inner] };
      return word === '!' ? { ...inner, start } : { start, command: { kind: 'compound', keyword: 'time', lists: [list], words: [] }, redirects: [] };
    }
    let left = this.command();
    for (;;) {
      this.skipBlanks();
      const op = this.at('|&') ? '|&' : this.at('|') && !this.at('||') ? '|' : undefined;
      if (op === undefined) return left;
      this.pos += op.length;
      this.skipBlankLines();
      left = { start: left.start, command: { kind: 'binary', op, left, right: this.command() }, redirects: [] };
    }
  }

  /** One command with its redirections: a simple command, a function definition or a compound command. */
  command(): ShellStmt {
    if (++this.nesting > MAX_NESTING) this.fail('commands are nested too deeply');
    try {
      return this.oneCommand();
    } finally {
      this.nesting -= 1;
    }
  }

  private oneCommand(): ShellStmt {
    this.skipBlanks();
    const start = this.pos;
    const word = this.reserved();
    let command: ShellCommand;
    if (this.at('((')) {
      this.pos += 2;
      const programs = scanArithmetic(this);
      command = { kind: 'compound', keyword: '((', lists: programs, words: [] };
    } else if (this.at('(')) {
      this.pos += 1;
      const list = this.readSubstitution();
      command = { kind: 'compound', keyword: '(', lists: [list], words: [] };
    } else if (word !== undefined && COMPOUND_OPENERS.has(word)) {
      this.pos += word.length;
      command = readCompound(this, word);
    } else if (word !== undefined && CLOSERS.has(word)) {
      this.fail(`unexpected \`${word}\``);
    } else if (word === 'coproc') {
      this.fail('coproc is not supported');
    } else return this.simple(start);
    return { start, command, redirects: this.redirects([]) };
  }

  /** Redirections after a compound command, or among a simple command's words. */
  private redirects(into: ShellRedirect[]): ShellRedirect[] {
    for (;;) {
      this.skipBlanks();
      const redirect = this.redirect();
      if (redirect === undefined) return into;
      into.push(redirect);
    }
  }

  private redirect(): ShellRedirect | undefined {
    REDIRECT.lastIndex = this.pos;
    const match = REDIRECT.exec(this.src);
    if (!match) return undefined;
    const [text, fd, op] = match as unknown as [string, string | undefined, RedirectOp];
    // `<(…)` and `>(…)` are process substitutions, not redirections.
    if (fd === undefined && (op === '<' || op === '>') && this.src[this.pos + 1] === '(') return undefined;
    this.pos += text.length;
    this.skipBlanks();
    const target = this.word();
    if (target === undefined) this.fail(`\`${op}\` needs a target`);
    const heredocPrograms: ShellList[] = [];
    if (op === '<<' || op === '<<-') {
      if (target.value === undefined && !/^[^$`]*$/.test(target.raw)) this.fail('a here-document delimiter is not a literal word');
      const delimiter = target.value ?? target.raw;
      this.pending.push({ delimiter, stripTabs: op === '<<-', expands: !/['"\\]/.test(target.raw), programs: heredocPrograms });
    }
    return { op, fd, target, heredocPrograms };
  }

  /** Assignments, words and redirections; `name() body` makes it a function definition. */
  private simple(start: number): ShellStmt {
    const assigns: ShellWord[] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    for (;;) {
      this.redirects(redirects);
      if (this.at('(')) {
        if (words.length === 1 && assigns.length === 0 && /^\(\s*\)/.test(this.src.slice(this.pos))) return this.functionBody(start);
        this.fail('unexpected `(`');
      }
      const word = this.word();
      if (word === undefined) break;
      if (words.length === 0 && ASSIGNMENT.test(word.raw)) assigns.push(this.at('(') && word.raw.endsWith('=') ? this.arrayValue(word) : word);
      else words.push(word);
    }
    if (assigns.length === 0 && words.length === 0 && redirects.length === 0) this.fail(`unexpected \`${this.src[this.pos] ?? 'end of line'}\``);
    return { start, command: { kind: 'simple', assigns, words }, redirects };
  }

  /** `name=(a b c)`: the whole assignment as one word whose value is unknown. */
  private arrayValue(name: ShellWord): ShellWord {
    this.pos += 1;
    const programs = [...name.programs];
    for (;;) {
      this.skipBlankLines();
      if (this.at(')')) break;
      const element = this.word();
      if (element === undefined) this.fail('unexpected character in an array value');
      programs.push(...element.programs);
    }
    this.pos += 1;
    return { start: name.start, end: this.pos, raw: this.src.slice(name.start, this.pos), value: undefined, programs };
  }

  /** `name() body`: the body is any compound command; its commands count as the line's own. */
  private functionBody(start: number): ShellStmt {
    this.pos = this.src.indexOf(')', this.pos) + 1;
    this.skipBlankLines();
    const body = this.command();
    if (body.command.kind !== 'compound') this.fail('a function body must be a compound command');
    const list: ShellList = { source: this.src, start: body.start, end: this.pos, stmts: [body] };
    return { start, command: { kind: 'compound', keyword: 'function', lists: [list], words: [] }, redirects: [] };
  }

  /** After a newline, the bodies of the here-documents its line opened. */
  private newline(): void {
    this.pos = readHeredocBodies(this.src, this.pos + 1, this.pending.splice(0), (body) => scanHeredocBody(new ShellReader(body, this.depth + 1)));
  }
}
