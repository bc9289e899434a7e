"""A plain mutable record for the hot start-up path.

`termwise check` runs once per command a user types, so its start-up counts: importing
`dataclasses` (it pulls in `inspect`) and building each class costs it about 15 ms. The
safety check's types are NamedTuples when immutable and `Record` subclasses with a
hand-written `__init__` when they are filled in as parsing goes.
"""

from __future__ import annotations

from typing import Any


class Record:
    """Equality and repr over `__slots__`, as a dataclass gives them."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable: equal records may differ later

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"
