#!/usr/bin/env bash
# Installs a Debian package that provides a server binary the tests spawn on free ports.
# Usage: install-debian-package.sh <binary> <package> [<path to look in>]
# Safe to run again: does nothing when the binary is already there.
set -euo pipefail
binary="$1"
package="$2"
fallback="${3:-/usr/sbin/$binary}"

if command -v "$binary" >/dev/null 2>&1 || [ -x "$fallback" ]; then
  echo "$binary already installed: $(command -v "$binary" || echo "$fallback")"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "$package"

# Packages may enable a system service on the default port; the tests never use it, and
# stopping it is left to the machine's owner.
echo "installed: $(command -v "$binary" || echo "$fallback")"
