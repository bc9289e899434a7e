"""Whitelisted skills the chat model may call: files, read-only commands, weather, email."""
