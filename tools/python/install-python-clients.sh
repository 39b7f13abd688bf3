#!/usr/bin/env bash
# Installs the broker client libraries that the interop tests' Python clients use (pika for
# AMQP, paho-mqtt for MQTT, boto3 for SQS), from Debian's packages for Debian's own
# /usr/bin/python3. Safe to run again: does nothing when all three import.
set -euo pipefail
python=/usr/bin/python3

if "$python" -c 'import pika, paho.mqtt.client, boto3' >/dev/null 2>&1; then
  echo "python clients already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends python3-pika python3-paho-mqtt python3-boto3
"$python" -c 'import pika, paho.mqtt.client, boto3'
echo "installed: python3-pika python3-paho-mqtt python3-boto3"
