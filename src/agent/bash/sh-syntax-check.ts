import { RpcError } from '../../errors.js';
import { excerpt, type ShellList, type ShellStmt } from './shell-ast.js';

/** The part of sh-syntax's answer this check reads (its tree keeps only top-level statements). */
interface ShFile {
  readonly Stmts: ReadonlyArray<{ readonly Position: { readonly Offset: number }; readonly Redirs: ReadonlyArray<{ readonly Op: string; readonly N: { readonly Value: string } | null }> }>;
}
type Parse = (text: string, options?: { keepComments?: boolean }) => Promise<ShFile>;

let loading: Promise<Parse> | undefined;

/** sh-syntax (mvdan/sh compiled to WebAssembly) is an optional peer, loaded when a bash line is first read. */
function loadParser(): Promise<Parse> {
  loading ??= import('sh-syntax').then(
    (module) => (module as unknown as { parse: Parse }).parse,
    (cause: unknown) => {
      loading = undefined;
      throw new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the bash tool needs sh-syntax: run `npm install sh-syntax`', { cause });
    },
  );
  return loading;
}

/**
 * Checks one list against mvdan/sh, the reference reader of the shell language: the text must
 * parse, into as many statements, starting where this reader's do, with the same redirections.
 * sh-syntax reports only a list's top-level statements (not node types or nested commands),
 * which is why the lists are read here and each is checked on its own.
 * Returns why they disagree, or undefined when they agree.
 */
export async function checkList(list: ShellList): Promise<string | undefined> {
  const text = list.source.slice(list.start, list.end);
  const file = await parseText(text);
  if (typeof file === 'string') return file;
  const mine = list.stmts;
  const agree =
    file.Stmts.length === mine.length &&
    file.Stmts.every((stmt, i) => stmt.Position.Offset === byteOffset(text, mine[i]!.start - list.start) && sameRedirects(stmt.Redirs, mine[i]!));
  return agree ? undefined : `\`${excerpt(text)}\` is read differently by the shell's own grammar`;
}

/** What mvdan/sh says is wrong with `text`, if anything. */
export async function syntaxError(text: string): Promise<string | undefined> {
  const file = await parseText(text);
  return typeof file === 'string' ? file : undefined;
}

async function parseText(text: string): Promise<ShFile | string> {
  const parse = await loadParser();
  try {
    return await parse(text, { keepComments: false });
  } catch (error) {
    return `\`${excerpt(text)}\`: ${error instanceof Error ? error.message : String(error)}`;
  }
}

const byteOffset = (text: string, index: number): number => Buffer.byteLength(text.slice(0, index));

function sameRedirects(theirs: ShFile['Stmts'][number]['Redirs'], stmt: ShellStmt): boolean {
  // mvdan/sh hangs a pipeline's or a binary command's redirections on the inner statements.
  const mine = stmt.command.kind === 'binary' ? [] : stmt.redirects;
  return theirs.length === mine.length && theirs.every((r, i) => r.Op === mine[i]!.op && (r.N?.Value ?? undefined) === mine[i]!.fd);
}
