"""`termwise ask` / `fix` at a terminal: the picker loop, clarifying questions, the chosen action.

Explaining and the clarifying follow-up are the shared flows of agent/suggest/flows.py.
"""

from __future__ import annotations

import io
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.events import Error, Event, Finished
from termwise.agent.base.types import SessionContext, Suggestion, Verdict
from termwise.agent.suggest.flows import explain, follow_up
from termwise.tray.commands.ask_render import TurnRenderer
from termwise.tray.commands.picker import Action, ExplainChunk, PickerState, Screen
from termwise.tray.commands.term_io import HIDE_CURSOR, SHOW_CURSOR, KeyReader, RawModeUnavailable

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths
    from termwise.agent.suggest.turn import SuggestTurn

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
POLL = 0.05
JOIN_WAIT = 2.0


@dataclass
class Console:
    """Where the picker talks: output, a line reader for answers, and the key reader factory."""

    out: TextIO
    read_line: Callable[[str], str]
    keys: Callable[[], KeyReader]
    colour: bool = True


def default_console() -> Console:
    colour = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return Console(sys.stdout, input, KeyReader, colour)


def run_picker(
    turn: SuggestTurn,
    question: str,
    ctx: SessionContext,
    *,
    paths: Paths,
    offline: bool = False,
    console: Console | None = None,
) -> int:
    """Show suggestions as they stream, let the user pick one, do what was chosen."""
    con = console or default_console()
    asked_question = question
    while True:
        try:
            state, action, code = _round(turn, asked_question, ctx, con, offline)
        except KeyboardInterrupt:
            con.out.write("\r\n")
            con.out.flush()
            return EXIT_INTERRUPTED
        if action is not None:
            if action.kind == "quit":
                return EXIT_OK
            return _act(action, state.suggestions[action.index], ctx, paths, con)
        if state.waiting_for_answer:
            try:
                answer = con.read_line("> ")
            except (EOFError, KeyboardInterrupt):
                con.out.write("\n")
                return EXIT_INTERRUPTED
            if not answer.strip():
                return EXIT_OK
            asked_question = follow_up(asked_question, state.question, answer)
            continue
        return code


def _round(
    turn: SuggestTurn, question: str, ctx: SessionContext, con: Console, offline: bool
) -> tuple[PickerState, Action | None, int]:
    """One turn on screen; returns the state, the user's action (if any) and an exit code."""
    token = CancelToken()
    events: queue.Queue[Event | ExplainChunk | None] = queue.Queue()
    tally = TurnRenderer(io.StringIO(), io.StringIO(), as_json=True, offline=offline)

    def pump() -> None:
        stream = turn.run(question, ctx, token)
        try:
            for event in stream:
                events.put(event)
        except Exception as exc:  # the picker must still end cleanly
            events.put(Error(f"the suggestion turn failed: {exc}"))
            events.put(Finished())
        finally:
            stream.close()
            events.put(None)

    thread = threading.Thread(target=pump, name="ask-turn", daemon=True)
    thread.start()
    try:
        reader = con.keys()
        reader.__enter__()
    except RawModeUnavailable:
        return _plain_round(events, tally, con, offline)
    state = PickerState(can_explain=turn.client is not None)
    screen = Screen(con.out.write, con.colour)
    action: Action | None = None
    con.out.write(HIDE_CURSOR)
    try:
        dirty = True
        while action is None:
            while True:
                try:
                    event = events.get_nowait()
                except queue.Empty:
                    break
                if isinstance(event, ExplainChunk):
                    state.apply(event)
                    dirty = True
                elif event is not None:
                    tally.event(event)
                    state.apply(event)
                    dirty = True
            if dirty:
                size = shutil.get_terminal_size()
                screen.draw(state.lines(size.columns, max(3, size.lines - 2)))
                con.out.flush()
                dirty = False
            if state.finished and not state.suggestions:
                break  # a clarifying question to answer, or nothing at all
            for key in reader.read(POLL):
                dirty = True
                action = state.key(key)
                if action is not None:
                    break
            while state.explain_requests:
                index = state.explain_requests.pop(0)
                _start_explaining(turn, state.suggestions[index].command, ctx, index, events, token)
    finally:
        reader.close()
        if action is not None or not state.finished:
            token.cancel()
        if action is not None:
            screen.clear()  # the list goes; the outcome is printed in its place
        con.out.write(("\r\n" if screen.drawn else "") + SHOW_CURSOR)
        con.out.flush()
        thread.join(JOIN_WAIT)
    return state, action, tally.exit_code()


