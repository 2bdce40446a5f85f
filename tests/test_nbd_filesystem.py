"""A real file system on the simulated drive, made the way a user without `/dev/nbd` can:
nbdfuse (with its default connections) exposes the export as a file, mkfs.ext4 formats it
(discarding it first), fuse2fs mounts it; files written, unmounted, mounted again and read back
with the same checksums, the file system checked clean, and mkfs's discards seen by the FTL."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from nbd_server import SMALL_DRIVE, Server, need

TOOLS = ("nbdfuse", "fusermount3", "fuse2fs", "mkfs.ext4", "e2fsck")


def run(*command: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (command, result.stdout, result.stderr)
    return result


def wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process.poll() is None, f"{process.args} exited with {process.returncode}"
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.02)


def unmount(mountpoint: Path, process: subprocess.Popen[bytes]) -> None:
    """Unmounts a FUSE mount and waits for its daemon to finish (fuse2fs writes its last
    metadata as it exits)."""
    run("fusermount3", "-u", str(mountpoint))
    assert process.wait(timeout=60) == 0, process.args


def mount_ext4(image: Path, mountpoint: Path) -> subprocess.Popen[bytes]:
    """fuse2fs in the foreground (so its exit can be waited for), as root without checks."""
    process = subprocess.Popen(["fuse2fs", "-f", str(image), str(mountpoint), "-o", "fakeroot"])
    deadline = time.monotonic() + 60
    while not os.path.ismount(mountpoint):
        assert process.poll() is None, f"fuse2fs exited with {process.returncode}"
        assert time.monotonic() < deadline, "fuse2fs did not mount"
        time.sleep(0.02)
    return process


def test_ext4_through_nbdfuse_and_fuse2fs_keeps_its_files_across_a_remount(tmp_path):
    need(*TOOLS)
    if not Path("/dev/fuse").exists():
        pytest.fail("/dev/fuse is missing: FUSE mounts (nbdfuse, fuse2fs) cannot work here")
    exposed, mounted = tmp_path / "nbd", tmp_path / "fs"
    exposed.mkdir()
    mounted.mkdir()
    image = exposed / "disk"
    # Six files of sizes not all multiples of a block, and a small text file: 24 MiB in all.
    files = {f"file{index}.bin": os.urandom((4 << 20) - index * 10_000) for index in range(6)}
    files["small.txt"] = b"s" * ((24 << 20) - sum(map(len, files.values())))
    assert sum(map(len, files.values())) == 24 << 20
    with Server(tmp_path, *SMALL_DRIVE) as server:
        nbdfuse = subprocess.Popen(["nbdfuse", str(image), server.uri])
        try:
            wait_for(image, nbdfuse)
            run("mkfs.ext4", "-q", "-F", str(image))
            fs = mount_ext4(image, mounted)
            try:
                for name, data in files.items():
                    (mounted / name).write_bytes(data)
            finally:
                unmount(mounted, fs)
            fs = mount_ext4(image, mounted)
            try:
                read_back = {path.name: path.read_bytes() for path in mounted.iterdir() if path.is_file()}
            finally:
                unmount(mounted, fs)
            run("e2fsck", "-fn", str(image))
        finally:
            subprocess.run(["fusermount3", "-u", str(exposed)], capture_output=True)
            try:
                nbdfuse.wait(timeout=60)
            finally:
                if nbdfuse.poll() is None:
                    nbdfuse.kill()
        report = server.stop()
        log = server.log_text()
    digest = lambda data: hashlib.sha256(data).hexdigest()  # noqa: E731
    assert {name: digest(data) for name, data in read_back.items()} == {
        name: digest(data) for name, data in files.items()
    }
    # mkfs.ext4 discarded the export first: the FTL unmapped its units.
    assert report["ftl"]["trimmed_units"] > 0
    # The virtual pace did not wait on nbdfuse's connections in turn (before, each of the some
    # 7,400 requests waited 20 ms for the connection answered before it): a few waits run out of
    # time, about one per connection on a quiet machine and a few more when the machine is
    # loaded (5 with another build beside the test on 2 cores), against thousands before.
    timed_out = int(re.search(r"(\d+) ran out of time", log).group(1))
    assert timed_out <= 16, log
    # fuse2fs wrote parts of mapping units (under 512 B, too): served as read-modify-writes.
    assert int(re.search(r"(\d+) partial-unit writes", log).group(1)) > 0, log
    assert report["ftl"]["read_modify_writes"]["partial_units"] > 0
    # nbdfuse's four connections each carried requests.
    counts = [int(writes) for writes in re.findall(r"client \d+: \d+ reads, (\d+) writes", log)]
    assert len(counts) >= 4, log
    assert sum(count > 0 for count in counts) >= 2, log
