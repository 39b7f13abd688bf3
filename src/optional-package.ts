import { RpcError } from './errors.js';

/**
 * Imports what a configured feature needs from an optional peer dependency: a failed import
 * is EAGENTRPC_MISSING_PACKAGE saying which feature needs which package and how to install
 * it, so a process that never uses the feature never loads (nor needs) the package.
 */
export async function importOptional<M>(load: () => Promise<M>, feature: string, packageName: string): Promise<M> {
  try {
    return await load();
  } catch (cause) {
    throw missingPackage(feature, packageName, cause);
  }
}

export function missingPackage(feature: string, packageName: string, cause?: unknown): RpcError {
  return new RpcError('EAGENTRPC_MISSING_PACKAGE', `${feature} needs the ${packageName} package: run \`npm install ${packageName}\``, { cause });
}
