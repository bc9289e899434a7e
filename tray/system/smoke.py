"""`termwise --smoke-test`: prove a (frozen) install works end to end, then exit.

Checks the parts a broken freeze loses first (package metadata, bundled resources,
the Qt platform plugin), then starts a session host with a throwaway home, opens a
session with the default shell (or `TERMWISE_SMOKE_SHELL`), runs one command and
reads its block back through the stream parser and over the IPC channel other
processes use. Prints each step; exit 0 only when every step passed.

A console that shows the shell's prompt marks as text (their ESC lost, as Wine's does)
delivers no marks, yet the integration did load: then the command's output is read from
the session's last screen, as `termwise context` does, and the result says so. A shell
that shows no marks at all still fails (its integration did not load).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.tray.host import Session, SessionHost

SMOKE_COMMAND = "echo termwise-smoke"
SMOKE_OUTPUT = "termwise-smoke"
SHELL_ENV = "TERMWISE_SMOKE_SHELL"
PROMPT_TIMEOUT = 30.0  # a cold PowerShell on a CI runner can take this long
BLOCK_TIMEOUT = 30.0
POLL = 0.05
CLEANUP_TIMEOUT = 10.0
SHELLS_WITHOUT_EXIT_CODES = ("cmd",)
# A prompt mark (OSC 133 A-D) that reached the screen as text: the console dropped its ESC.
MARK_AS_TEXT = re.compile(r"\]133;[ABCD]")
FALLBACK = "last-screen fallback"


class SmokeFailure(Exception):
    """A step failed; the message says what was expected and what happened."""


def _say(text: str) -> None:
    print(text, flush=True)


def check_metadata() -> str:
    from importlib import metadata

    try:
        found = metadata.version("termwise")
    except metadata.PackageNotFoundError:
        raise SmokeFailure(
            "package metadata missing: importlib.metadata cannot find termwise"
        ) from None
    return f"termwise {found}"


def check_resources() -> str:
    from importlib import resources

    root = resources.files("termwise.resources")
    config = root.joinpath("config.yaml")
    if not config.is_file():
        raise SmokeFailure("bundled resources missing: termwise.resources/config.yaml not found")
    return "termwise.resources/config.yaml present"


def check_qt() -> str:
    """Load QtWidgets and a platform plugin; a freeze without plugins fails right here."""
    try:
        import PySide6
        from PySide6.QtGui import QGuiApplication
    except ImportError as exc:
        raise SmokeFailure(f"Qt could not be loaded: {exc}") from None
    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0], "-platform", "offscreen"])
    name = QGuiApplication.platformName()
    del app
    return f"PySide6 {PySide6.__version__}, platform plugin {name!r}"


def _wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(POLL)
    return predicate()


def marks_shown_as_text(screen: str) -> bool:
    """True when the screen shows a prompt mark as text (the integration loaded, its ESC lost)."""
    return MARK_AS_TEXT.search(screen) is not None


def _smoke_lines(screen: str) -> int:
    """How many lines of the screen are exactly the smoke command's output."""
    return sum(1 for line in screen.splitlines() if line.strip() == SMOKE_OUTPUT)


def run_command(session: Session) -> str:
    """Type the smoke command, wait for its block and check output and exit code."""

    def settled() -> bool:
        return session.has_marks or not session.alive or marks_shown_as_text(session.screen_text())

    if not _wait_until(settled, PROMPT_TIMEOUT):
        tail = session.screen_text().strip()[-300:]
        raise SmokeFailure(
            f"{session.shell} showed no prompt marks within {PROMPT_TIMEOUT:.0f} s "
            f"(shell integration did not load); screen: {tail!r}"
        )
    if not session.alive:
        raise SmokeFailure(f"{session.shell} exited at once (exit code {session.exit_code})")
    if not session.has_marks:
        return run_on_last_screen(session)
    last = session.last_block()
    after = last.index if last is not None else -1
    started = time.monotonic()
    session.send_text(SMOKE_COMMAND, enter=True)
    block = session.wait_for_block(after, BLOCK_TIMEOUT)
    if block is None:
        tail = session.screen_text().strip()[-300:]
        raise SmokeFailure(
            f"no command block within {BLOCK_TIMEOUT:.0f} s after {SMOKE_COMMAND!r}; "
            f"screen: {tail!r}"
        )
    output = block.text()
    lines = [line.strip() for line in output.splitlines()]
    if SMOKE_OUTPUT not in lines:
        raise SmokeFailure(f"expected output {SMOKE_OUTPUT!r}, got {output!r}")
    problem = exit_code_problem(session.shell, block.exit_code)
    if problem:
        raise SmokeFailure(problem)
    took = time.monotonic() - started
    status = "exit code 0" if block.exit_code == 0 else "exit code not reported (cmd)"
    return f"{block.command!r} -> {SMOKE_OUTPUT!r}, {status} ({took * 1000:.0f} ms)"


def run_on_last_screen(session: Session) -> str:
    """No marks arrive but the integration loaded: the output must show on the last screen."""
    before = _smoke_lines(session.screen_text())
    started = time.monotonic()
    session.send_text(SMOKE_COMMAND, enter=True)
    if not _wait_until(lambda: _smoke_lines(session.screen_text()) > before, BLOCK_TIMEOUT):
        tail = session.screen_text().strip()[-300:]
        raise SmokeFailure(
            f"no prompt marks arrive from {session.shell} and {SMOKE_OUTPUT!r} did not show on "
            f"its last screen within {BLOCK_TIMEOUT:.0f} s after {SMOKE_COMMAND!r}; "
            f"screen: {tail!r}"
        )
    took = time.monotonic() - started
    return (
        f"{SMOKE_COMMAND!r} -> {SMOKE_OUTPUT!r} on the last screen ({took * 1000:.0f} ms); "
        f"{FALLBACK}: {session.shell}'s prompt marks reach the console as text, not as marks"
    )


