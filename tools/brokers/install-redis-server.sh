#!/usr/bin/env bash
# Installs Debian's redis-server, which the guard's flow-store tests spawn on free ports.
exec "$(dirname "$0")/install-debian-package.sh" redis-server redis-server /usr/bin/redis-server
