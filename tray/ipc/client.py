"""HostClient: how other processes (CLI, attach client, tray) talk to the session host.

Standard library only, so the attach client stays small and starts fast.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from termwise.tray.errors import HostBusy, HostUnavailable, TrayError
from termwise.tray.host.errors import UnknownSession
from termwise.tray.ipc import auth, transport
from termwise.tray.ipc.protocol import (
    MAX_REPLY,
    PROTOCOL_VERSION,
    FrameReader,
    ProtocolError,
    encode_json,
)

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths
    from termwise.agent.base.types import RunOutcome

START_HINT = "start one with `termwise serve` (headless) or `termwise` (tray)"


class HostError(TrayError):
    """The host refused a request; the message is the host's, written for users."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind


class Channel:
    """One authenticated connection: JSON requests and replies, or an attached relay."""

    def __init__(self, stream: transport.Stream, reader: FrameReader) -> None:
        self.stream = stream
        self.reader = reader

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        self.stream.sendall(encode_json({"op": op, **fields}))
        reply = self.reader.read_json()
        if reply is None:
            raise HostUnavailable("the host closed the connection")
        return _checked(reply)

    def close(self) -> None:
        try:
            self.stream.close()
        except OSError:
            pass


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    if reply.get("ok"):
        return reply
    kind = str(reply.get("kind", ""))
    message = str(reply.get("error", "the host refused the request"))
    if kind == "UnknownSession":
        raise UnknownSession(message)
    if kind == "Busy":
        raise HostBusy(message)
    if kind == "Auth":
        raise HostUnavailable(
            "the host rejected our secret (is another user's host running?); "
            "restart it with `termwise serve`"
        )
    raise HostError(message, kind)


BUSY_RETRY = 3.0  # seconds a client keeps knocking while the host's handshake slots are full


def open_channel(paths: Paths, timeout: float = 5.0) -> Channel:
    """Connect and prove the secret; HostUnavailable when no host answers. A host that is
    busy (too many handshakes at once) is asked again for a moment before HostBusy."""
    deadline = time.monotonic() + min(timeout, BUSY_RETRY)
    pause = 0.02
    while True:
        try:
            return _open_once(paths, timeout)
        except HostBusy:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


def _open_once(paths: Paths, timeout: float) -> Channel:
    address = transport.endpoint(paths.runtime_dir)
    try:
        stream = transport.connect(address, timeout)
    except (FileNotFoundError, ConnectionRefusedError):
        raise HostUnavailable(f"no Termwise host is running; {START_HINT}") from None
    except OSError as exc:
        raise HostUnavailable(
            f"cannot reach the Termwise host at {address} ({exc}); {START_HINT}"
        ) from None
    try:
        stream.settimeout(timeout)
        reader = FrameReader(stream, MAX_REPLY)
        challenge = reader.read_json()
        if challenge is not None and challenge.get("kind") == "Busy":
            raise HostBusy(str(challenge.get("error") or "the Termwise host is busy"))
        if challenge is None or challenge.get("op") != "challenge":
            raise HostUnavailable(f"the Termwise host did not greet us; {START_HINT}")
        if challenge.get("version") != PROTOCOL_VERSION:
            raise HostUnavailable(
                f"the running host speaks protocol {challenge.get('version')}, this client "
                f"{PROTOCOL_VERSION}; restart the host (it is a different Termwise version)"
            )
        try:
            secret = auth.read_secret(paths.runtime_dir)
        except auth.SecretMissing:
            raise HostUnavailable(f"the host's secret file is missing; {START_HINT}") from None
        stream.sendall(
            encode_json({"op": "auth", "mac": auth.prove(secret, str(challenge.get("nonce", "")))})
        )
        reply = reader.read_json()
        if reply is None:
            raise HostUnavailable("the host closed the connection during the handshake")
        _checked(reply)
        stream.settimeout(None)
    except (OSError, ProtocolError) as exc:
        stream.close()
        raise HostUnavailable(f"the Termwise host did not answer ({exc}); {START_HINT}") from None
    except BaseException:
        stream.close()
        raise
    return Channel(stream, reader)


