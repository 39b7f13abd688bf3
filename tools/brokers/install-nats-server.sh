#!/usr/bin/env bash
# Installs Debian's nats-server, which the integration tests spawn on free ports.
exec "$(dirname "$0")/install-debian-package.sh" nats-server nats-server /usr/sbin/nats-server
