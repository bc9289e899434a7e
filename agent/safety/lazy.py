"""Regular expressions (and fnmatch globs) compiled when first matched: a command consults a
few of the rule files' ~200 patterns, so `termwise check` compiles only those."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import translate

from termwise.agent.base.record import Record


class LazyPattern:
    """A regular expression (or a list of fnmatch globs) compiled when first matched."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str | tuple[str, ...], flags: int = 0) -> None:
        self._source = source  # a tuple: globs, each already folded, "=x" for a literal x
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @classmethod
    def globs(cls, patterns: tuple[str, ...]) -> LazyPattern:
        return cls(patterns, re.DOTALL)

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            source = self._source
            if isinstance(source, tuple):
                source = (
                    "|".join(
                        f"(?:{re.escape(p[1:])}\\Z)" if p.startswith("=") else f"(?:{translate(p)})"
                        for p in source
                    )
                    or r"(?!)"
                )
            compiled = self._compiled = re.compile(source, self._flags)
        return compiled

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r})"


def compile_all(obj: object, seen: set[int] | None = None) -> None:
    """Compile every LazyPattern reachable from `obj` (records, dicts, lists, tuples)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, LazyPattern):
        obj.compiled  # noqa: B018 (compiling is the point)
    elif isinstance(obj, Record):
        for name in obj.__slots__:
            compile_all(getattr(obj, name), seen)
    elif isinstance(obj, dict):
        for value in obj.values():
            compile_all(value, seen)
    elif isinstance(obj, list | tuple):
        for item in obj:
            compile_all(item, seen)
