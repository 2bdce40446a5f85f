#!/usr/bin/env bash
# Installs the NBD clients the `ssdtwin serve --nbd` tests drive (tests/test_nbd*.py): Debian's
# `fio` (its `nbd` engine), `libnbd-bin` (`nbdinfo`, `nbdcopy`, `nbdfuse`) and `qemu-utils`
# (`qemu-img`, `qemu-io`), and for the file-system test (tests/test_nbd_filesystem.py) `fuse3`
# (`fusermount3`, which unmounts nbdfuse), `fuse2fs` (ext4 mounted in user space) and `e2fsprogs`
# (`mkfs.ext4`). Installs only the packages whose programs are missing, so a second run does
# nothing. Needs root (CI runs as root) or sudo, and Debian's package archive.
set -euo pipefail

missing=()
command -v fio >/dev/null 2>&1 || missing+=(fio)
{ command -v nbdinfo && command -v nbdfuse; } >/dev/null 2>&1 || missing+=(libnbd-bin)
{ command -v qemu-img && command -v qemu-io; } >/dev/null 2>&1 || missing+=(qemu-utils)
command -v fusermount3 >/dev/null 2>&1 || missing+=(fuse3)
command -v fuse2fs >/dev/null 2>&1 || missing+=(fuse2fs)
command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

bash "$(dirname "$0")/apt-install.sh" --no-recommends "${missing[@]}"
# Fails if any is still missing (`command -v` with several names succeeds if one is found).
for program in fio nbdinfo nbdfuse qemu-img qemu-io fusermount3 fuse2fs mkfs.ext4; do
    command -v "$program" >/dev/null || { echo "install-nbd-clients.sh: $program still missing" >&2; exit 1; }
done
fio --version
