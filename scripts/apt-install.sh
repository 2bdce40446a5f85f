#!/usr/bin/env bash
# Installs Debian packages for the test suite: `bash scripts/apt-install.sh [--no-recommends]
# PACKAGE...`. Runs
# apt-get as root (CI runs as root) or through sudo; refreshes the package lists first, since they
# may be missing or stale on a fresh machine. The callers (install-chromium.sh,
# install-nbd-clients.sh) decide what is missing, so a second run installs nothing.
set -euo pipefail

options=()
if [ "${1:-}" = --no-recommends ]; then
    options+=(--no-install-recommends)
    shift
fi
[ $# -gt 0 ] || { echo "usage: apt-install.sh [--no-recommends] PACKAGE..." >&2; exit 2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "apt-install.sh: need root or sudo to run: $*" >&2
        return 1
    fi
}

export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -qq
as_root apt-get install -y -qq "${options[@]}" "$@" >/dev/null
