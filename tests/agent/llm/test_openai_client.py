"""The real OpenAI client against the loopback server: streaming, retries, faults, cancel."""

from __future__ import annotations

import threading

import pytest
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config, ProviderConfig
from termwise.agent.llm.base import ChatDelta, LlmError
from termwise.agent.llm.factory import make_client
from termwise.agent.llm.openai_client import OpenAIClient
from termwise.agent.llm.routing import resolve_routes

from tests.support.llm_server import LlmServer

MSG = [{"role": "user", "content": "hello"}]


def _client(server: LlmServer, **kw: float) -> OpenAIClient:
    env = {"TERMWISE_BASE_URL": server.base_url, "TERMWISE_MODEL": "test", "TERMWISE_API_KEY": "x"}
    opts = {"connect_timeout": 2.0, "first_token_timeout": 5.0, "max_retries": 2} | kw
    return OpenAIClient(resolve_routes(Config(), env), **opts)  # type: ignore[arg-type]


def _collect(it: object) -> tuple[list[ChatDelta], LlmError | None]:
    got: list[ChatDelta] = []
    try:
        for d in it:  # type: ignore[attr-defined]
            got.append(d)
    except LlmError as exc:
        return got, exc
    return got, None


def test_stream_yields_text_in_order_with_task_settings(llm_server: LlmServer) -> None:
    """Deltas arrive in order and the request carries the task's model and temperature."""
    llm_server.reply("one two three four", chunk_size=3)
    deltas, err = _collect(_client(llm_server).stream_chat(MSG, task="deploy"))
    assert err is None
    assert "".join(d.text for d in deltas) == "one two three four"
    assert deltas[-1].finish_reason == "stop"
    body = llm_server.requests[0]
    assert (body["model"], body["temperature"], body["stream"]) == ("test", 0.2, True)


def test_429_with_retry_after_is_retried(llm_server: LlmServer) -> None:
    """A 429 answer is retried after its Retry-After and the second answer comes through."""
    llm_server.reply(status=429, headers={"Retry-After": "0.1"}, error_message="slow down")
    llm_server.reply("fine now")
    deltas, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is None and "".join(d.text for d in deltas) == "fine now"
    assert len(llm_server.requests) == 2


