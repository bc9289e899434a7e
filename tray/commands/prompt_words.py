"""The words typed at a session's prompt (`??`, `deploy`): their context and typing a command
onto the prompt line once the shell has drawn it again (stdlib-only at module level)."""

from __future__ import annotations

import argparse
import logging
import os
import re
import subprocess
import sys
import time
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths
    from termwise.agent.base.types import SessionContext
    from termwise.tray.ipc.client import Channel

log = logging.getLogger(__name__)

# How the `??` word is spelt in each shell's integration, and its plain spelling.
ASK_WORDS = ("??", "termwise-ask", "__termwise_ask")
# The picker prints this (an OSC the terminal ignores) as its last output; the helper that
# types the chosen command waits for it, then for the end of the `??` block, then for the
# next prompt, so the text lands on a prompt line that is ready for input.
NONCE_OSC = "\x1b]633;P;TermwiseTyping={nonce}\x07"
PROMPT_END = b"\x1b]133;B"
BLOCK_END = b"\x1b]133;D"
PASTE_ON = b"\x1b[?2004h"
PASTE_OFF = b"\x1b[?2004l"
TYPE_TIMEOUT = 60.0

# `termwise ask` / `termwise fix` typed out in full print the same picker.
_WORD = re.compile(
    r"^\s*(?:" + "|".join(re.escape(w) for w in ASK_WORDS) + r"|termwise\s+(?:ask|fix))(?:\s|$)"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Internal: started (detached) by the picker; not for people, so no help line.
    p = sub.add_parser("type-at-prompt")
    p.add_argument("--session", required=True)
    p.add_argument("--nonce", required=True)
    p.add_argument("--enter", action="store_true")
    p.add_argument("--timeout", type=float, default=TYPE_TIMEOUT)
    p.set_defaults(func=cmd_type_at_prompt)


def is_word_block(command: str) -> bool:
    """A block that is itself a `??` question (its output is Termwise's own picker)."""
    return bool(_WORD.match(command))


def without_word_blocks(ctx: SessionContext) -> SessionContext:
    """The context minus earlier `??` blocks: the model sees the user's commands, not ours."""
    from dataclasses import replace

    return replace(ctx, blocks=[b for b in ctx.blocks if not is_word_block(b.command)])


# -- typing onto the next prompt -------------------------------------------------------------


def schedule_typing(session_id: str, text: str, *, enter: bool = False) -> str:
    """Start the detached helper that types `text` once the shell shows its next prompt.

    Returns the OSC the caller must print as its last output (the helper's start signal).
    """
    from termwise.tray.system.selfcmd import self_argv
    from termwise.tray.system.spawn_flags import helper_popen_options

    nonce = uuid.uuid4().hex
    argv = [*self_argv(), "type-at-prompt", "--session", session_id, "--nonce", nonce]
    if enter:
        argv.append("--enter")
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **helper_popen_options(),  # outlives the shell; no console window on Windows
    )
    assert proc.stdin is not None
    # The text goes through a pipe, not argv: other users can read process lists.
    proc.stdin.write(text.encode("utf-8"))
    proc.stdin.close()
    return NONCE_OSC.format(nonce=nonce)


def cmd_type_at_prompt(args: argparse.Namespace) -> int:
    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.system.logs import setup_logging

    paths = resolve_paths()
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    try:
        setup_logging(paths.log_dir)
        typed = type_at_prompt(
            paths, args.session, args.nonce, text, enter=args.enter, timeout=args.timeout
        )
    except Exception:  # nobody reads this process's output; the log is all there is
        log.exception("type-at-prompt failed")
        return 1
    log.info("type-at-prompt: session %s: %s", args.session, "typed" if typed else "gave up")
    return 0 if typed else 1


