"""Errors of the agent package, written for users."""


class AgentError(Exception):
    """Base of every error the agent raises; the message is shown to the user as is."""


class ConfigError(AgentError):
    """The configuration could not be used as written."""
