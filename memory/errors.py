"""Errors of the memory package, written for users."""


class MemoryStoreError(Exception):
    """Base of every error the memory package raises; the message is shown as is."""
