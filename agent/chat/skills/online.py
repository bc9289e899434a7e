"""Skills that reach out: weather (an HTTP service from config) and email (SMTP, always asks)."""

from __future__ import annotations

import json
import smtplib
import ssl
import urllib.error
import urllib.parse
import urllib.request
from email.message import EmailMessage
from typing import Any

from termwise.agent.chat.skills.base import Skill, SkillContext, SkillError, arg_str, cap, params

HTTP_TIMEOUT = 10.0
SMTP_TIMEOUT = 20.0
MAX_WEATHER_BYTES = 64_000


def weather_enabled(ctx: SkillContext) -> bool:
    return bool(ctx.config.skills.weather_url.strip())


def email_enabled(ctx: SkillContext) -> bool:
    cfg = ctx.config.skills.email
    return bool(cfg.host.strip() and cfg.sender.strip())


def weather(args: dict[str, Any], ctx: SkillContext) -> str:
    if not weather_enabled(ctx):
        raise SkillError("the weather skill is off: set skills.weather_url in the config")
    location = arg_str(args, "location").strip()
    if not location:
        raise SkillError("no location given")
    template = ctx.config.skills.weather_url
    url = template.replace("{location}", urllib.parse.quote(location))
    if url.split(":", 1)[0].lower() not in ("http", "https"):
        raise SkillError(f"skills.weather_url must be an http(s) address, not {template!r}")
    request = urllib.request.Request(url, headers={"User-Agent": "termwise"})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as resp:
            body = resp.read(MAX_WEATHER_BYTES)
    except urllib.error.HTTPError as exc:
        raise SkillError(f"the weather service answered {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SkillError(f"the weather service could not be reached: {reason}") from exc
    text = body.decode("utf-8", errors="replace")
    try:
        return json.dumps(json.loads(text), ensure_ascii=False)[:4000]
    except ValueError:
        return cap(text, 4000)


def email(args: dict[str, Any], ctx: SkillContext) -> str:
    cfg = ctx.config.skills.email
    if not email_enabled(ctx):
        raise SkillError("the email skill is off: set skills.email.host and sender in the config")
    to = arg_str(args, "to").strip()
    subject = arg_str(args, "subject", "").strip()
    body = arg_str(args, "body")
    if "@" not in to or any(c in to for c in "\r\n"):
        raise SkillError(f"{to!r} is not an email address")
    if any(c in subject for c in "\r\n"):
        raise SkillError("the subject must be one line")
    question = (
        f"Send this email?\n  From: {cfg.sender}\n  To: {to}\n  Subject: {subject}\n\n{body}\n"
    )
    if not ctx.confirm(question):
        return "not sent: the user declined to send this email"
    message = EmailMessage()
    message["From"] = cfg.sender
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    try:
        with smtplib.SMTP(cfg.host, cfg.port, timeout=SMTP_TIMEOUT) as smtp:
            if cfg.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if cfg.username:
                smtp.login(cfg.username, _smtp_password(ctx))
            smtp.send_message(message)
    except smtplib.SMTPException as exc:
        raise SkillError(f"the mail server refused the email: {exc}") from exc
    except OSError as exc:
        raise SkillError(
            f"could not reach the mail server {cfg.host}:{cfg.port}: {exc.strerror or exc}"
        ) from exc
    return f"sent to {to}"


def _smtp_password(ctx: SkillContext) -> str:
    from termwise.agent.llm.keys import get_key

    password, _ = get_key("smtp", "TERMWISE_SMTP_PASSWORD", ctx.env)
    if not password:
        raise SkillError(
            "no SMTP password: store it with the keyring (service termwise, user smtp) "
            "or set TERMWISE_SMTP_PASSWORD"
        )
    return password


ONLINE_SKILLS = (
    Skill(
        "weather",
        "Current weather for a place.",
        params(("location",), location=("string", "city or place name")),
        weather,
    ),
    Skill(
        "email",
        "Send an email (the user is always asked to confirm first).",
        params(
            ("to", "subject", "body"),
            to=("string", "recipient address"),
            subject=("string", "one-line subject"),
            body=("string", "plain-text body"),
        ),
        email,
    ),
)
