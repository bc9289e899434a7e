"""The host's IPC server: authenticated, length-framed JSON requests and attached relays.

One thread accepts (blocked, never polling); one thread serves each connection. A
peer must answer the challenge before anything else; a wrong answer, an unknown
op, an oversized frame or malformed JSON gets an error reply and a closed
connection, while the host keeps serving everyone else.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from termwise.tray.errors import TrayError
from termwise.tray.host.errors import SessionEnded
from termwise.tray.host.foreground import ClientWindow
from termwise.tray.host.session import os_name
from termwise.tray.ipc import auth, transport
from termwise.tray.ipc.client_terminal import open_client_terminal
from termwise.tray.ipc.protocol import (
    KIND_DATA,
    KIND_JSON,
    MAX_REQUEST,
    PROTOCOL_VERSION,
    FrameReader,
    ProtocolError,
    decode_json,
    encode_json,
)
from termwise.tray.ipc.relay import STALL_LIMIT, ClientSink

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths
    from termwise.tray.host.host import SessionHost
    from termwise.tray.host.session import Session
    from termwise.tray.ipc.client_keys import TerminalKeys

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 5.0  # for the whole handshake, however slowly its bytes trickle in
MAX_CONNECTIONS = 64  # authenticated connections
MAX_PENDING = 32  # connections still in their handshake
MAX_PENDING_PER_PEER = 4  # per client process, where the OS names it (Linux)
MAX_WAIT = 600.0
RUN_CHECK_TIMEOUT = 2.0  # how long `run` waits for the shell to report its line
MAX_RUN_CHECK = 30.0
MAX_NOTICE = 1000
BUSY = "the Termwise host is busy (too many connections at once); try again in a moment"
# Environment a `create` request may pass from the client's terminal to the new shell.
CLIENT_ENV_KEYS = ("TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "TERM_PROGRAM")


class RequestError(TrayError):
    """A request the host cannot serve (bad fields, no session …)."""


def session_info(session: Session, active_id: str | None) -> dict[str, Any]:
    """A session as plain JSON for clients."""
    last = session.last_block()
    return {
        "id": session.id,
        "shell": session.shell,
        "pid": session.pid,
        "cwd": session.cwd,
        "alive": session.alive,
        "exit_code": session.exit_code,
        "created": session.created,
        "active": session.id == active_id,
        "rows": session.size[0],
        "cols": session.size[1],
        "clients": session.client_count,
        "last_command": last.command if last is not None else None,
        "can_run_exact": session.can_run_exact,
    }


def block_json(block: Any) -> dict[str, Any]:
    data = dict(block.to_json())
    data["index"] = block.index
    return data


def _instant_rules(
    session: Session, blocks: list[Any], screen_text: str, variables: dict[str, str]
) -> list[Any] | None:
    """The rules tier for `termwise fix`, run here where the rules are loaded once, from
    the same blocks and screen the reply carries and with the client's PATH (a shell may
    have changed it); None (the client runs them) if they fail."""
    try:
        from termwise.agent.suggest.wire import instant_json
        from termwise.tray.commands.prompt_words import without_word_blocks

        ctx = session.context(blocks=blocks, screen_text=screen_text)
        return instant_json(without_word_blocks(ctx) if ctx.blocks else ctx, variables)
    except Exception:
        log.exception("ipc: the rules tier failed; the client runs it")
        return None


class IpcServer:
    """Serves a SessionHost to other processes (also usable in-process by the tray)."""

    def __init__(
        self, host: SessionHost, paths: Paths, *, stall_limit: float = STALL_LIMIT
    ) -> None:
        self.host = host
        self.paths = paths
        # Seconds an attached client may take nothing before it is dropped.
        self.stall_limit = stall_limit
        self.address = transport.endpoint(paths.runtime_dir)
        self._listener: transport.Listener | None = None
        self._secret = b""
        self._accept_thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._conns: set[transport.Stream] = set()
        self.notice: str | None = None  # told to `termwise sessions` (a crashed predecessor)
        self._authenticated = 0
        self._pending: dict[int | None, int] = {}  # peer pid (None: unknown) -> handshakes
        self._ops: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "ping": self._op_ping,
            "sessions": self._op_sessions,
            "create": self._op_create,
            "context": self._op_context,
            "send": self._op_send,
            "type": self._op_type,
            "run": self._op_run,
            "notice": self._op_notice,
            "kill": self._op_kill,
            "wait_block": self._op_wait_block,
        }

    # lifecycle -------------------------------------------------------------------
    def start(self) -> str:
        """Listen (raises transport.AddressInUse when another host answers); returns the address."""
        transport.secure_folder(self.paths.runtime_dir)
        self._secret = auth.ensure_secret(self.paths.runtime_dir)
        self._listener = transport.listen(self.address)
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name="ipc-accept", daemon=True
        )
        self._accept_thread.start()
        log.info("ipc: listening on %s", self.address)
        return self.address

    def stop(self) -> None:
        listener = self._listener
        if listener is None:
            return
        self._listener = None
        listener.close()
        if self._accept_thread is not None:
            self._accept_thread.join(5.0)
        listener.release()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            _hard_close(conn)
        log.info("ipc: stopped")

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        while True:
            try:
                conn = listener.accept()
            except transport.ListenerClosed:
                return
            except OSError as exc:
                log.error("ipc: accept failed: %s", exc)
                return
            peer = transport.peer_id(conn)
            if not self._admit(peer):
                log.warning("ipc: refused a connection from %s: busy", peer or "a client")
                _reply_and_close(conn, {"ok": False, "error": BUSY, "kind": "Busy"})
                continue
            with self._lock:
                self._conns.add(conn)
            threading.Thread(
                target=self._serve, args=(conn, peer), name="ipc-conn", daemon=True
            ).start()

    def _admit(self, peer: int | None) -> bool:
        """Take a handshake slot, unless this peer or everyone already holds too many."""
        with self._lock:
            total = sum(self._pending.values())
            mine = self._pending.get(peer, 0)
            if (
                total >= MAX_PENDING
                or total + self._authenticated >= MAX_CONNECTIONS
                or (peer is not None and mine >= MAX_PENDING_PER_PEER)
            ):
                return False
            self._pending[peer] = mine + 1
            return True

    def _handshake_done(self, peer: int | None) -> None:
        with self._lock:
            left = self._pending.get(peer, 0) - 1
            if left > 0:
                self._pending[peer] = left
            else:
                self._pending.pop(peer, None)

    # one connection ---------------------------------------------------------------
    def _serve(self, conn: transport.Stream, peer: int | None = None) -> None:
        counted = False
        try:
            reader = FrameReader(conn, MAX_REQUEST)
            try:
                ok = self._handshake(conn, reader)
            finally:
                self._handshake_done(peer)
            if not ok:
                return
            with self._lock:
                counted = self._authenticated < MAX_CONNECTIONS
                if counted:
                    self._authenticated += 1
            if not counted:
                _try_send(conn, {"ok": False, "error": BUSY, "kind": "Busy"})
                return
            self._request_loop(conn, reader)
        except ProtocolError as exc:
            log.warning("ipc: closing a connection: %s", exc)
            _try_send(conn, {"ok": False, "error": str(exc), "kind": "ProtocolError"})
        except (OSError, TimeoutError):
            pass  # the peer went away, or took too long to prove itself
        except Exception:
            log.exception("ipc: connection failed")
        finally:
            with self._lock:
                self._conns.discard(conn)
                if counted:
                    self._authenticated -= 1
            _hard_close(conn)

    def _handshake(self, conn: transport.Stream, reader: FrameReader) -> bool:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        conn.settimeout(HANDSHAKE_TIMEOUT)
        nonce = auth.new_nonce()
        conn.sendall(encode_json({"op": "challenge", "nonce": nonce, "version": PROTOCOL_VERSION}))
        message = reader.read_json(deadline)
        if message is None:
            return False
        if message.get("op") != "auth" or not auth.verify(self._secret, nonce, message.get("mac")):
            log.warning("ipc: rejected a client that did not prove the secret")
            conn.sendall(
                encode_json({"ok": False, "error": "authentication failed", "kind": "Auth"})
            )
            return False
        conn.sendall(encode_json({"ok": True, "pid": os.getpid()}))
        conn.settimeout(None)
        return True

    def _request_loop(self, conn: transport.Stream, reader: FrameReader) -> None:
        while True:
            request = reader.read_json()
            if request is None:
                return
            op = request.get("op")
            if op == "attach":
                self._attach(conn, reader, request)
                return
            handler = self._ops.get(op) if isinstance(op, str) else None
            if handler is None:
                conn.sendall(
                    encode_json({"ok": False, "error": f"unknown op {op!r}", "kind": "UnknownOp"})
                )
                return
            try:
                reply = handler(request)
            except TrayError as exc:
                reply = {"ok": False, "error": str(exc), "kind": type(exc).__name__}
            except Exception as exc:
                log.exception("ipc: %s failed", op)
                reply = {"ok": False, "error": f"{op} failed: {exc}", "kind": "Internal"}
            conn.sendall(encode_json(reply))

    # requests ----------------------------------------------------------------------
    def _session(self, request: dict[str, Any]) -> Session:
        session_id = request.get("session")
        if session_id is not None:
            return self.host.get(str(session_id))
        session = self.host.active()
        if session is None:
            raise RequestError("no session is running; start one with `termwise shell`")
        return session

    def _active_id(self) -> str | None:
        active = self.host.active()
        return active.id if active is not None else None

    def _op_ping(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "pid": os.getpid()}

    def _op_sessions(self, request: dict[str, Any]) -> dict[str, Any]:
        active = self._active_id()
        reply: dict[str, Any] = {
            "ok": True,
            "active": active,
            "sessions": [session_info(s, active) for s in self.host.list()],
        }
        if self.notice:
            reply["notice"] = self.notice
        return reply

    def _op_create(self, request: dict[str, Any]) -> dict[str, Any]:
        env = request.get("env") or {}
        if not isinstance(env, dict):
            raise RequestError("env must be an object")
        session = self.host.create(
            shell=_opt_str(request, "shell"),
            cwd=_opt_str(request, "cwd"),
            rows=_opt_int(request, "rows"),
            cols=_opt_int(request, "cols"),
            env={k: str(v) for k, v in env.items() if k in CLIENT_ENV_KEYS},
        )
        return {"ok": True, "session": session_info(session, self._active_id())}

    def _op_context(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session(request)
        n = _opt_int(request, "blocks")
        blocks = session.blocks(n if n is not None else 5)
        reply = {
            "ok": True,
            "session": session_info(session, self._active_id()),
            "blocks": [block_json(b) for b in blocks],
            "has_marks": session.has_marks,
            "screen_text": session.screen_text(),
            "os_name": os_name(),
        }
        if request.get("rules") is True:
            variables = request.get("env")
            if isinstance(variables, dict) and all(isinstance(v, str) for v in variables.values()):
                reply["rules"] = _instant_rules(session, blocks, reply["screen_text"], variables)
        return reply

    def _op_send(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session(request)
        text = request.get("text")
        if not isinstance(text, str):
            raise RequestError("text must be a string")
        session.send_text(text, enter=bool(request.get("enter")))
        self.host.set_active(session.id)
        return {"ok": True, "session": session.id}

    def _op_type(self, request: dict[str, Any]) -> dict[str, Any]:
        """Replace the prompt's pending text by `text` (no Enter); refusals are errors."""
        session = self._session(request)
        text = request.get("text")
        if not isinstance(text, str):
            raise RequestError("text must be a string")
        session.type_command(text)
        self.host.set_active(session.id)
        return {"ok": True, "session": session.id}

    def _op_run(self, request: dict[str, Any]) -> dict[str, Any]:
        """Replace the line by `text` and press Enter once the shell confirmed it holds
        exactly that; `ran` false with a `reason` otherwise."""
        session = self._session(request)
        text = request.get("text")
        if not isinstance(text, str):
            raise RequestError("text must be a string")
        timeout = request.get("timeout", RUN_CHECK_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise RequestError("timeout must be a number")
        outcome = session.run_command(text, timeout=min(max(float(timeout), 0.1), MAX_RUN_CHECK))
        if outcome.ran:
            self.host.set_active(session.id)
        return {"ok": True, "session": session.id, "ran": outcome.ran, "reason": outcome.reason}

    def _op_notice(self, request: dict[str, Any]) -> dict[str, Any]:
        """Show one line from Termwise in the session's attached terminals (not typed)."""
        session = self._session(request)
        text = request.get("text")
        if not isinstance(text, str) or len(text) > MAX_NOTICE:
            raise RequestError(f"text must be a string of at most {MAX_NOTICE} characters")
        session.show_notice(text)
        return {"ok": True, "session": session.id}

    def _op_kill(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session(request)
        self.host.kill(session.id)
        return {"ok": True, "session": session.id, "exit_code": session.exit_code}

    def _op_wait_block(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session(request)
        after = _opt_int(request, "after_index")
        timeout = _timeout(request, "timeout", 10.0)
        block = session.wait_for_block(-1 if after is None else after, timeout)
        return {"ok": True, "block": block_json(block) if block is not None else None}

    # attach ------------------------------------------------------------------------
    def _attach(self, conn: transport.Stream, reader: FrameReader, request: dict[str, Any]) -> None:
        try:
            session = self._session(request)
            if not session.alive:
                raise RequestError(
                    f"session {session.id} has ended (exit code {session.exit_code})"
                )
        except TrayError as exc:
            conn.sendall(encode_json({"ok": False, "error": str(exc), "kind": type(exc).__name__}))
            return
        # Once the exit event is out (or the client is dropped), shut the connection so
        # the input loop below ends too.
        terminal = open_client_terminal(request.get("terminal"))
        sink = ClientSink(
            conn,
            on_drained=lambda: _shutdown(conn),
            on_dead=lambda: _shutdown(conn),
            stall_limit=self.stall_limit,
            terminal=terminal,
        )
        keys = self._terminal_keys(conn, request, session, sink) if terminal is not None else None
        sink.push_json(
            {
                "ok": True,
                "session": session_info(session, self._active_id()),
                "keys": keys is not None,
            }
        )

        def ended(code: int | None) -> None:
            sink.push_json({"event": "exit", "code": code})
            sink.finish()

        try:
            detach = session.attach(
                sink.push, ended, rows=_opt_int(request, "rows"), cols=_opt_int(request, "cols")
            )
        except SessionEnded:  # it ended between the check above and now
            if keys is not None:
                keys.stop()
            ended(session.exit_code)
            sink.wait_done()
            return
        log.info("ipc: client attached to session %s", session.id)
        forget = self.host.attach_window(session.id, client_window(request))
        if keys is not None:
            keys.start()
        gone = True
        try:
            gone = self._relay_input(reader, session, sink)
        finally:
            if keys is not None:
                keys.stop()  # before anything else: no key of the terminal's next owner
                gone = gone and not keys.detached
            forget()
            detach()
            sink.finish()  # also when the connection broke: the writer thread must end
            log.info("ipc: client detached from session %s", session.id)
        if gone:
            # The client went away without detaching: what is queued must not reach the
            # terminal it left (its shell may be back at the prompt there).
            sink.abort()
        # Queued output and the exit event reach the client before the connection closes.
        sink.wait_done()

    def _terminal_keys(
        self, conn: transport.Stream, request: dict[str, Any], session: Session, sink: ClientSink
    ) -> TerminalKeys | None:
        """Keys read straight from the client's terminal, when it asks (its input is the
        terminal its output goes to) and the terminal opens."""
        # Linux only: macOS's poll() has not always taken terminals, and this path is
        # tested on Linux; elsewhere the client carries the keys, as it always did.
        if request.get("keys") is not True or sys.platform != "linux":
            return None
        fd = open_client_terminal(request.get("terminal"), read=True)
        if fd is None:
            return None
        from termwise.tray.ipc.client_keys import TerminalKeys

        host = self.host

        def typed(data: bytes) -> None:
            try:
                session.write(data)
            except SessionEnded:
                return  # keys typed while the shell exits go nowhere
            host.set_active(session.id)

        def detach() -> None:
            sink.push_json({"event": "detached"})
            sink.finish()  # output read after this would reach a terminal the client left

        return TerminalKeys(fd, conn.fileno(), typed, detach)  # type: ignore[attr-defined]

    def _relay_input(self, reader: FrameReader, session: Session, sink: ClientSink) -> bool:
        """Keys and requests from an attached client until it detaches (False) or the
        connection ends (True)."""
        host = self.host
        while True:
            frame = reader.read()
            if frame is None or sink.dead:
                return frame is None
            kind, payload = frame
            if kind == KIND_DATA:
                try:
                    session.write(payload)
                except SessionEnded:
                    # Keys typed while the shell exits go nowhere; the output still
                    # queued and the exit event are on their way to the client.
                    continue
                host.set_active(session.id)
                continue
            assert kind == KIND_JSON
            message = decode_json(payload)
            op = message.get("op")
            if op == "resize":
                rows, cols = _opt_int(message, "rows"), _opt_int(message, "cols")
                if rows and cols:
                    session.resize(rows, cols)
            elif op == "detach":
                sink.push_json({"event": "detached"})
                # Output read after this would reach a terminal the client has left.
                sink.finish()
                return False
            else:
                raise ProtocolError(f"unknown op {op!r} on an attached connection")


def client_window(request: dict[str, Any]) -> ClientWindow:
    """What an attach request says about the client's terminal window (bad values ignored)."""
    window = request.get("window")
    if not isinstance(window, dict):
        return ClientWindow()
    values = {k: window.get(k) for k in ("pid", "console_window")}
    clean = {
        k: v for k, v in values.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0
    }
    return ClientWindow(pid=clean.get("pid"), console_window=clean.get("console_window"))


def _opt_str(request: dict[str, Any], key: str) -> str | None:
    value = request.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError(f"{key} must be a string")
    return value


def _opt_int(request: dict[str, Any], key: str) -> int | None:
    value = request.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{key} must be an integer")
    return value


def _timeout(request: dict[str, Any], key: str, default: float) -> float:
    """A finite, non-negative number of seconds, at most MAX_WAIT (NaN and ∞ are refused)."""
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"{key} must be a number of seconds")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise RequestError(f"{key} must be a finite number of seconds, 0 or more (got {value})")
    return min(seconds, MAX_WAIT)


def _try_send(conn: transport.Stream, message: dict[str, Any]) -> None:
    try:
        conn.sendall(encode_json(message))
    except OSError:
        pass


def _reply_and_close(conn: transport.Stream, message: dict[str, Any]) -> None:
    _try_send(conn, message)
    _hard_close(conn)


def _shutdown(conn: transport.Stream) -> None:
    """Wake any thread blocked on the connection (sent data is still delivered)."""
    if isinstance(conn, socket.socket):
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    else:
        conn.close()


def _hard_close(conn: transport.Stream) -> None:
    """Close a connection and wake any thread blocked on it."""
    _shutdown(conn)
    try:
        conn.close()
    except OSError:
        pass
