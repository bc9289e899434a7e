"""Suggestion turns: parse model answers into suggestions and run a turn as typed events."""
