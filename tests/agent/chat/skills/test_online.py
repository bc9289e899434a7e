"""weather against a loopback HTTP service; email through a loopback SMTP server, only if confirmed."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import keyring
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.chat.skills.registry import offered_skills, run_skill


class _Weather(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if "Atlantis" in self.path:
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps({"path": self.path, "temp_c": 21, "sky": "clear"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def weather_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Weather)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/weather?q={{location}}"
    server.shutdown()
    server.server_close()


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], str]] = []

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if address.startswith("nobody@"):
            return "550 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(
            (envelope.mail_from, list(envelope.rcpt_tos), envelope.content.decode("utf-8"))
        )
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[_Inbox, int]]:
    inbox = _Inbox()

    def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"me", b"pw")
        return AuthResult(success=ok)

    port = _free_port()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, authenticator=check, auth_require_tls=False
    )
    controller.start()
    yield inbox, port
    controller.stop()


def test_weather_is_off_until_configured(ctx: SkillContext) -> None:
    """Without skills.weather_url the skill is not offered, and a call says how to turn it on."""
    assert "weather" not in [s.name for s in offered_skills(ctx)]
    result = run_skill("weather", {"location": "Oslo"}, ctx)
    assert not result.ok and "skills.weather_url" in result.text


def test_weather_asks_the_configured_service(ctx: SkillContext, weather_url: str) -> None:
    """The location is put into the URL template and the service's answer comes back."""
    ctx.config.skills.weather_url = weather_url
    assert "weather" in [s.name for s in offered_skills(ctx)]
    result = run_skill("weather", {"location": "San José"}, ctx)
    assert result.ok
    data = json.loads(result.text)
    assert data["temp_c"] == 21 and data["path"] == "/weather?q=San%20Jos%C3%A9"
    missing = run_skill("weather", {"location": "Atlantis"}, ctx)
    assert not missing.ok and "answered 404" in missing.text


def test_weather_service_down_is_a_message(ctx: SkillContext) -> None:
    """A service that does not answer gives a clear message, not an exception."""
    ctx.config.skills.weather_url = f"http://127.0.0.1:{_free_port()}/w?q={{location}}"
    result = run_skill("weather", {"location": "Oslo"}, ctx)
    assert not result.ok and "could not be reached" in result.text


def _email_ctx(ctx: SkillContext, port: int, answers: list[bool], asked: list[str]) -> None:
    cfg = ctx.config.skills.email
    cfg.host, cfg.port, cfg.sender, cfg.starttls, cfg.username = (
        "127.0.0.1",
        port,
        "me@example.test",
        False,
        "me",
    )
    keyring.set_password("termwise", "smtp", "pw")

    def confirm(question: str) -> bool:
        asked.append(question)
        return answers.pop(0)

    ctx.confirm = confirm


def test_email_is_sent_only_after_the_user_confirms(
    ctx: SkillContext, smtp: tuple[_Inbox, int]
) -> None:
    """The user sees the whole email first; "no" sends nothing, "yes" delivers it over SMTP."""
    inbox, port = smtp
    asked: list[str] = []
    _email_ctx(ctx, port, [False, True], asked)
    assert "email" in [s.name for s in offered_skills(ctx)]
    args = {"to": "friend@example.test", "subject": "Build", "body": "It passes now."}

    declined = run_skill("email", args, ctx)
    assert declined.ok and "declined" in declined.text
    assert inbox.messages == []
    assert "To: friend@example.test" in asked[0] and "It passes now." in asked[0]

    sent = run_skill("email", args, ctx)
    assert sent.ok and sent.text == "sent to friend@example.test"
    [(sender, rcpts, content)] = inbox.messages
    assert sender == "me@example.test" and rcpts == ["friend@example.test"]
    assert "Subject: Build" in content and "It passes now." in content


def test_email_failures_are_messages(ctx: SkillContext, smtp: tuple[_Inbox, int]) -> None:
    """A rejected recipient, a missing password, a bad address or no config are reported."""
    inbox, port = smtp
    assert "skill is off" in run_skill("email", {"to": "a@b", "body": "x"}, ctx).text
    _email_ctx(ctx, port, [True, True], [])
    result = run_skill("email", {"to": "nobody@b.test", "subject": "s", "body": "x"}, ctx)
    assert not result.ok and "refused" in result.text and "no such mailbox" in result.text
    keyring.delete_password("termwise", "smtp")
    result = run_skill("email", {"to": "a@b.test", "subject": "s", "body": "x"}, ctx)
    assert not result.ok and "no SMTP password" in result.text
    assert "not an email address" in run_skill("email", {"to": "nobody", "body": "x"}, ctx).text
    assert inbox.messages == []
