"""Errors of the tray process and session host, written for users."""


class TrayError(Exception):
    """Base of every error the tray, session host and command line raise on purpose."""

    exit_code = 1


class HostUnavailable(TrayError):
    """No session host answers (message says how to start one)."""

    exit_code = 3
