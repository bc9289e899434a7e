"""The loopback server itself, driven through the real `openai` SDK."""

from __future__ import annotations

import json

import openai
import pytest

from tests.support.llm_server import LlmServer, Reply


def _client(server: LlmServer, **kw: object) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, **kw)  # type: ignore[arg-type]


def test_stream_splits_text_into_deltas_of_the_chosen_size(llm_server: LlmServer) -> None:
    """A streamed answer arrives as real chat.completion.chunk deltas that join to the text."""
    text = '{"command": "git push -u origin main"}\n'
    llm_server.reply(text, chunk_size=5)
    stream = _client(llm_server).chat.completions.create(
        model="test", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    pieces = [
        c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content
    ]
    assert "".join(pieces) == text
    assert all(len(p) <= 5 for p in pieces) and len(pieces) == -(-len(text) // 5)
    assert llm_server.requests[0]["messages"][0]["content"] == "hi"


def test_non_streaming_and_models(llm_server: LlmServer) -> None:
    """The non-streaming answer and the model list have the shapes the SDK parses."""
    llm_server.reply("hello there")
    client = _client(llm_server)
    done = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert done.choices[0].message.content == "hello there"
    assert [m.id for m in client.models.list()] == ["test", "test-small"]


def test_tool_call_deltas_reassemble(llm_server: LlmServer) -> None:
    """Tool-call arguments streamed in pieces join into the JSON the script named."""
    args = json.dumps({"path": "/tmp/x", "n": 3})
    llm_server.reply(tool_calls=[{"name": "read_file", "arguments": args}], chunk_size=4)
    stream = _client(llm_server).chat.completions.create(
        model="test", messages=[{"role": "user", "content": "x"}], stream=True
    )
    name, joined, finish = "", "", None
    for c in stream:
        ch = c.choices[0]
        for tc in ch.delta.tool_calls or []:
            assert tc.function is not None
            name = name or (tc.function.name or "")
            joined += tc.function.arguments or ""
        finish = ch.finish_reason or finish
    assert (name, json.loads(joined), finish) == (
        "read_file",
        {"path": "/tmp/x", "n": 3},
        "tool_calls",
    )


def test_error_statuses_reach_the_sdk(llm_server: LlmServer) -> None:
    """429 carries Retry-After and 500 its message, as the SDK's typed errors."""
    llm_server.reply(status=429, headers={"Retry-After": "7"}, error_message="slow down")
    llm_server.reply(status=500, error_message="boom")
    client = _client(llm_server)
    with pytest.raises(openai.RateLimitError) as rate:
        client.chat.completions.create(model="t", messages=[{"role": "user", "content": "x"}])
    assert rate.value.response.headers["retry-after"] == "7"
    with pytest.raises(openai.InternalServerError, match="boom"):
        client.chat.completions.create(model="t", messages=[{"role": "user", "content": "x"}])


def test_faults_cut_invalid_and_stall(llm_server: LlmServer) -> None:
    """A cut connection, a non-JSON chunk and a stall each break the stream after partial text."""
    client = _client(llm_server, timeout=openai.Timeout(5.0, read=0.5))
    msgs = [{"role": "user", "content": "x"}]

    def consume() -> str:
        got = ""
        stream = client.chat.completions.create(model="t", messages=msgs, stream=True)  # type: ignore[arg-type]
        try:
            for c in stream:
                got += c.choices[0].delta.content or "" if c.choices else ""  # type: ignore[union-attr]
        except Exception as exc:
            return f"{got}|{type(exc).__name__}"
        return got

    llm_server.reply("abcdefgh", chunk_size=2, cut_after=2)
    assert consume() == "abcd|APIConnectionError"
    llm_server.reply("abcdefgh", chunk_size=2, invalid_after=1)
    assert consume() == "ab|JSONDecodeError"
    llm_server.reply("abcdefgh", chunk_size=2, stall_after=3)
    assert consume() == "abcdef|APITimeoutError"


def test_client_closing_a_stream_is_seen(llm_server: LlmServer) -> None:
    """Closing a stream early shows up in wait_disconnect; a complete one does not."""
    client = _client(llm_server)
    llm_server.reply("abc", chunk_size=1)
    list(
        client.chat.completions.create(
            model="t", messages=[{"role": "user", "content": "x"}], stream=True
        )
    )
    assert not llm_server.wait_disconnect(0.3)
    llm_server.reply("abcdefgh", chunk_size=1, stall_after=2)
    stream = client.chat.completions.create(
        model="t", messages=[{"role": "user", "content": "x"}], stream=True
    )
    next(iter(stream))
    stream.close()
    assert llm_server.wait_disconnect(5)


def test_responder_routes_by_content(llm_server: LlmServer) -> None:
    """A responder picks the answer from the request body."""
    llm_server.responder = lambda body: Reply(text="risk" if "risk" in str(body) else "plain")
    client = _client(llm_server)
    a = client.chat.completions.create(model="t", messages=[{"role": "user", "content": "risk?"}])
    b = client.chat.completions.create(model="t", messages=[{"role": "user", "content": "hi"}])
    assert (a.choices[0].message.content, b.choices[0].message.content) == ("risk", "plain")


def test_reply_shapes_are_accepted(llm_server: LlmServer) -> None:
    """A responder may return plain text or a dict; tool calls may use the OpenAI shape."""
    llm_server.responder = lambda body: "plain text" if body["model"] == "a" else None
    llm_server.reply(tool_calls=[{"id": "c1", "function": {"name": "f", "arguments": {"x": 1}}}])
    client = _client(llm_server)
    a = client.chat.completions.create(model="a", messages=[{"role": "user", "content": "x"}])
    assert a.choices[0].message.content == "plain text"
    b = client.chat.completions.create(model="b", messages=[{"role": "user", "content": "x"}])
    call = (b.choices[0].message.tool_calls or [])[0]
    fn = call.function  # type: ignore[union-attr]
    assert (call.id, fn.name, json.loads(fn.arguments)) == ("c1", "f", {"x": 1})
