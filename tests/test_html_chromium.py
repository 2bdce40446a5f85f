"""Headless Chromium for the HTML-report tests, driven over the Chrome DevTools Protocol on a pipe
(`--remote-debugging-pipe`: JSON messages separated by NUL bytes, the browser reading fd 3 and
writing fd 4). Only the standard library: no websocket client, no browser-automation package.

    with Chromium.start(tmp_path) as browser:
        tab = browser.open(path.as_uri())
        tab.evaluate("document.title"); tab.screenshot(); tab.errors
"""

from __future__ import annotations

import base64
import fcntl
import itertools
import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

WIDTH, HEIGHT = 1280, 900


def executable() -> str | None:
    """The Chromium to use: `$SSDTWIN_CHROMIUM`, else `chromium` (Debian's package) or
    `chromium-browser` on the PATH."""
    chosen = os.environ.get("SSDTWIN_CHROMIUM")
    if chosen:
        return chosen
    return shutil.which("chromium") or shutil.which("chromium-browser")


class ProtocolError(RuntimeError):
    pass


class Chromium:
    """One headless browser process; `open` gives a tab per page."""

    def __init__(self, binary: str, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / "chromium.log"
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()
        # The browser's ends are moved above fd 9 so that putting them on 3 and 4 never collides.
        child_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD_CLOEXEC, 10)
        child_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_read)
        os.close(from_browser_write)

        arguments = [
            binary,
            "--headless=new",
            "--remote-debugging-pipe",
            "--no-sandbox",  # CI runs as root
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--mute-audio",
            f"--user-data-dir={folder / 'profile'}",
            f"--window-size={WIDTH},{HEIGHT}",
            "about:blank",
        ]
        # posix_spawn, not fork and exec: no Python code runs in the child, which is safe even when
        # the test process has threads (the pipes land on fds 3 and 4, output goes to the log).
        self.pid = os.posix_spawnp(
            binary,
            arguments,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, str(self.log_path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2),
                (os.POSIX_SPAWN_DUP2, child_read, 3),  # dup2 clears close-on-exec
                (os.POSIX_SPAWN_DUP2, child_write, 4),
            ],
        )
        os.close(child_read)
        os.close(child_write)
        self._ids = itertools.count(1)
        self._condition = threading.Condition()
        self._responses: dict[int, dict[str, Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read_messages, daemon=True)
        self._reader.start()
        self.version = self.send("Browser.getVersion")["product"]

    @classmethod
    @contextmanager
    def start(cls, folder: Path) -> Iterator[Chromium]:
        binary = executable()
        if binary is None:
            raise FileNotFoundError("no chromium on the PATH (scripts/install-chromium.sh installs it)")
        browser = cls(binary, folder)
        try:
            yield browser
        finally:
            browser.close()

    def _read_messages(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._read, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._condition:
                    self._closed = True
                    self._condition.notify_all()
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            with self._condition:
                for raw in messages:
                    message = json.loads(raw)
                    if "id" in message:
                        self._responses[message["id"]] = message
                    else:
                        self._events.append(message)
                self._condition.notify_all()

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        """Sends a command and waits for its result."""
        number = next(self._ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._condition:
            while number not in self._responses:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    raise ProtocolError(f"no answer to {method} ({'closed' if self._closed else 'timeout'})")
                self._condition.wait(remaining)
            response = self._responses.pop(number)
        if "error" in response:
            raise ProtocolError(f"{method}: {response['error']}")
        return response.get("result", {})

    def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30, start: int = 0
    ) -> dict[str, Any]:
        """The first event (from index `start` on) for which `predicate` holds."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                for event in self._events[start:]:
                    if predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    raise ProtocolError("the awaited event did not come")
                self._condition.wait(remaining)

    def events(self, session: str) -> list[dict[str, Any]]:
        with self._condition:
            return [event for event in self._events if event.get("sessionId") == session]

    def open(
        self,
        url: str,
        *,
        scripts: bool = True,
        timeout: float = 60,
        fresh: bool = False,
        height: int = HEIGHT,
    ) -> Tab:
        """A new tab with `url` loaded (its load event fired), in a window `height` pixels tall.
        `fresh`: in a browser context of its own (like a new incognito window), so the tab shares
        no renderer process, and so no compiled script, with any earlier tab: a cold load, as
        when the page is first opened."""
        params: dict[str, Any] = {"url": "about:blank"}
        context = None
        if fresh:
            context = self.send("Target.createBrowserContext")["browserContextId"]
            params["browserContextId"] = context
        target = self.send("Target.createTarget", params)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, target, session)
        tab.context = context
        for domain in ("Page", "Runtime", "Log", "Network", "Performance"):
            self.send(f"{domain}.enable", session=session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        if not scripts:
            self.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=session)
        with self._condition:
            start = len(self._events)
        tab.started = time.monotonic()
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_event(
            lambda event: event.get("sessionId") == session and event.get("method") == "Page.loadEventFired",
            timeout=timeout,
            start=start,
        )
        tab.loaded = time.monotonic()
        return tab

    def close(self) -> None:
        with suppress(ProtocolError):
            self.send("Browser.close", timeout=5)
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)  # the browser this driver started, by its id
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        for fd in (self._write, self._read):
            with suppress(OSError):
                os.close(fd)


class Tab:
    """One page in the browser."""

    def __init__(self, browser: Chromium, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.started = 0.0
        self.loaded = 0.0
        self.context: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression: str, timeout: float = 30) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in result:
            raise ProtocolError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30, interval: float = 0.01) -> Any:
        """Polls `expression` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise ProtocolError(f"{expression!r} stayed false for {timeout} s")
            time.sleep(interval)

    @property
    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries (failed loads, CSP
        violations) so far."""
        found = []
        for event in self.browser.events(self.session):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(f"uncaught: {details.get('exception', {}).get('description') or details}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    @property
    def requests(self) -> list[str]:
        """URLs of every request the page made (the page itself included)."""
        return [
            event["params"]["request"]["url"]
            for event in self.browser.events(self.session)
            if event.get("method") == "Network.requestWillBeSent"
        ]

    def metrics(self) -> dict[str, float]:
        """The renderer's counters (`Performance.getMetrics`, enabled before the navigation):
        `ScriptDuration`, `V8CompileDuration`, `LayoutDuration`, `TaskDuration` (main-thread
        busy time) in seconds, and others."""
        return {item["name"]: item["value"] for item in self.send("Performance.getMetrics")["metrics"]}

    def screenshot(self, full_page: bool = False) -> bytes:
        """A PNG of the viewport (or of the whole page)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot", params, timeout=60)["data"])

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
        if self.context is not None:
            self.browser.send("Target.disposeBrowserContext", {"browserContextId": self.context})


# --------------------------------------------------------------------------------- the driver's own tests


def start_browser(folder: Path) -> Any:
    """`Chromium.start(folder)`; a missing Chromium fails the test (scripts/test.sh installs it
    through scripts/install-chromium.sh), never a skip."""
    import pytest

    if executable() is None:
        pytest.fail("no chromium on the PATH: run bash scripts/install-chromium.sh")
    return Chromium.start(folder)


def test_the_driver_sees_errors_and_requests(tmp_path):
    """A page with an uncaught exception, a console.error and a blocked network load: the driver
    reports all three (so a clean page in the other tests means a clean page)."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body><p>broken</p>"
        "<img src='https://example.invalid/x.png'>"
        "<script>console.error('on purpose'); undefinedFunction();</script></body></html>",
        encoding="utf-8",
    )
    with start_browser(tmp_path / "chromium") as browser:
        tab = browser.open(page.as_uri())
        errors = tab.errors
        assert any("undefinedFunction" in error for error in errors), errors
        assert any("on purpose" in error for error in errors), errors
        assert any("example.invalid" in error or "Content Security Policy" in error for error in errors), (
            errors
        )
        assert tab.evaluate("document.querySelector('p').textContent") == "broken"
        assert tab.screenshot()[:8] == b"\x89PNG\r\n\x1a\n"
