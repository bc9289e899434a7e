"""Authenticated local IPC between the session host and its clients (stdlib only)."""
