import { ShellSyntaxError, type ShellList, type ShellWord } from './shell-ast.js';

/** What the word scanner needs from the reader it works for: the text, a cursor, and a way to read nested programs. */
export interface ScanHost {
  readonly src: string;
  pos: number;
  /** Reads the list of a `$(…)`, `<(…)` or `>(…)` from `pos` to its `)`, leaving `pos` after it. */
  readSubstitution(): ShellList;
  /** Reads a program that has a text of its own (a backtick body, once unescaped; a here-document body). */
  readSeparate(source: string): ShellList;
}

/** What a word is being built from; `dynamic` once any part is only known when the line runs. */
interface WordState {
  value: string;
  dynamic: boolean;
  /** The unquoted characters alone: globs, braces and `~` only expand there. */
  unquoted: string;
  readonly programs: ShellList[];
}

/** Where a `$`, backtick or backslash is read: each quoting context escapes differently. */
type Context = 'plain' | 'double' | 'heredoc';

const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** Whether `c` ends an unquoted word. */
export const isMeta = (c: string | undefined): boolean => c === undefined || META.has(c);

/** Reads one unquoted-context word at `host.pos`; undefined when a metacharacter (or the end) is there. */
export function scanWord(host: ScanHost): ShellWord | undefined {
  const { src } = host;
  const start = host.pos;
  const state: WordState = { value: '', dynamic: false, unquoted: '', programs: [] };
  while (host.pos < src.length) {
    const c = src[host.pos]!;
    if (isMeta(c)) {
      // `<(…)` and `>(…)` are words (process substitutions) where a word starts.
      if (host.pos === start && (c === '<' || c === '>') && src[host.pos + 1] === '(') {
        host.pos += 2;
        state.programs.push(host.readSubstitution());
        state.dynamic = true;
        continue;
      }
      break;
    }
    if (c === '\\') {
      const next = src[host.pos + 1];
      if (next === '\n') host.pos += 2;
      else if (next === undefined) throw new ShellSyntaxError('a backslash ends the line', host.pos);
      else {
        state.value += next;
        host.pos += 2;
      }
    } else if (c === "'") {
      const close = src.indexOf("'", host.pos + 1);
      if (close < 0) throw new ShellSyntaxError('a single quote is not closed', host.pos);
      state.value += src.slice(host.pos + 1, close);
      host.pos = close + 1;
    } else if (c === '"') scanDouble(host, state);
    else if (c === '`') scanBacktick(host, state, 'plain');
    else if (c === '$') scanDollar(host, state, 'plain');
    else {
      state.value += c;
      state.unquoted += c;
      host.pos += 1;
    }
  }
  if (host.pos === start) return undefined;
  return { start, end: host.pos, raw: src.slice(start, host.pos), value: state.dynamic || expands(state.unquoted) ? undefined : state.value, programs: state.programs };
}

/** Globs, brace expansion and tilde expansion make a word's value depend on the file system or the environment. */
function expands(unquoted: string): boolean {
  if (/[*?]/.test(unquoted)) return true;
  if (/\[.*\]/.test(unquoted)) return true;
  if (unquoted !== '{}' && /\{.*\}/.test(unquoted)) return true;
  return unquoted.startsWith('~') || /[=:]~/.test(unquoted);
}

/** `"…"`: only `$`, backticks and a few backslash escapes are special. */
function scanDouble(host: ScanHost, state: WordState): void {
  const { src } = host;
  const open = host.pos;
  host.pos += 1;
  for (;;) {
    const c = src[host.pos];
    if (c === undefined) throw new ShellSyntaxError('a double quote is not closed', open);
    if (c === '"') {
      host.pos += 1;
      return;
    }
    if (c === '\\') scanBackslash(host, state, 'double');
    else if (c === '$') scanDollar(host, state, 'double');
    else if (c === '`') scanBacktick(host, state, 'double');
    else {
      state.value += c;
      host.pos += 1;
    }
  }
}

/** A backslash inside double quotes or a here-document escapes only `$`, `` ` ``, `\`, newline (and `"` in double quotes). */
function scanBackslash(host: ScanHost, state: WordState, context: Context): void {
  const next = host.src[host.pos + 1];
  if (next === '\n') host.pos += 2;
  else if (next === '$' || next === '`' || next === '\\' || (next === '"' && context === 'double')) {
    state.value += next;
    host.pos += 2;
  } else {
    state.value += '\\';
    host.pos += 1;
  }
}

/** `` `…` ``: the body is a program once its backslash escapes are undone. */
function scanBacktick(host: ScanHost, state: WordState, context: Context): void {
  const { src } = host;
  const open = host.pos;
  let body = '';
  host.pos += 1;
  for (;;) {
    const c = src[host.pos];
    if (c === undefined) throw new ShellSyntaxError('a backtick substitution is not closed', open);
    if (c === '`') break;
    if (c === '\\') {
      const next = src[host.pos + 1];
      if (next === undefined) throw new ShellSyntaxError('a backtick substitution is not closed', open);
      body += next === '`' || next === '$' || next === '\\' || (next === '"' && context === 'double') ? next : `\\${next}`;
      host.pos += 2;
    } else {
      body += c;
      host.pos += 1;
    }
  }
  host.pos += 1;
  state.programs.push(host.readSeparate(body));
  state.dynamic = true;
}

