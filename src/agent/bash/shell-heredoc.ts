import type { ShellList } from './shell-ast.js';

/** A here-document whose body starts after the current line. */
export interface PendingHeredoc {
  readonly delimiter: string;
  /** `<<-`: leading tabs are stripped, so the delimiter line may be indented with tabs. */
  readonly stripTabs: boolean;
  /** An unquoted delimiter: the body is expanded, so its substitutions run. */
  readonly expands: boolean;
  /** Filled with the body's substitutions once it is read. */
  readonly programs: ShellList[];
}

/**
 * Reads the bodies of `pending` here-documents, in order, from `pos` (the start of the line
 * after the one that opened them); a missing delimiter ends the body at the end of the text,
 * as bash does. Returns the position after the last body.
 */
export function readHeredocBodies(src: string, pos: number, pending: readonly PendingHeredoc[], substitutions: (body: string) => ShellList[]): number {
  for (const doc of pending) {
    let body = '';
    while (pos < src.length) {
      const eol = src.indexOf('\n', pos);
      const line = src.slice(pos, eol < 0 ? src.length : eol);
      pos = eol < 0 ? src.length : eol + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break;
      body += `${line}\n`;
    }
    if (doc.expands) doc.programs.push(...substitutions(body));
  }
  return pos;
}
