"""Errors of the agent package, written for users."""


class AgentError(Exception):
    """Base of every error the agent raises; the message is shown to the user as is."""

    exit_code = 1  # what the command line exits with when this error ends it


class Unavailable(AgentError):
    """Something the request needs is not there (no session, no model configured)."""

    exit_code = 3


class ConfigError(AgentError):
    """The configuration could not be used as written."""
