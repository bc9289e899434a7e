"""Errors of the tray process and session host, written for users."""


class TrayError(Exception):
    """Base of every error the tray, session host and command line raise on purpose."""

    exit_code = 1


class HostUnavailable(TrayError):
    """No session host answers (message says how to start one)."""

    exit_code = 3


class HostBusy(TrayError):
    """A host runs but refused a connection for now (too many at once)."""

    exit_code = 3
