#!/usr/bin/env bash
# Installs the NBD clients the `ssdtwin serve --nbd` tests drive (tests/test_nbd*.py): Debian's
# `fio` (its `nbd` engine), `libnbd-bin` (`nbdinfo`, `nbdcopy`) and `qemu-utils` (`qemu-img`,
# `qemu-io`). Installs only the packages whose programs are missing, so a second run does nothing.
# Needs root (CI runs as root) or sudo, and Debian's package archive.
set -euo pipefail

missing=()
command -v fio >/dev/null 2>&1 || missing+=(fio)
command -v nbdinfo >/dev/null 2>&1 || missing+=(libnbd-bin)
command -v qemu-img >/dev/null 2>&1 || missing+=(qemu-utils)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "install-nbd-clients.sh: need root or sudo to run: $*" >&2
        return 1
    fi
}

export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: update them once, then install.
as_root apt-get update -qq
as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
command -v fio nbdinfo qemu-img >/dev/null
fio --version
