#!/usr/bin/env bash
# Installs Debian's redis-server, which the guard tests spawn on free ports.
# Safe to run again: does nothing when the binary is already there.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]; then
  echo "redis-server already installed: $(command -v redis-server || echo /usr/bin/redis-server)"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends redis-server

# The package enables a system service on port 6379; the tests never use it, and
# stopping it is left to the machine's owner.
echo "installed: $(command -v redis-server || echo /usr/bin/redis-server)"
