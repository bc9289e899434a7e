"""Framing: whole frames come out however the bytes are split; bad frames are refused."""

from __future__ import annotations

import struct

import pytest
from termwise.tray.ipc.protocol import (
    HEADER,
    KIND_DATA,
    KIND_JSON,
    FrameDecoder,
    ProtocolError,
    decode_json,
    drop_written,
    encode_data,
    encode_json,
    first_bytes,
)


def test_frames_survive_any_split() -> None:
    """Frames cut at every possible byte boundary still decode to the same messages."""
    stream = (
        encode_json({"op": "ping", "n": 1}) + encode_data(b"\x00\xffraw") + encode_json({"é": "ü"})
    )
    for cut in range(len(stream) + 1):
        decoder = FrameDecoder(1024)
        frames = []
        for part in (stream[:cut], stream[cut:]):
            decoder.feed(part)
            frames.extend(decoder.frames())
        assert frames == [
            (KIND_JSON, b'{"op":"ping","n":1}'),
            (KIND_DATA, b"\x00\xffraw"),
            (KIND_JSON, '{"é":"ü"}'.encode()),
        ]
        assert decoder.pending == 0


def test_oversized_frame_is_refused_before_reading_it() -> None:
    """A header announcing more than the limit is an error at once (no huge buffering)."""
    decoder = FrameDecoder(100)
    decoder.feed(HEADER.pack(101, KIND_JSON))
    with pytest.raises(ProtocolError, match="over the 100 limit"):
        list(decoder.frames())


def test_unknown_kind_is_refused() -> None:
    """A frame kind the protocol does not know is an error."""
    decoder = FrameDecoder(100)
    decoder.feed(struct.pack(">IB", 2, 9) + b"{}")
    with pytest.raises(ProtocolError, match="unknown frame kind"):
        list(decoder.frames())


@pytest.mark.parametrize("payload", [b"{not json", b"\xff\xfe", b"[1, 2]", b'"text"'])
def test_json_payload_must_be_one_object(payload: bytes) -> None:
    """Malformed JSON, bad UTF-8 and non-object JSON are all protocol errors."""
    with pytest.raises(ProtocolError):
        decode_json(payload)


def test_endpoint_names() -> None:
    """POSIX: a socket in the runtime folder; Windows: a pipe name per user and per folder."""
    from pathlib import Path

    from termwise.tray.ipc.transport import endpoint

    run = Path("/run/user/1000/termwise")  # (spelt with backslashes when tests run on Windows)
    assert endpoint(run, "linux") == str(run / "host.sock")
    a = endpoint(Path(r"C:\Users\ann\AppData\Local\termwise"), "win32", "ann")
    b = endpoint(Path(r"C:\Users\bob\AppData\Local\termwise"), "win32", "bob")
    c = endpoint(Path(r"D:\tw-home\run"), "win32", "ann")
    assert a.startswith("\\\\.\\pipe\\termwise-ann-") and b.startswith("\\\\.\\pipe\\termwise-bob-")
    assert len({a, b, c}) == 3
    assert a == endpoint(Path(r"c:\users\ann\appdata\local\TERMWISE"), "win32", "ann")  # case-blind


def test_a_vectored_write_taken_in_pieces_keeps_every_byte_in_order() -> None:
    """Whatever a terminal takes per write (bounded by first_bytes), what remains is the
    rest of the output, in order, and nothing is written twice."""
    parts: list[bytes] = [b"a" * 5000, b"b" * 3, b"c" * 70000, b"d"]
    expected = b"".join(parts)
    out = bytearray()
    for taken_size in (4096, 1, 65536, 7, 100000):
        if not parts:
            break
        chunk = b"".join(first_bytes(parts, 65536))
        assert len(chunk) <= 65536
        took = chunk[:taken_size]
        out += took
        drop_written(parts, len(took))
    out += b"".join(parts)
    assert bytes(out) == expected


def test_first_bytes_stops_at_the_limit_exactly() -> None:
    parts = [b"xy", b"zw"]
    assert [bytes(p) for p in first_bytes(parts, 2)] == [b"xy"]
    assert [bytes(p) for p in first_bytes(parts, 3)] == [b"xy", b"z"]
    assert [bytes(p) for p in first_bytes(parts, 10)] == [b"xy", b"zw"]
