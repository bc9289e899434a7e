"""A person at the desk: xterm windows running `termwise shell`, keys typed with xdotool, the
overlay and the approval dialog found on screen, and what the shell ran read back through
`termwise context --json`.

Everything waits on a condition (a log line, a window, a block in the context), never on a
fixed sleep: the machine running the journeys is shared and slow at times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.harness import ARTIFACTS, Desktop, TrayProcess, stop, wait_until

OVERLAY_TITLE = "^Termwise$"
APPROVAL_TITLE = "^Run this command\\?$"
HOTKEY = "ctrl+alt+space"
TYPE_DELAY_MS = "25"  # between typed characters: xterm keeps up even when the machine is busy
WAIT = 60.0  # seconds for anything a person would wait for


class Desk:
    """The desktop, the tray and the environment `termwise` commands run with."""

    def __init__(self, desktop: Desktop, tray: TrayProcess, env: dict[str, str]) -> None:
        self.desktop = desktop
        self.tray = tray
        self.env = env
        self._terminals: list[Terminal] = []
        self._count = 0

    # the command line ---------------------------------------------------------------
    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`termwise ARGS` against the tray's host, as a person would run it."""
        return subprocess.run(
            [sys.executable, "-m", "termwise.tray.commands.cli", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=WAIT,
        )

    def sessions(self) -> list[dict[str, Any]]:
        done = self.cli("sessions", "--json")
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout))

    # terminals ----------------------------------------------------------------------
    def open_terminal(self, shell: str = "bash", cwd: Path | None = None) -> Terminal:
        """An xterm running `termwise shell --shell SHELL`, focused, its prompt ready."""
        self._count += 1
        terminal = Terminal(self, shell, f"journey-{shell}-{self._count}", cwd)
        self._terminals.append(terminal)
        return terminal.start()

    def close_terminals(self) -> None:
        while self._terminals:
            self._terminals.pop().close()

    # keys and windows ---------------------------------------------------------------
    def key(self, *keys: str) -> None:
        """Keys pressed on the keyboard: they go to whichever window has the focus."""
        self.desktop.xdotool("key", "--delay", "40", *keys)

    def type(self, text: str) -> None:
        self.desktop.xdotool("type", "--delay", TYPE_DELAY_MS, text)

    def active_window(self) -> str:
        return self.desktop.xdotool("getactivewindow")

    def visible(self, title: str) -> list[str]:
        return self.desktop.search("--onlyvisible", "--name", title)

    def wait_active(self, window: str, what: str) -> None:
        wait_until(lambda: self.active_window() == window, WAIT, what, step=0.1)

    # the overlay --------------------------------------------------------------------
    def hotkey(self) -> int:
        """Ctrl+Alt+Space; returns the log mark once the overlay is shown and has the focus."""
        mark = self.tray.mark()
        self.key(HOTKEY)
        self.tray.wait_log(
            lambda e: str(e.get("message", "")).startswith("overlay shown"),
            WAIT,
            "the overlay to open",
            after=mark,
        )
        self.wait_overlay_focus()
        return mark

    def wait_overlay_focus(self) -> str:
        """The overlay is on screen and has the focus (keys go to it); its window."""
        window: str = wait_until(lambda: self.visible(OVERLAY_TITLE), WAIT, "the overlay window")[0]
        self.wait_active(window, "the overlay to have the focus")
        return window

    def wait_overlay_closed(self) -> None:
        wait_until(lambda: not self.visible(OVERLAY_TITLE), WAIT, "the overlay to close")

    def suggestions(self, after: int) -> list[tuple[int, str]]:
        """The rows the overlay showed since `after`, as (row, command), in order shown."""
        prefix = "suggestion shown: "
        rows = []
        for line in self.tray.messages()[after:]:
            message = str(line.get("message", ""))
            if message.startswith(prefix):
                index, _, command = message[len(prefix) :].partition(" ")
                rows.append((int(index), command))
        return rows

    def wait_suggestion(self, command: str, after: int) -> int:
        """Wait until the overlay shows `command`; its row."""

        def row() -> int | None:
            return next((i for i, c in self.suggestions(after) if c == command), None)

        found = wait_until(
            lambda: row() is not None, WAIT, f"the suggestion {command!r}:\n{self.tray.tail()}"
        )
        assert found
        index = row()
        assert index is not None
        return index

    def choose(self, row: int) -> None:
        """↓ from the first row (where every open starts) to `row`."""
        for _ in range(row):
            self.key("Down")

    def wait_log(self, prefix: str, after: int) -> dict[str, Any]:
        return self.tray.wait_log(
            lambda e: str(e.get("message", "")).startswith(prefix), WAIT, repr(prefix), after=after
        )

    def wait_first(self, prefixes: tuple[str, ...], after: int) -> dict[str, Any]:
        """The first log line since `after` starting with any of `prefixes` (so a test that
        waits for one outcome fails at once on another, not after a timeout)."""
        return self.tray.wait_log(
            lambda e: str(e.get("message", "")).startswith(prefixes),
            WAIT,
            " or ".join(map(repr, prefixes)),
            after=after,
        )

    def logged(self, prefix: str, after: int) -> list[dict[str, Any]]:
        return [
            e for e in self.tray.messages()[after:] if str(e.get("message", "")).startswith(prefix)
        ]

    # the approval dialog ------------------------------------------------------------
    def wait_approval(self, after: int) -> dict[str, Any]:
        """The approval dialog is on screen with the focus; what it offers (from its log line)."""
        outcomes = ("approval shown", "command blocked: ", "command run: ", "run refused: ")
        shown = self.wait_first(outcomes, after)
        assert shown["message"].startswith("approval shown"), f"no question asked: {shown}"
        window = wait_until(lambda: self.visible(APPROVAL_TITLE), WAIT, "the approval dialog")[0]
        self.wait_active(window, "the approval dialog to take the focus")
        offered: dict[str, Any] = shown["event"]
        return offered

    def wait_approval_closed(self) -> None:
        wait_until(lambda: not self.visible(APPROVAL_TITLE), WAIT, "the approval dialog to close")


