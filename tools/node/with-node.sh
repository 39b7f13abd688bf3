#!/usr/bin/env bash
# Runs a command on another Node release, installed (once) by tools/node/install-node.sh.
# Usage: with-node.sh <major or exact version> <command> [args...]
#   e.g. tools/node/with-node.sh 24 npm test
# That Node comes first on PATH, so `node`, `npm` (npm's script runs `#!/usr/bin/env node`)
# and every child process a test starts, whether by `node` on PATH or process.execPath,
# run on it. NODE_OPTIONS preloads tools/node/native-addons.cjs in each of those processes
# and their worker threads
# so that they load native addons (better-sqlite3) built for that Node, not node_modules' own.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: with-node.sh <major or exact version> <command> [args...]" >&2
  exit 2
fi
spec="$1"
shift

here="$(cd "$(dirname "$0")" && pwd)"
node="$("$here/install-node.sh" "$spec")"
bin="$(dirname "$node")"

export PATH="$bin:$PATH"
export AGENT_RPC_NATIVE_ADDONS_DIR="$(dirname "$(dirname "$bin")")/addons"
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require=\"$here/native-addons.cjs\""
exec "$@"
