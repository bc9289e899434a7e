"""The detach chord of `termwise attach`: Ctrl+] then d leaves, Ctrl+] twice sends Ctrl+]."""

from __future__ import annotations

DETACH_PREFIX = 0x1D  # Ctrl+]
DETACH_KEYS = (ord("d"), ord("D"), 0x04)  # d, D, or Ctrl+D after the prefix
CHORD_HELP = "Ctrl+] then d detaches; Ctrl+] twice sends Ctrl+]"


class ChordFilter:
    """Finds the detach chord in typed bytes and passes everything else through."""

    def __init__(self) -> None:
        self._armed = False

    def feed(self, data: bytes) -> tuple[bytes, bool]:
        """(bytes to send to the session, whether the user asked to detach)."""
        if not self._armed and DETACH_PREFIX not in data:
            return data, False
        out = bytearray()
        for byte in data:
            if self._armed:
                self._armed = False
                if byte in DETACH_KEYS:
                    return bytes(out), True
                out.append(DETACH_PREFIX)
                if byte != DETACH_PREFIX:
                    out.append(byte)
            elif byte == DETACH_PREFIX:
                self._armed = True
            else:
                out.append(byte)
        return bytes(out), False
