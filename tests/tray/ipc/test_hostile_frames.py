"""IPC frames from any peer: the decoder only ever raises ProtocolError, and holds no more than it was sent."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from termwise.tray.ipc.protocol import (
    HEADER,
    KIND_DATA,
    KIND_JSON,
    FrameDecoder,
    ProtocolError,
    decode_json,
)

_JSONISH = st.sampled_from(
    [
        b"{}",
        b'{"op":"ping"}',
        b"[" * 5000,
        b'{"a":' * 3000,
        b"\xff\xfe",
        b"null",
        b'"x"',
        b"1e999999",
    ]
)
_FRAME = st.builds(
    lambda kind, body: HEADER.pack(len(body), kind) + body,
    st.sampled_from([KIND_JSON, KIND_DATA, 0, 3, 255]),
    st.one_of(_JSONISH, st.binary(max_size=64)),
)
_STREAM = st.lists(st.one_of(_FRAME, st.binary(max_size=16)), max_size=20).map(b"".join)


@given(_STREAM, st.lists(st.integers(min_value=1, max_value=50), max_size=10))
def test_the_decoder_raises_only_protocol_errors_at_any_split(data: bytes, cuts: list[int]) -> None:
    decoder = FrameDecoder(max_size=4096)
    pos = 0
    try:
        for cut in [*cuts, len(data)]:
            decoder.feed(data[pos : pos + cut])
            pos += cut
            for kind, payload in decoder.frames():
                assert len(payload) <= 4096
                if kind == KIND_JSON:
                    try:
                        assert isinstance(decode_json(payload), dict)
                    except ProtocolError:
                        pass
    except ProtocolError:
        return
    assert decoder.pending <= len(data)
