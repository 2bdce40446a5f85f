#!/usr/bin/env bash
# Installs headless Chromium (Debian's `chromium` package) for the HTML-report browser tests
# (tests/test_html_browser.py), unless a `chromium` is already on the PATH. Idempotent; needs root
# (CI runs as root) or sudo, and Debian's package archive.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi

bash "$(dirname "$0")/apt-install.sh" chromium
command -v chromium >/dev/null
chromium --version 2>/dev/null | head -1