class Terminal:
    """One xterm window whose shell is a Termwise session."""

    def __init__(self, desk: Desk, shell: str, title: str, cwd: Path | None) -> None:
        self.desk = desk
        self.shell = shell
        self.title = title
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.window = ""
        self.session = ""
        # Everything the xterm received, as xterm itself logs it: what the person saw,
        # including lines Termwise shows in the terminal but the shell never printed.
        self.screen_log = ARTIFACTS / "journeys" / f"{title}.xterm.log"

    def start(self) -> Terminal:
        before = {s["id"] for s in self.desk.sessions()}
        command = [sys.executable, "-m", "termwise.tray.commands.cli", "shell"]
        command += ["--shell", self.shell]
        if self.cwd is not None:
            command += ["--cwd", str(self.cwd)]
        self.screen_log.parent.mkdir(parents=True, exist_ok=True)
        self.screen_log.unlink(missing_ok=True)
        xterm = ["xterm", "-T", self.title, "-geometry", "110x32+40+40"]
        self.proc = subprocess.Popen(
            [*xterm, "-l", "-lf", str(self.screen_log), "-e", *command],
            env=self.desk.env,
            cwd=self.cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.window = wait_until(
            lambda: self.desk.visible(f"^{self.title}$"), WAIT, f"the xterm {self.title}"
        )[0]

        def new_session() -> str | None:
            fresh = [s for s in self.desk.sessions() if s["id"] not in before and s.get("clients")]
            return str(fresh[0]["id"]) if fresh else None

        self.session = wait_until(new_session, WAIT, f"the session of {self.title}", step=0.3)
        # The first command proves the prompt is up and typed keys reach this session.
        self.run("echo journey-ready")
        return self

    def focus(self) -> None:
        """Click-to-focus, as a person would bring the window forward."""
        self.desk.desktop.xdotool("windowactivate", "--sync", self.window)
        self.desk.wait_active(self.window, f"{self.title} to have the focus")

    def wait_focus(self) -> None:
        """Wait until the focus came back here by itself (e.g. after the overlay hid)."""
        self.desk.wait_active(self.window, f"the focus back on {self.title}")

    def blocks(self) -> list[dict[str, Any]]:
        """What the shell executed, oldest first, from `termwise context --json`."""
        done = self.desk.cli("context", "--session", self.session, "--blocks", "200", "--json")
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        return list(data if isinstance(data, list) else data.get("blocks", []))

    def wait_blocks(self, count: int) -> list[dict[str, Any]]:
        """Wait until the session finished at least `count` commands; all of them."""
        found: list[dict[str, Any]] = []

        def enough() -> bool:
            found[:] = self.blocks()
            return len(found) >= count

        wait_until(enough, WAIT, f"{count} finished commands in {self.title}", step=0.3)
        return found

    def run(self, command: str) -> dict[str, Any]:
        """Type `command` into this window and press Enter; the block the shell reports."""
        count = len(self.blocks())
        self.focus()
        self.desk.type(command)
        self.desk.key("Return")
        return self.wait_blocks(count + 1)[count]

    def received(self) -> str:
        """What the xterm has received so far (escape sequences and all)."""
        try:
            return self.screen_log.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def wait_shown(self, text: str) -> None:
        """Wait until the terminal has shown `text` (a prompt, an outcome line)."""
        wait_until(lambda: text in self.received(), WAIT, f"{text!r} in {self.title}", step=0.2)

    def close(self) -> None:
        stop(self.proc, grace=5)