/** `$…`: a parameter, a substitution, arithmetic, or (followed by nothing of those) a plain `$`. */
function scanDollar(host: ScanHost, state: WordState, context: Context): void {
  const { src } = host;
  const at = host.pos;
  const next = src[at + 1];
  if (next === "'" && context === 'plain') {
    // $'…': ANSI-C quoting. Its escapes are not decoded, so its value counts as unknown.
    let i = at + 2;
    while (i < src.length && src[i] !== "'") i += src[i] === '\\' ? 2 : 1;
    if (i >= src.length) throw new ShellSyntaxError("a $'…' quote is not closed", at);
    host.pos = i + 1;
    state.dynamic = true;
  } else if (next === '"' && context === 'plain') {
    host.pos += 1;
    scanDouble(host, state);
  } else if (next === '(' && src[at + 2] === '(') {
    host.pos += 3;
    readArithmetic(host, state);
  } else if (next === '(') {
    host.pos += 2;
    state.programs.push(host.readSubstitution());
    state.dynamic = true;
  } else if (next === '{') {
    host.pos += 2;
    scanParameter(host, state, context);
  } else if (next === '[') {
    throw new ShellSyntaxError('$[…] arithmetic is not supported', at);
  } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
    host.pos = at + 1 + /^[A-Za-z0-9_]*/.exec(src.slice(at + 1))![0].length;
    state.dynamic = true;
  } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
    host.pos = at + 2;
    state.dynamic = true;
  } else {
    state.value += '$';
    state.unquoted += context === 'plain' ? '$' : '';
    host.pos = at + 1;
  }
}

/**
 * Arithmetic after `((` or `$((`, up to the matching `))`. Its substitutions run; so can
 * array subscripts in variables' values, which no reading of the line can see.
 */
export function scanArithmetic(host: ScanHost): ShellList[] {
  const state: WordState = { value: '', dynamic: true, unquoted: '', programs: [] };
  readArithmetic(host, state);
  return state.programs;
}

function readArithmetic(host: ScanHost, state: WordState): void {
  const { src } = host;
  const open = host.pos;
  let depth = 0;
  for (;;) {
    const c = src[host.pos];
    if (c === undefined) throw new ShellSyntaxError('arithmetic `((` is not closed', open);
    if (c === ')') {
      if (depth > 0) depth -= 1;
      else if (src[host.pos + 1] === ')') {
        host.pos += 2;
        break;
      } else throw new ShellSyntaxError('arithmetic `((` is closed by a single `)`', host.pos);
      host.pos += 1;
    } else if (c === '(') {
      depth += 1;
      host.pos += 1;
    } else if (c === '\\') scanBackslash(host, state, 'double');
    else if (c === '$') scanDollar(host, state, 'double');
    else if (c === '`') scanBacktick(host, state, 'double');
    else if (c === '"') scanDouble(host, state);
    else if (c === "'") throw new ShellSyntaxError('a single quote inside arithmetic', host.pos);
    else host.pos += 1;
  }
  state.dynamic = true;
}

/** `${…}`, up to its matching `}`; default values and patterns inside may substitute programs. */
function scanParameter(host: ScanHost, state: WordState, context: Context): void {
  const { src } = host;
  const open = host.pos - 2;
  const inner: WordState = { value: '', dynamic: true, unquoted: '', programs: state.programs };
  for (;;) {
    const c = src[host.pos];
    if (c === undefined) throw new ShellSyntaxError('a ${ is not closed', open);
    if (c === '}') {
      host.pos += 1;
      // ${x@P} expands the value like a prompt, running the substitutions it holds.
      if (src.slice(host.pos - 3, host.pos) === '@P}') throw new ShellSyntaxError('${…@P} runs the substitutions of a value', open);
      break;
    }
    if (c === '\\') host.pos += 2;
    else if (c === "'") {
      // Inside double quotes a quote in ${…} is read differently by each operator: refuse rather than guess.
      if (context !== 'plain') throw new ShellSyntaxError('a single quote inside ${…} within double quotes', host.pos);
      const close = src.indexOf("'", host.pos + 1);
      if (close < 0) throw new ShellSyntaxError('a single quote is not closed', host.pos);
      host.pos = close + 1;
    } else if (c === '"') scanDouble(host, inner);
    else if (c === '$') scanDollar(host, inner, context);
    else if (c === '`') scanBacktick(host, inner, context);
    else if (c === '{') throw new ShellSyntaxError('a `{` inside ${…}', host.pos);
    else host.pos += 1;
  }
  state.dynamic = true;
}

/** The substitutions of an unquoted here-document body (its text is read like double-quoted text, quotes aside). */
export function scanHeredocBody(host: ScanHost): ShellList[] {
  const state: WordState = { value: '', dynamic: false, unquoted: '', programs: [] };
  while (host.pos < host.src.length) {
    const c = host.src[host.pos];
    if (c === '\\') scanBackslash(host, state, 'heredoc');
    else if (c === '$') scanDollar(host, state, 'heredoc');
    else if (c === '`') scanBacktick(host, state, 'heredoc');
    else host.pos += 1;
  }
  return state.programs;
}
