#!/usr/bin/env bash
# Installs Debian's rabbitmq-server (and Erlang), which the tests spawn as a node of their own on free ports.
exec "$(dirname "$0")/install-debian-package.sh" /usr/lib/rabbitmq/bin/rabbitmq-server rabbitmq-server /usr/lib/rabbitmq/bin/rabbitmq-server