def exit_code_problem(shell: str, code: int | None) -> str | None:
    """What is wrong with the smoke command's exit code, if anything.

    cmd.exe's prompt cannot show %ERRORLEVEL% reliably, so its blocks carry none;
    every other shell must report the 0 that `echo` returns.
    """
    if code == 0 or (code is None and shell in SHELLS_WITHOUT_EXIT_CODES):
        return None
    return f"expected exit code 0, got {code}"


class _SessionSteps:
    """The steps that need a host: start it, open a session, run, shut down."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.host: SessionHost | None = None
        self.session: Session | None = None
        self.fallback = False  # the output was read from the last screen (no marks)

    def steps(self) -> list[tuple[str, Callable[[], str]]]:
        return [
            ("start session host", self.start_host),
            ("open a session", self.open_session),
            ("run a command", self.run),
            ("read it over IPC", self.over_ipc),
            ("shut down", self.shut_down),
        ]

    def start_host(self) -> str:
        from termwise.agent.base.config_schema import Config
        from termwise.agent.base.paths import resolve_paths
        from termwise.tray.host import SessionHost

        paths = resolve_paths({"TERMWISE_HOME": self.home}).ensure()
        self.host = SessionHost(Config(), paths)
        return f"home {self.home}"

    def open_session(self) -> str:
        assert self.host is not None
        shell = os.environ.get(SHELL_ENV) or None
        # A clean HOME: the check is about Termwise, not about the user's dotfiles
        # (a slow ~/.bashrc would otherwise decide the result).
        env = {} if sys.platform == "win32" else {"HOME": self.home}
        self.session = self.host.create(shell=shell, cwd=self.home, env=env)
        return f"session {self.session.id}: {self.session.shell}, pid {self.session.pid}"

    def run(self) -> str:
        assert self.session is not None
        return run_command(self.session)

    def over_ipc(self) -> str:
        """What `termwise context` and the attach client see: the block, via the socket/pipe."""
        from termwise.tray.ipc.client import HostClient
        from termwise.tray.ipc.server import IpcServer

        assert self.host is not None and self.session is not None
        server = IpcServer(self.host, self.host.paths)
        address = server.start()
        try:
            with HostClient(self.host.paths) as client:
                blocks = client.context(self.session.id, blocks=1)
        finally:
            server.stop()
        if not blocks.has_marks:
            # What `termwise context` shows for such a shell: its last screen.
            if _smoke_lines(blocks.screen_text) < 1:
                raise SmokeFailure(
                    f"the host at {address} returned no blocks and a last screen without "
                    f"{SMOKE_OUTPUT!r}: {blocks.screen_text.strip()[-300:]!r}"
                )
            self.fallback = True
            return f"{address} returned the last screen with {SMOKE_OUTPUT!r} ({FALLBACK})"
        if not blocks or SMOKE_OUTPUT not in str(blocks[-1].get("output", "")).split():
            raise SmokeFailure(f"the host at {address} returned {list(blocks)!r}")
        return f"{address} returned the block ({blocks[-1].get('command')!r})"

    def shut_down(self) -> str:
        if self.host is None:
            return "no host"
        self.host.shutdown()
        session = self.session
        if session is not None and not _wait_until(lambda: not session.alive, BLOCK_TIMEOUT):
            raise SmokeFailure(f"session {session.id} still running after shutdown")
        return "all sessions ended"


def run_smoke_test(args: argparse.Namespace | None = None) -> int:
    """Run every step, printing what each did; 0 when all passed, 1 otherwise."""
    _say("termwise smoke test")
    home = tempfile.mkdtemp(prefix="termwise-smoke-")
    os.environ["TERMWISE_HOME"] = home  # nothing of the user's is read or written
    host_steps = _SessionSteps(home)
    steps = [
        ("package metadata", check_metadata),
        ("bundled resources", check_resources),
        ("Qt", check_qt),
        *host_steps.steps(),
    ]
    failed = False
    try:
        for name, step in steps:
            try:
                _say(f"  ok    {name}: {step()}")
            except Exception as exc:  # report any failure, then still clean up below
                detail = (
                    str(exc) if isinstance(exc, SmokeFailure) else f"{type(exc).__name__}: {exc}"
                )
                _fail(name, detail)
                failed = True
                break
        if failed:
            try:
                host_steps.shut_down()
            except Exception as exc:
                _fail("clean up", f"{type(exc).__name__}: {exc}")
    finally:
        _remove_home(home)
    if failed:
        print("smoke test FAILED", file=sys.stderr, flush=True)
        return 1
    if host_steps.fallback:
        shell = host_steps.session.shell if host_steps.session else "the shell"
        _say(f"smoke test passed ({FALLBACK}: no prompt marks arrived from {shell})")
    else:
        _say("smoke test passed")
    return 0


def _remove_home(home: str) -> None:
    """Delete the throwaway home; on Windows a just-ended console may hold it briefly."""
    deadline = time.monotonic() + CLEANUP_TIMEOUT
    while True:
        try:
            shutil.rmtree(home)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if time.monotonic() >= deadline:
                print(f"  note  could not remove {home}: {exc}", file=sys.stderr, flush=True)
                return
            time.sleep(0.2)


def _fail(name: str, message: str) -> None:
    print(f"  FAIL  {name}: {message}", file=sys.stderr, flush=True)
