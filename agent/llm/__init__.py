"""Model access: one protocol, presets for OpenAI-compatible providers, per-task routing."""