def _start_explaining(
    turn: SuggestTurn,
    command: str,
    ctx: SessionContext,
    index: int,
    sink: queue.Queue[Event | ExplainChunk | None],
    cancel: CancelToken,
) -> None:
    """Stream the model's explanation of a command into the picker's queue (`e`)."""

    def work() -> None:
        from termwise.agent.llm.base import LlmError

        client, config = turn.client, turn.config
        assert client is not None
        try:
            for text in explain(client, config, command, ctx.shell or "bash", cancel):
                sink.put(ExplainChunk(index, text))
        except LlmError as exc:
            sink.put(ExplainChunk(index, done=True, error=str(exc)))
            return
        except Exception as exc:  # the picker must keep working
            sink.put(ExplainChunk(index, done=True, error=f"{type(exc).__name__}: {exc}"))
            return
        sink.put(ExplainChunk(index, done=True))

    threading.Thread(target=work, name="ask-explain", daemon=True).start()


def _plain_round(
    events: queue.Queue[Event | ExplainChunk | None],
    tally: TurnRenderer,
    con: Console,
    offline: bool,
) -> tuple[PickerState, Action | None, int]:
    """No raw mode: print the list as it streams, then read a numbered choice on a line."""
    text = TurnRenderer(con.out, con.out, offline=offline)
    state = PickerState()
    while True:
        event = events.get()
        if event is None:
            break
        if isinstance(event, ExplainChunk):
            continue
        tally.event(event)
        text.event(event)
        state.apply(event)
    if not state.suggestions:
        if state.question:
            state.finished = True
        return state, None, tally.exit_code()
    n = len(state.suggestions)
    prompt = f"Choose 1-{n} to type it (r2 runs #2, c2 copies it; Enter quits): "
    while True:
        try:
            answer = con.read_line(prompt).strip().lower()
        except EOFError:
            return state, Action("quit"), EXIT_OK
        if not answer:
            return state, Action("quit"), EXIT_OK
        kind = {"r": "run", "c": "copy"}.get(answer[0], "type")
        digits = answer[1:] if answer[0] in "rc" else answer
        if digits.isdigit() and 1 <= int(digits) <= n:
            return state, Action(kind, int(digits) - 1), EXIT_OK  # type: ignore[arg-type]
        con.out.write(f"no suggestion {answer!r}\n")


# -- what was chosen ------------------------------------------------------------------------


def _act(action: Action, s: Suggestion, ctx: SessionContext, paths: Paths, con: Console) -> int:
    out = con.out
    if action.kind == "copy":
        return _copy(s.command, out)
    if action.kind == "run":
        out.write(f"{s.command}\n")
        verdict = s.verdict or _classify(s.command, ctx.shell)
        if not _approved(s.command, ctx.shell, verdict, paths, con):
            out.write("termwise: not run\n")
            out.flush()
            return EXIT_FAILURE
        if _own_session(ctx):
            return _type_later(s.command, ctx, out, enter=True)
        if ctx.session_id:
            return _send_now(paths, ctx.session_id, s.command, out, enter=True)
        out.flush()
        return subprocess.run(s.command, shell=True).returncode
    # type: onto the prompt of the session this runs in
    if _own_session(ctx):
        out.write(_dim(f"→ {s.command}   (on your prompt: Enter runs it)", con) + "\n")
        return _type_later(s.command, ctx, out, enter=False)
    if ctx.session_id:
        return _send_now(paths, ctx.session_id, s.command, out, enter=False)
    out.write(f"{s.command}\n")  # no session to type into: show it and copy it
    return _copy(s.command, out, quiet_failure=True)


