#!/usr/bin/env bash
# Installs the NBD clients the `ssdtwin serve --nbd` tests drive (tests/test_nbd*.py): Debian's
# `fio` (its `nbd` engine), `libnbd-bin` (`nbdinfo`, `nbdcopy`) and `qemu-utils` (`qemu-img`,
# `qemu-io`). Installs only the packages whose programs are missing, so a second run does nothing.
# Needs root (CI runs as root) or sudo, and Debian's package archive.
set -euo pipefail

missing=()
command -v fio >/dev/null 2>&1 || missing+=(fio)
command -v nbdinfo >/dev/null 2>&1 || missing+=(libnbd-bin)
{ command -v qemu-img && command -v qemu-io; } >/dev/null 2>&1 || missing+=(qemu-utils)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

bash "$(dirname "$0")/apt-install.sh" --no-recommends "${missing[@]}"
command -v fio nbdinfo qemu-img qemu-io >/dev/null
fio --version
