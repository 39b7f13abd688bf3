// Preloaded (node --require) by tools/node/with-node.sh: makes a Node other than the one
// node_modules was built for load native addons built for its own ABI by
// tools/node/install-node.sh, instead of the ones in node_modules, which it cannot load.
//
// Every native addon a CommonJS require loads goes through process.dlopen. A path
// `.../node_modules/<package>/<file>.node` is looked up as
// `$AGENT_RPC_NATIVE_ADDONS_DIR/node-v<abi>-<platform>-<arch>/<package>@<version>/<file>.node`
// (<version> read from the package's package.json, `/` in scoped names spelled `+`); when
// that file exists it is loaded instead, otherwise the original is. Without the variable, or
// without builds for the running ABI, nothing changes.
// CommonJS and --require, not --import: Node runs --require preloads in worker threads as
// well (the SQLite checkpointer loads better-sqlite3 in one), --import preloads only in the
// main thread.
const { existsSync, readFileSync } = require('node:fs');
const { join, sep } = require('node:path');

const root = process.env.AGENT_RPC_NATIVE_ADDONS_DIR;
const abiDir = root ? join(root, `node-v${process.versions.modules}-${process.platform}-${process.arch}`) : undefined;

if (abiDir !== undefined && existsSync(abiDir)) {
  const marker = `${sep}node_modules${sep}`;
  const versions = new Map();
  const packageVersion = (dir) => {
    if (!versions.has(dir)) {
      let version;
      try {
        version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
      } catch {
        version = undefined;
      }
      versions.set(dir, version);
    }
    return versions.get(dir);
  };

  /** The build for this ABI that stands in for `filename`, if there is one. */
  const replacement = (filename) => {
    const at = filename.lastIndexOf(marker);
    if (at < 0) return undefined;
    const parts = filename.slice(at + marker.length).split(sep);
    const nameLength = parts[0]?.startsWith('@') ? 2 : 1;
    if (parts.length <= nameLength) return undefined;
    const name = parts.slice(0, nameLength).join('/');
    const version = packageVersion(filename.slice(0, at + marker.length) + parts.slice(0, nameLength).join(sep));
    if (version === undefined) return undefined;
    const candidate = join(abiDir, `${name.replace('/', '+')}@${version}`, ...parts.slice(nameLength));
    return existsSync(candidate) ? candidate : undefined;
  };

  const dlopen = process.dlopen;
  process.dlopen = function (module, filename, ...rest) {
    return dlopen.call(this, module, (typeof filename === 'string' && replacement(filename)) || filename, ...rest);
  };
}
