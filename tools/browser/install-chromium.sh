#!/usr/bin/env bash
# Installs Debian's chromium, which the browser tests drive headless with playwright-core.
# Safe to run again: does nothing when the binary is already there.
exec "$(dirname "$0")/../brokers/install-debian-package.sh" chromium chromium /usr/bin/chromium
