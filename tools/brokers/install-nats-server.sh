#!/usr/bin/env bash
# Installs Debian's nats-server, which the integration tests spawn on free ports.
# Safe to run again: does nothing when the binary is already there.
set -euo pipefail

if command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ]; then
  echo "nats-server already installed: $(command -v nats-server || echo /usr/sbin/nats-server)"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends nats-server

# The package enables a system service on port 4222; the tests never use it, and
# stopping it is left to the machine's owner.
echo "installed: $(command -v nats-server || echo /usr/sbin/nats-server)"
