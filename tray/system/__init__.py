"""OS glue: autostart, terminal launching, logs, spawn flags, doctor, smoke test."""