def test_retry_after_is_honoured_but_bounded() -> None:
    """Retry-After in seconds or as a date is used, capped by the client's bound."""
    client = OpenAIClient({}, max_retry_wait=5.0)
    assert client._backoff(0, "2") == 2.0
    assert client._backoff(0, "3600") == 5.0
    assert client._backoff(0, "Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert 0.5 <= client._backoff(0, None) <= 0.625


def test_500_gives_clear_error_after_bounded_retries(llm_server: LlmServer) -> None:
    """Persistent 500s end in one retryable error naming the status and the server message."""
    for _ in range(3):
        llm_server.reply(status=500, error_message="model overloaded", headers={"Retry-After": "0"})
    deltas, err = _collect(_client(llm_server, max_retries=2).stream_chat(MSG, task="suggest"))
    assert deltas == [] and err is not None
    assert "HTTP 500" in str(err) and "model overloaded" in str(err) and err.retryable
    assert len(llm_server.requests) == 3


def test_401_is_not_retried_and_points_to_set_key(llm_server: LlmServer) -> None:
    """A rejected key fails at once with the command that fixes it."""
    llm_server.reply(status=401, error_message="bad key")
    _, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is not None and not err.retryable and "set-key" in str(err)
    assert len(llm_server.requests) == 1


def test_stalled_stream_times_out_keeping_partial_text(llm_server: LlmServer) -> None:
    """A stream that stops sending ends in a timeout error after the text that did arrive."""
    llm_server.reply("abcdefgh", chunk_size=2, stall_after=2)
    deltas, err = _collect(
        _client(llm_server, first_token_timeout=0.5).stream_chat(MSG, task="suggest")
    )
    assert "".join(d.text for d in deltas) == "abcd"
    assert err is not None and "0.5s" in str(err)


def test_no_first_token_is_a_first_token_timeout(llm_server: LlmServer) -> None:
    """A server that sends headers but no token trips the first-token timeout."""
    llm_server.reply("late", delay=3)
    _, err = _collect(_client(llm_server, first_token_timeout=0.4).stream_chat(MSG, task="suggest"))
    assert err is not None and "first-token timeout" in str(err)


def test_cut_connection_and_invalid_json_are_errors_after_partial_text(
    llm_server: LlmServer,
) -> None:
    """A dropped connection or a non-JSON chunk ends the stream with a clear error, text kept."""
    client = _client(llm_server)
    llm_server.reply("abcdef", chunk_size=2, cut_after=2)
    deltas, err = _collect(client.stream_chat(MSG, task="suggest"))
    assert "".join(d.text for d in deltas) == "abcd" and err is not None
    assert "broke mid-answer" in str(err)
    llm_server.reply("abcdef", chunk_size=2, invalid_after=1)
    deltas, err = _collect(client.stream_chat(MSG, task="suggest"))
    assert "".join(d.text for d in deltas) == "ab" and err is not None
    assert "malformed" in str(err)


def test_cancel_closes_the_http_stream(llm_server: LlmServer) -> None:
    """Cancelling from another thread while a read blocks closes the connection; no error."""
    llm_server.reply("abcdefgh", chunk_size=2, stall_after=1)
    token = CancelToken()
    got: list[str] = []
    it = _client(llm_server, first_token_timeout=30).stream_chat(MSG, task="suggest", cancel=token)
    first = next(it)
    got.append(first.text)
    threading.Timer(0.2, token.cancel).start()
    rest = list(it)  # blocks on the stalled read until the cancel aborts it
    assert got == ["ab"] and rest == []
    assert llm_server.wait_disconnect(5)


def test_tool_call_pieces_and_complete(llm_server: LlmServer) -> None:
    """Tool-call argument pieces come out as ToolCallDelta; complete() returns the whole text."""
    llm_server.reply(
        tool_calls=[{"name": "weather", "arguments": '{"city": "Oslo"}'}], chunk_size=5
    )
    llm_server.reply("all at once")
    client = _client(llm_server)
    deltas = list(
        client.stream_chat(
            MSG,
            task="chat",
            tools=[
                {
                    "type": "function",
                    "function": {"name": "weather", "parameters": {"type": "object"}},
                }
            ],
        )
    )
    calls = [tc for d in deltas for tc in d.tool_calls]
    assert calls[0].name == "weather"
    assert "".join(tc.arguments for tc in calls) == '{"city": "Oslo"}'
    assert deltas[-1].finish_reason == "tool_calls"
    assert llm_server.requests[0]["tools"][0]["function"]["name"] == "weather"
    assert client.complete(MSG, task="safety") == "all at once"
    assert llm_server.requests[1]["temperature"] == 0.0


def test_missing_key_for_a_keyed_provider_is_a_clear_error() -> None:
    """A preset that needs a key and has none says how to set it, before any network."""
    config = Config(providers=[ProviderConfig(name="oa", preset="openai")])
    client = make_client(config, env={})
    assert client is not None
    with pytest.raises(LlmError, match="config set-key oa"):
        list(client.stream_chat(MSG, task="suggest"))


def test_make_client_offline_and_local_ollama(llm_server: LlmServer) -> None:
    """Nothing configured: None, unless a local Ollama answers, whose first model is used."""
    config = Config()
    assert make_client(config, env={}, ollama_url="http://127.0.0.1:9/v1") is None
    client = make_client(config, env={}, ollama_url=llm_server.base_url)
    assert client is not None
    llm_server.reply("hi from ollama")
    assert client.complete(MSG, task="suggest") == "hi from ollama"
    assert llm_server.requests[0]["model"] == "test"
    config.llm.probe_ollama = False
    assert make_client(config, env={}, ollama_url=llm_server.base_url) is None