class ContextReply(list[dict[str, Any]]):
    """A session's latest blocks (a list, oldest first) plus what else the host knows."""

    def __init__(
        self,
        blocks: list[dict[str, Any]],
        *,
        session: dict[str, Any],
        has_marks: bool,
        screen_text: str,
        os_name: str,
        rules: object = None,
    ) -> None:
        super().__init__(blocks)
        self.session = session
        self.has_marks = has_marks
        self.screen_text = screen_text
        self.os_name = os_name
        self.rules = rules  # the host's rules tier as JSON, when asked for (unchecked)


class HostClient:
    """Request/reply access to the host, over one lazily opened connection."""

    def __init__(self, paths: Paths, *, timeout: float = 5.0) -> None:
        self.paths = paths
        self.timeout = timeout
        self._channel: Channel | None = None
        self._lock = threading.Lock()

    def _request(self, op: str, **fields: Any) -> dict[str, Any]:
        with self._lock:
            if self._channel is None:
                self._channel = open_channel(self.paths, self.timeout)
            try:
                return self._channel.request(op, **fields)
            except (OSError, ProtocolError) as exc:
                self._channel.close()
                self._channel = None
                raise HostUnavailable(f"lost the connection to the host ({exc})") from None
            except HostUnavailable:
                self._channel.close()
                self._channel = None
                raise

    def close(self) -> None:
        with self._lock:
            if self._channel is not None:
                self._channel.close()
                self._channel = None

    def __enter__(self) -> HostClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ping(self) -> int:
        """The host's pid."""
        return int(self._request("ping")["pid"])

    def sessions(self) -> list[dict[str, Any]]:
        return list(self.sessions_reply()["sessions"])

    def sessions_reply(self) -> dict[str, Any]:
        """The sessions plus the host's `notice` (e.g. that a crashed host lost sessions)."""
        return self._request("sessions")

    def create(
        self,
        shell: str | None = None,
        cwd: str | None = None,
        *,
        rows: int | None = None,
        cols: int | None = None,
        env: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        reply = self._request("create", shell=shell, cwd=cwd, rows=rows, cols=cols, env=env or {})
        return dict(reply["session"])

    def context(
        self, session_id: str | None = None, blocks: int = 5, *, rules: bool = False
    ) -> ContextReply:
        """The latest blocks (oldest first, as CommandBlock.to_json plus "index"), with
        session info; `rules` also asks for the rules tier of a fix (`ContextReply.rules`)."""
        fields: dict[str, Any] = {"session": session_id, "blocks": blocks}
        if rules:
            from termwise.agent.suggest.wire import rules_environment

            fields["rules"] = True
            fields["env"] = rules_environment()
        reply = self._request("context", **fields)
        return ContextReply(
            reply.get("blocks", []),
            session=dict(reply.get("session") or {}),
            has_marks=bool(reply.get("has_marks")),
            screen_text=str(reply.get("screen_text", "")),
            os_name=str(reply.get("os_name", "")),
            rules=reply.get("rules"),
        )

    def send(self, session_id: str | None, text: str, enter: bool = False) -> str:
        """Type text into a session (the active one when None); returns its id."""
        return str(self._request("send", session=session_id, text=text, enter=enter)["session"])

    def type_command(self, session_id: str | None, text: str) -> str:
        """Replace the prompt's pending text by `text` without Enter; returns the session id.

        Raises HostError (kind "CommandRefused") when the session cannot take it.
        """
        return str(self._request("type", session=session_id, text=text)["session"])

    def run_command(self, session_id: str | None, text: str, timeout: float = 2.0) -> RunOutcome:
        """Replace the line by `text` and press Enter only if the shell reports exactly it."""
        # Imported here: the kernel's types load dataclasses, which `context` never needs.
        from termwise.agent.base.types import RunOutcome

        reply = self._request("run", session=session_id, text=text, timeout=timeout)
        return RunOutcome(bool(reply.get("ran")), str(reply.get("reason", "")))

    def notice(self, session_id: str | None, text: str) -> None:
        """Show one line from Termwise in the session's attached terminals."""
        self._request("notice", session=session_id, text=text)

    def kill(self, session_id: str) -> None:
        self._request("kill", session=session_id)

    def wait_block(
        self, session_id: str | None, after_index: int, timeout: float
    ) -> dict[str, Any] | None:
        """The first block finished after `after_index`, or None at the timeout."""
        reply = self._request(
            "wait_block", session=session_id, after_index=after_index, timeout=timeout
        )
        block = reply.get("block")
        return dict(block) if block is not None else None
