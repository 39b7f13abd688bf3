import type { ShellCommand, ShellList, ShellWord } from './shell-ast.js';
import type { ShellReader } from './shell-reader.js';

const stops = (...words: string[]): ReadonlySet<string> => new Set(words);
const THEN = stops('then');
const AFTER_THEN = stops('elif', 'else', 'fi');
const FI = stops('fi');
const DO = stops('do');
const DONE = stops('done');
const CLOSE_BRACE = stops('}');
const ESAC = stops('esac');

/** Reads the compound command opened by `keyword` (already consumed). */
export function readCompound(reader: ShellReader, keyword: string): ShellCommand {
  const lists: ShellList[] = [];
  const words: ShellWord[] = [];
  const compound = (): ShellCommand => ({ kind: 'compound', keyword, lists, words });
  switch (keyword) {
    case '{':
      lists.push(reader.listUntil({ stops: CLOSE_BRACE }));
      reader.expect('}');
      return compound();
    case 'if':
      lists.push(reader.listUntil({ stops: THEN }));
      reader.expect('then');
      lists.push(reader.listUntil({ stops: AFTER_THEN }));
      for (;;) {
        const word = reader.reserved();
        reader.pos += word?.length ?? 0;
        if (word === 'fi') return compound();
        if (word === 'elif') {
          lists.push(reader.listUntil({ stops: THEN }));
          reader.expect('then');
          lists.push(reader.listUntil({ stops: AFTER_THEN }));
        } else if (word === 'else') {
          lists.push(reader.listUntil({ stops: FI }));
        } else reader.fail('expected `fi`');
      }
    case 'while':
    case 'until':
      lists.push(reader.listUntil({ stops: DO }));
      reader.expect('do');
      lists.push(reader.listUntil({ stops: DONE }));
      reader.expect('done');
      return compound();
    case 'for':
    case 'select':
      readForHead(reader, words);
      reader.expect('do');
      lists.push(reader.listUntil({ stops: DONE }));
      reader.expect('done');
      return compound();
    case 'case':
      readCase(reader, lists, words);
      return compound();
    case 'function':
      return readFunction(reader);
    case '[[':
      readTest(reader, words);
      return compound();
    default:
      return reader.fail(`\`${keyword}\` is not supported`);
  }
}

/** `for name [in words…] ;|newline` (the arithmetic form is not supported). */
function readForHead(reader: ShellReader, words: ShellWord[]): void {
  reader.skipBlanks();
  if (reader.at('((')) reader.fail('the arithmetic `for ((…))` is not supported');
  const name = reader.word();
  if (name?.value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value)) reader.fail('`for` needs a variable name');
  reader.skipBlankLines();
  if (reader.reserved() === 'in') {
    reader.pos += 2;
    for (;;) {
      reader.skipBlanks();
      const word = reader.word();
      if (word === undefined) break;
      words.push(word);
    }
  }
  reader.skipBlanks();
  if (reader.at(';') && !reader.at(';;')) reader.pos += 1;
  else if (!reader.at('\n') && reader.reserved() !== 'do') reader.fail('expected `;` or a newline in `for`');
}

/** `case word in [(]pattern[|pattern]…) list ;;|;&|;;& … esac`. */
function readCase(reader: ShellReader, lists: ShellList[], words: ShellWord[]): void {
  reader.skipBlanks();
  const subject = reader.word();
  if (subject === undefined) reader.fail('`case` needs a word');
  words.push(subject);
  reader.expect('in');
  for (;;) {
    reader.skipBlankLines();
    if (reader.reserved() === 'esac') {
      reader.pos += 4;
      return;
    }
    if (reader.at('(')) reader.pos += 1;
    for (;;) {
      reader.skipBlanks();
      const pattern = reader.word();
      if (pattern === undefined) reader.fail('expected a case pattern');
      words.push(pattern);
      reader.skipBlanks();
      if (reader.at(')')) break;
      if (!reader.at('|')) reader.fail('expected `|` or `)` in a case pattern');
      reader.pos += 1;
    }
    reader.pos += 1;
    lists.push(reader.listUntil({ caseItem: true, stops: ESAC }));
    for (const end of [';;&', ';;', ';&']) {
      if (reader.at(end)) {
        reader.pos += end.length;
        break;
      }
    }
  }
}

/** `function name [()] body`. */
function readFunction(reader: ShellReader): ShellCommand {
  reader.skipBlanks();
  if (reader.word() === undefined) reader.fail('`function` needs a name');
  reader.skipBlanks();
  if (/^\(\s*\)/.test(reader.src.slice(reader.pos))) reader.pos = reader.src.indexOf(')', reader.pos) + 1;
  reader.skipBlankLines();
  const body = reader.command();
  if (body.command.kind !== 'compound') reader.fail('a function body must be a compound command');
  const list: ShellList = { source: reader.src, start: body.start, end: reader.pos, stmts: [body] };
  return { kind: 'compound', keyword: 'function', lists: [list], words: [] };
}

/** `[[ … ]]`: operators are skipped; every word is kept for the substitutions it may hold. */
function readTest(reader: ShellReader, words: ShellWord[]): void {
  for (;;) {
    reader.skipBlankLines();
    if (reader.pos >= reader.src.length) reader.fail('`[[` is not closed');
    if (reader.reserved() === ']]') {
      reader.pos += 2;
      return;
    }
    const operator = ['&&', '||', '(', ')', '!', '<', '>', '|'].find((op) => reader.at(op));
    if (operator !== undefined && !((operator === '<' || operator === '>') && reader.src[reader.pos + 1] === '(')) {
      reader.pos += operator.length;
      continue;
    }
    const word = reader.word();
    if (word === undefined) reader.fail(`unexpected \`${reader.src[reader.pos]}\` in \`[[\``);
    words.push(word);
  }
}