class PromptWatch:
    """Finds, in a session's raw output, the moment after `nonce` when a prompt is ready."""

    def __init__(self, nonce: str) -> None:
        self.marker = NONCE_OSC.format(nonce=nonce).encode("ascii")
        self._buf = b""
        self._stage = 0  # 0: waiting for the marker, 1: for the block's end, 2: for a prompt
        self.paste = False  # bracketed paste is on at that prompt

    def feed(self, data: bytes) -> bool:
        """True once the prompt after the marker has been drawn."""
        self._buf += data
        needles = (self.marker, BLOCK_END, PROMPT_END)
        while self._stage < 3:
            at = self._buf.find(needles[self._stage])
            if self._stage == 2:
                self._note_paste(self._buf if at < 0 else self._buf[:at])
            if at < 0:
                # Keep a tail long enough to hold a needle split across reads.
                self._buf = self._buf[-len(self.marker) :]
                return False
            self._buf = self._buf[at + len(needles[self._stage]) :]
            self._stage += 1
        return True

    def _note_paste(self, seen: bytes) -> None:
        on, off = seen.rfind(PASTE_ON), seen.rfind(PASTE_OFF)
        if on != off:
            self.paste = on > off


def keystrokes(text: str, *, enter: bool, paste: bool) -> bytes:
    """What to write so `text` sits on the prompt line (and runs only with `enter`)."""
    text = text.replace("\r\n", "\n").rstrip("\n")
    if not enter and "\n" in text:
        if paste:  # the line editor inserts a bracketed paste without running it
            return b"\x1b[200~" + text.encode("utf-8") + b"\x1b[201~"
        text = "; ".join(line for line in text.split("\n") if line.strip())
    data = text.replace("\n", "\r").encode("utf-8")
    return data + b"\r" if enter else data


def type_at_prompt(
    paths: Paths, session_id: str, nonce: str, text: str, *, enter: bool, timeout: float
) -> bool:
    """Attach to the session, wait for the prompt after `nonce`, then type `text` in place of
    anything typed ahead (with `enter`: run it only if the line is exactly `text`); False at
    the timeout or when the host refused."""
    from termwise.tray.errors import TrayError
    from termwise.tray.ipc.client import HostClient
    from termwise.tray.ipc.protocol import encode_json

    found = wait_for_prompt(paths, session_id, nonce, timeout)
    if found is None:
        return False
    channel, _ = found
    try:
        channel.stream.sendall(encode_json({"op": "detach"}))
    finally:
        channel.close()
    try:
        with HostClient(paths) as client:
            if not enter:
                client.type_command(session_id, text)
                return True
            outcome = client.run_command(session_id, text)
    except TrayError as exc:
        log.warning("type-at-prompt: session %s: %s", session_id, exc)
        return False
    if not outcome.ran:
        log.warning("type-at-prompt: session %s: not run: %s", session_id, outcome.reason)
    return outcome.ran


def wait_for_prompt(
    paths: Paths, session_id: str, nonce: str, timeout: float
) -> tuple[Channel, bool] | None:
    """Attached to the session once its prompt after `nonce` is drawn: (channel, bracketed
    paste on); None at the timeout or when the session ends first."""
    from termwise.tray.ipc.client import _checked, open_channel
    from termwise.tray.ipc.protocol import KIND_DATA, decode_json, encode_json

    deadline = time.monotonic() + timeout
    channel = open_channel(paths)
    try:
        channel.stream.sendall(encode_json({"op": "attach", "session": session_id}))
        watch = PromptWatch(nonce)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            channel.stream.settimeout(remaining)
            try:
                frame = channel.reader.read()
            except TimeoutError:
                break
            if frame is None:
                break
            kind, payload = frame
            if kind != KIND_DATA:
                message = decode_json(payload)
                if "ok" in message:
                    _checked(message)  # the host refused: unknown or ended session
                continue
            if watch.feed(payload):
                channel.stream.settimeout(None)
                return channel, watch.paste
    except BaseException:
        channel.close()
        raise
    log.info("no prompt after the marker in session %s", session_id)
    channel.close()
    return None


def session_from_env() -> str | None:
    return os.environ.get("TERMWISE_SESSION") or None
