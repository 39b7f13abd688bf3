#!/usr/bin/env bash
# Installs Debian's mosquitto (MQTT 5 broker), which the MQTT transport's tests spawn on free ports.
exec "$(dirname "$0")/install-debian-package.sh" mosquitto mosquitto /usr/sbin/mosquitto
