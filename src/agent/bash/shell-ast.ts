/**
 * The small syntax tree the command-line reader builds: just what a policy needs to see
 * every command a line would run and every file it would write through a redirection.
 * Offsets are UTF-16 indexes into `source` of the enclosing list.
 */

/** One shell word: its source text, its value when that is fixed before the line runs, and the programs it runs. */
export interface ShellWord {
  readonly start: number;
  readonly end: number;
  /** The word as written. */
  readonly raw: string;
  /** The word after quote removal; undefined when it depends on expansion (`$x`, `$(…)`, globs, braces, `~`). */
  readonly value: string | undefined;
  /** Command and process substitutions inside the word, each a list of its own. */
  readonly programs: readonly ShellList[];
}

export const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>>', '>|', '>&', '<', '>'] as const;
export type RedirectOp = (typeof REDIRECT_OPS)[number];

export interface ShellRedirect {
  readonly op: RedirectOp;
  /** The file descriptor written before the operator (`2` in `2>`, `{fd}` in `{fd}>`). */
  readonly fd: string | undefined;
  /** The target word; for a here-document, its delimiter. */
  readonly target: ShellWord;
  /** A here-document's body runs the programs it substitutes when its delimiter is unquoted. */
  readonly heredocPrograms: readonly ShellList[];
}

export type ShellCommand =
  | { readonly kind: 'simple'; readonly assigns: readonly ShellWord[]; readonly words: readonly ShellWord[] }
  | { readonly kind: 'binary'; readonly op: string; readonly left: ShellStmt; readonly right: ShellStmt }
  /** Every compound form (subshell, block, if, while, for, case, function, `[[ ]]`, `(( ))`, time): its lists and its words. */
  | { readonly kind: 'compound'; readonly keyword: string; readonly lists: readonly ShellList[]; readonly words: readonly ShellWord[] };

export interface ShellStmt {
  readonly start: number;
  readonly command: ShellCommand;
  readonly redirects: readonly ShellRedirect[];
}

/** A list of statements that is a program on its own: the whole line, a body, a substitution. */
export interface ShellList {
  readonly source: string;
  readonly start: number;
  readonly end: number;
  readonly stmts: readonly ShellStmt[];
}

/** The line is not read the way the shell would read it: the policy refuses what it cannot see. */
export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** A piece of a line short enough to quote in a reason. */
export const excerpt = (text: string): string => {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length <= 80 ? flat : `${flat.slice(0, 77)}…`;
};
