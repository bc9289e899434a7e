"""End-to-end harness: a private Xvfb with trayer, and the real tray app as a subprocess with JSON logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.tools import require

TOOLS = ("Xvfb", "xdotool", "trayer", "import")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"


def require_tools() -> None:
    """Skip without the X tools, except on Linux CI where their absence is a failure."""
    require(*TOOLS)


def wait_until(check: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    """Poll `check` until it returns something truthy (subprocess state has no signal to wait on)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(step)


def stop(proc: subprocess.Popen[Any] | None, grace: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class Desktop:
    """Xvfb on a free display number (chosen by Xvfb itself) plus trayer as the tray host.

    With `window_manager` (e.g. "openbox") that window manager runs too, started before the
    tray host: windows then get focus and `_NET_ACTIVE_WINDOW` as on a person's desktop.
    """

    def __init__(self, window_manager: str | None = None) -> None:
        self.xvfb: subprocess.Popen[bytes] | None = None
        self.trayer: subprocess.Popen[bytes] | None = None
        self.wm: subprocess.Popen[bytes] | None = None
        self.wm_output = tempfile.TemporaryFile()  # its complaints, for the failure message
        self.window_manager = window_manager
        self.display = ""

    def start(self) -> Desktop:
        read_fd, write_fd = os.pipe()
        self.xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
                # Without it Xvfb resets whenever its last client leaves: a client that
                # connects just then (a window manager at start) is refused.
                "-noreset",
            ],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            number = pipe.readline().strip().decode()  # Xvfb writes it once it accepts clients
        if not number:
            raise AssertionError("Xvfb did not start")
        self.display = f":{number}"
        if self.window_manager:
            self.wm = subprocess.Popen(
                [self.window_manager],
                env=self.env(),
                stdout=self.wm_output,
                stderr=subprocess.STDOUT,
            )
            wait_until(self._wm_ready, 30, f"{self.window_manager} to manage the screen")
        self.trayer = subprocess.Popen(
            [
                "trayer",
                "--edge",
                "bottom",
                "--align",
                "right",
                "--widthtype",
                "request",
                "--height",
                "32",
                "--SetDockType",
                "true",
            ],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: self.search("--class", "trayer"), 20, "trayer's window")
        return self

    def _wm_ready(self) -> bool:
        """An EWMH window manager announces itself on the root window."""
        if self.wm is not None and self.wm.poll() is not None:
            self.wm_output.seek(0)
            said = self.wm_output.read().decode(errors="replace")[-2000:]
            raise AssertionError(f"{self.window_manager} exited ({self.wm.returncode}): {said}")
        from Xlib import X, display  # python-xlib: a dependency on Linux

        screen = display.Display(self.display)
        try:
            atom = screen.intern_atom("_NET_SUPPORTING_WM_CHECK")
            return screen.screen().root.get_full_property(atom, X.AnyPropertyType) is not None
        finally:
            screen.close()

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env["DISPLAY"] = self.display
        env.update(extra)
        return env

    def xdotool(self, *args: str) -> str:
        done = subprocess.run(
            ["xdotool", *args], env=self.env(), capture_output=True, text=True, timeout=20
        )
        return done.stdout.strip()

    def search(self, *args: str) -> list[str]:
        return self.xdotool("search", *args).split()

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        subprocess.run(
            ["import", "-window", "root", str(path)], env=self.env(), check=True, timeout=30
        )
        return path

    def close(self) -> None:
        stop(self.trayer)
        stop(self.wm)
        self.wm_output.close()
        stop(self.xvfb)


class TrayProcess:
    """`python -m termwise.tray.commands.cli --json-logging`, its stderr collected as parsed JSON lines."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.lines: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._lock = threading.Lock()
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> TrayProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "termwise.tray.commands.cli", "--json-logging"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._lock:
                self.raw.append(line)
                try:
                    self.lines.append(json.loads(line))
                except ValueError:
                    pass

    def messages(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.lines)

    def wait_log(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, what: str, after: int = 0
    ) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for line in self.messages()[after:]:
                if predicate(line):
                    return line
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the tray exited ({self.proc.returncode}):\n{self.tail()}")
            return None

        try:
            return wait_until(found, timeout, what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nlog tail:\n{self.tail()}") from None

    def mark(self) -> int:
        return len(self.messages())

    def tail(self, n: int = 40) -> str:
        with self._lock:
            return "".join(self.raw[-n:])

    def close(self) -> int | None:
        stop(self.proc, grace=20)
        return None if self.proc is None else self.proc.returncode
