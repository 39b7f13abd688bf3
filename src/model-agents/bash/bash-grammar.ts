import { createRequire } from 'node:module';
import type { Parser } from 'web-tree-sitter';
import { RpcError } from '../../errors.js';

const MISSING = 'the bash tool needs web-tree-sitter and tree-sitter-bash: run `npm install web-tree-sitter tree-sitter-bash`';

let loading: Promise<Parser> | undefined;

/**
 * A parser for bash: web-tree-sitter running tree-sitter-bash's grammar, both WebAssembly
 * and both optional peers, loaded when a command line is first read and then kept for the
 * life of the process. Parsing is synchronous, so callers may share the one parser.
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= load().catch((error: unknown) => {
    // A later call may find the packages installed by then.
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<Parser> {
  let treeSitter: typeof import('web-tree-sitter');
  let grammar: string;
  try {
    treeSitter = await import('web-tree-sitter');
    grammar = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  } catch (cause) {
    throw new RpcError('EAGENTRPC_MISSING_PACKAGE', MISSING, { cause });
  }
  try {
    await treeSitter.Parser.init();
    const language = await treeSitter.Language.load(grammar);
    return new treeSitter.Parser().setLanguage(language);
  } catch (cause) {
    // Both are installed, but this web-tree-sitter cannot load this grammar (its ABI or wasm format).
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new RpcError('EAGENTRPC_MISSING_PACKAGE', `tree-sitter-bash does not load into this web-tree-sitter (${reason}): install versions that work together`, { cause });
  }
}
