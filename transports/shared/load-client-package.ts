import { importOptional } from '../../src/optional-package.js';

/**
 * Imports a transport's client library, an optional dependency: a missing one is
 * EAGENTRPC_MISSING_PACKAGE naming what to install. A CommonJS package imported from ESM
 * may hold its exports on `default`; `hasExports` tells whether the module itself has them.
 */
export async function loadClientPackage<M>(
  load: () => Promise<unknown>,
  transport: string,
  packageName: string,
  hasExports: (module: M) => boolean = () => true,
): Promise<M> {
  const module = (await importOptional(load, `the ${transport} transport`, packageName)) as M & { default?: M };
  return hasExports(module) ? module : (module.default as M);
}
