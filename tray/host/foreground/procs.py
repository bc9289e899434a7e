"""Process ancestry from /proc (Linux); elsewhere a process is only its own ancestor."""

from __future__ import annotations

MAX_DEPTH = 64  # a guard against a cycle from a pid reused mid-walk


def parent_pid(pid: int) -> int | None:
    """The parent of `pid`, or None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def ancestry(pid: int) -> tuple[int, ...]:
    """`pid`, its parent, grandparent … up to (not including) pid 0."""
    chain = [pid]
    current = pid
    for _ in range(MAX_DEPTH):
        parent = parent_pid(current)
        if not parent or parent in chain:
            break
        chain.append(parent)
        current = parent
    return tuple(chain)