def _dim(text: str, con: Console) -> str:
    return f"\x1b[2m{text}\x1b[0m" if con.colour else text


def _own_session(ctx: SessionContext) -> bool:
    """This process runs inside the session (its prompt comes back when we exit)."""
    return bool(ctx.session_id) and os.environ.get("TERMWISE_SESSION") == ctx.session_id


def _type_later(command: str, ctx: SessionContext, out: TextIO, *, enter: bool) -> int:
    from termwise.tray.commands.prompt_words import schedule_typing

    assert ctx.session_id is not None
    try:
        marker = schedule_typing(ctx.session_id, command, enter=enter)
    except OSError as exc:
        out.write(f"termwise: could not type it ({exc}); the command: {command}\n")
        out.flush()
        return EXIT_FAILURE
    out.write(marker)  # last output: the helper types once the prompt is back
    out.flush()
    return EXIT_OK


def _send_now(paths: Paths, session_id: str, command: str, out: TextIO, *, enter: bool) -> int:
    from termwise.tray.errors import TrayError
    from termwise.tray.ipc.client import HostClient

    try:
        with HostClient(paths) as client:
            if enter:
                outcome = client.run_command(session_id, command)
                if not outcome.ran:
                    out.write(f"termwise: not run in session {session_id}: {outcome.reason}\n")
                    return EXIT_FAILURE
            else:
                client.type_command(session_id, command)
    except TrayError as exc:
        out.write(f"termwise: could not type into session {session_id}: {exc}\n")
        return EXIT_FAILURE
    out.write(f"{'ran' if enter else 'typed'} in session {session_id}: {command}\n")
    return EXIT_OK


def _copy(command: str, out: TextIO, quiet_failure: bool = False) -> int:
    import pyperclip

    try:
        pyperclip.copy(command)
    except pyperclip.PyperclipException as exc:
        if not quiet_failure:
            out.write(f"termwise: could not copy ({exc}); the command: {command}\n")
        out.flush()
        return EXIT_OK if quiet_failure else EXIT_FAILURE
    out.write(f"copied: {command}\n")
    out.flush()
    return EXIT_OK


def _classify(command: str, shell: str) -> Verdict:
    from termwise.agent.suggest.turn import verdict_for

    return verdict_for(command, shell)


def _approved(command: str, shell: str, verdict: Verdict, paths: Paths, con: Console) -> bool:
    """The approval policy decides, or asks the user the one approval flow's question
    (Enter, EOF and Ctrl+C deny this time only)."""
    from termwise.agent.safety.approval_flow import (
        answer_from_text,
        approval_request,
        settle,
        terminal_prompt,
    )
    from termwise.agent.safety.approvals import ApprovalStore
    from termwise.tray.commands.deploy_render import approval_text

    store = ApprovalStore(paths.approvals_file)
    decision = store.decide(command, shell, verdict)
    out = con.out
    if decision == "deny":
        out.write("termwise: your approval policy denies this command\n")
        return False
    if decision == "allow":
        return True
    request = approval_request(command, shell, verdict)
    out.write(approval_text(request, colour=con.colour) + "\n")
    out.flush()
    answer = None
    while answer is None:
        try:
            line: str | None = con.read_line("  " + terminal_prompt(request))
        except (EOFError, KeyboardInterrupt):
            line = None
        answer = answer_from_text(request, line)
    settled = settle(store, request, answer)
    if not settled.runs:
        kept = " (saved: always deny)" if settled.remembered == "deny" else " this time"
        out.write(f"not run{kept}\n")
    return settled.runs
