"""A `ssdtwin serve --nbd` process for the NBD tests: started on a Unix socket, stopped with
SIGINT, its report and log read back."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

SMALL_DRIVE = ["--set", "flash.blocks_per_plane=16", "--set", "workload.precondition=none"]
"""A 12 GB export that is ready in a fraction of a second."""


def need(*programs: str) -> None:
    """Fails the test when an NBD client is missing: scripts/test.sh installs them (through
    scripts/install-nbd-clients.sh), so a missing one is a broken machine, never a skip."""
    missing = [program for program in programs if shutil.which(program) is None]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: run bash scripts/install-nbd-clients.sh")


class Server:
    """`ssdtwin serve --nbd` on `directory/nbd.sock`; use as a context manager."""

    def __init__(self, directory: Path, *args: str) -> None:
        self.socket = directory / "nbd.sock"
        self.report_path = directory / "report.json"
        self.log_path = directory / "serve.log"
        self.args = list(args)
        self.process: subprocess.Popen[bytes] | None = None
        self.report: dict[str, Any] | None = None

    @property
    def uri(self) -> str:
        return f"nbd+unix:///?socket={self.socket}"

    def __enter__(self) -> Server:
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ssdtwin",
                "serve",
                "--nbd",
                "--socket",
                str(self.socket),
                "--json",
                str(self.report_path),
                "--quiet",
                *self.args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        deadline = time.monotonic() + 120
        # The socket file appears at bind(), a moment before listen(): wait for the server's
        # "serving ..." line, logged once it listens, or a connect may be refused.
        while "serving " not in self.log_text():
            if self.process.poll() is not None:
                raise AssertionError(f"server exited: {self.log_text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {self.log_text()}")
            time.sleep(0.05)
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> dict[str, Any]:
        """SIGINT, then the report it wrote."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        self.log.close()
        assert code == 0, self.log_text()
        self.report = json.loads(self.report_path.read_text())
        return self.report

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if not self.log.closed:
            self.log.close()

    def log_text(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def rss_kib(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")
