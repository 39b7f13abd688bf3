import { RpcError } from './errors.js';

/** Node's codes for a specifier that resolves to nothing (ESM and CommonJS). */
const NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * Imports what a configured feature needs from an optional peer dependency: a package that
 * is not installed is EAGENTRPC_MISSING_PACKAGE saying which feature needs which package and
 * how to install it, so a process that never uses the feature never loads (nor needs) the
 * package. Any other failure (the package found but throwing as it loads) is rethrown as it
 * is: telling someone to install what they have would send them the wrong way.
 */
export async function importOptional<M>(load: () => Promise<M>, feature: string, packageName: string): Promise<M> {
  try {
    return await load();
  } catch (cause) {
    if (!isNotFound(cause)) throw cause;
    throw missingPackage(feature, packageName, cause);
  }
}

export function missingPackage(feature: string, packageName: string, cause?: unknown): RpcError {
  return new RpcError('EAGENTRPC_MISSING_PACKAGE', `${feature} needs the ${packageName} package: run \`npm install ${packageName}\``, { cause });
}

/** Not found, also when a loader in between (a test runner's, a bundler's) wrapped Node's error as its cause. */
function isNotFound(error: unknown): boolean {
  for (let depth = 0; depth < 3 && typeof error === 'object' && error !== null; depth++) {
    if (NOT_FOUND.has(String((error as { code?: unknown }).code))) return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}
