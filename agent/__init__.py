"""The agent: model client, suggestions, rules, safety and deploy planning (no Qt)."""
