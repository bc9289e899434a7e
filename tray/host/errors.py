"""Errors of the session host, written for users."""

from __future__ import annotations

from termwise.tray.errors import TrayError


class UnknownSession(TrayError):
    """No session has this id (the message lists the running ones)."""


class SessionEnded(TrayError):
    """The session's shell has exited."""


class SessionStartFailed(TrayError):
    """The shell could not be started (bad folder, binary that will not run …)."""


class CommandRefused(TrayError):
    """Termwise will not type this text into this session (the message says why)."""
