"""Readable Markdown memory of the user (no Qt, no network)."""
