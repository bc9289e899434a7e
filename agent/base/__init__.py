"""The kernel: paths, config and its schema, types, events, errors, cancel (imports nothing else of ours)."""
