#!/usr/bin/env bash
# Installs headless Chromium (Debian's `chromium` package) for the HTML-report browser tests
# (tests/test_html_browser.py), unless a `chromium` is already on the PATH. Idempotent; needs root
# (CI runs as root) or sudo, and Debian's package archive.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "install-chromium.sh: need root or sudo to run: $*" >&2
        return 1
    fi
}

export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: update them once, then install.
as_root apt-get update -qq
as_root apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
chromium --version 2>/dev/null | head -1
