"""The real client against faulty servers: deadline, non-answers, Retry-After, schema, budgets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.base.config_schema import Config, ProviderConfig
from termwise.agent.llm.base import REPETITION, ChatDelta, Failure, LlmError
from termwise.agent.llm.limits import parse_retry_after
from termwise.agent.llm.openai_client import OpenAIClient
from termwise.agent.llm.routing import resolve_routes
from termwise.agent.llm.schemas import SUGGEST

from tests.support.llm_server import LlmServer

MSG = [{"role": "user", "content": "hello"}]


def _client(server: LlmServer, **kw: object) -> OpenAIClient:
    env = {"TERMWISE_BASE_URL": server.base_url, "TERMWISE_MODEL": "test", "TERMWISE_API_KEY": "x"}
    opts: dict[str, object] = {"connect_timeout": 2.0, "first_token_timeout": 5.0} | kw
    return OpenAIClient(resolve_routes(Config(), env), **opts)  # type: ignore[arg-type]


def _collect(it: object) -> tuple[list[ChatDelta], LlmError | None]:
    got: list[ChatDelta] = []
    try:
        for d in it:  # type: ignore[attr-defined]
            got.append(d)
    except LlmError as exc:
        return got, exc
    return got, None


def test_keepalive_comments_cannot_outlast_the_answer_deadline(llm_server: LlmServer) -> None:
    """A server sending SSE keep-alives but no answer is cut off at the deadline, named as such."""
    llm_server.reply("ls", stall_after=1, keepalive=0.1)
    deltas, err = _collect(
        _client(llm_server, answer_deadline=1.5).stream_chat(MSG, task="suggest")
    )
    assert "".join(d.text for d in deltas) == "ls"  # what came before stays
    assert err is not None and err.reason is Failure.DEADLINE
    assert "1.5 s" in str(err) and "answer deadline" in str(err)
    assert llm_server.keepalives_sent >= 3  # the idle timeout alone would never have fired
    assert llm_server.wait_disconnect(5)


def test_html_page_with_200_is_named_with_its_url(llm_server: LlmServer) -> None:
    """A proxy's HTML login page answered with 200 is called an HTML page, with the address."""
    page = "<!DOCTYPE html><html><head><title>Sign in · Corp Proxy</title></head><body></body>"
    for _ in range(2):
        llm_server.reply(body=page)
    client = _client(llm_server)
    _, err = _collect(client.stream_chat(MSG, task="suggest"))
    url = f"{llm_server.base_url}/chat/completions"
    assert err is not None and err.reason is Failure.NOT_AN_ANSWER
    assert url in str(err) and 'HTML page titled "Sign in · Corp Proxy"' in str(err)
    with pytest.raises(LlmError) as caught:
        client.complete(MSG, task="safety")
    assert caught.value.reason is Failure.NOT_AN_ANSWER and "HTML" in str(caught.value)


def test_plain_text_200_is_named_and_a_whole_json_answer_is_taken(llm_server: LlmServer) -> None:
    """A text body is quoted in the message; a server ignoring stream=true still gets read."""
    llm_server.reply(body="upstream connect error", content_type="text/plain")
    _, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is not None and "text/plain" in str(err) and "upstream connect error" in str(err)
    whole = {"choices": [{"message": {"content": "pwd"}, "finish_reason": "stop"}]}
    llm_server.reply(body=json.dumps(whole), content_type="application/json")
    deltas, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is None and "".join(d.text for d in deltas) == "pwd"


def test_retry_after_beyond_the_deadline_fails_at_once(llm_server: LlmServer) -> None:
    """A 429 asking for an hour is not slept on: one request, the wait named in the message."""
    llm_server.reply(status=429, headers={"Retry-After": "3600"}, error_message="slow down")
    _, err = _collect(_client(llm_server, max_retries=3).stream_chat(MSG, task="suggest"))
    assert err is not None and err.reason is Failure.RATE_LIMITED
    assert "3600 s" in str(err) and "HTTP 429" in str(err)
    assert len(llm_server.requests) == 1


def test_a_deeply_nested_stream_chunk_is_a_clear_error(llm_server: LlmServer) -> None:
    """An SSE chunk nested 100,000 deep ends the answer with a message, not RecursionError."""
    llm_server.reply("ls", raw_events=["[" * 100_000 + "]" * 100_000])
    _, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is not None and err.reason is Failure.NOT_AN_ANSWER
    assert "nested too deeply" in str(err) or "malformed" in str(err)


def test_schema_and_token_budget_ride_on_the_request(llm_server: LlmServer) -> None:
    """The suggest request carries its max_tokens and, for an unknown server, the bounded schema."""
    llm_server.reply('{"suggestions": []}')
    _collect(_client(llm_server).stream_chat(MSG, task="suggest", schema=SUGGEST))
    body = llm_server.requests[0]
    assert body["max_tokens"] == 1000
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"]["properties"]["suggestions"]["maxItems"] == 5


def test_a_server_refusing_the_schema_is_asked_plainly_and_remembered(
    llm_server: LlmServer,
) -> None:
    """A 400 about response_format: asked again without it at once, and never again with it."""
    llm_server.reply(status=400, error_message="response_format is not supported")
    llm_server.reply("first")
    llm_server.reply("second")
    client = _client(llm_server)
    deltas, err = _collect(client.stream_chat(MSG, task="suggest", schema=SUGGEST))
    assert err is None and "".join(d.text for d in deltas) == "first"
    deltas, err = _collect(client.stream_chat(MSG, task="suggest", schema=SUGGEST))
    assert err is None and "".join(d.text for d in deltas) == "second"
    sent = ["response_format" in r for r in llm_server.requests]
    assert sent == [True, False, False]


def test_structured_output_can_be_switched_off(llm_server: LlmServer) -> None:
    """llm.structured_output: false sends no schema."""
    llm_server.reply("x")
    _collect(
        _client(llm_server, structured_output=False).stream_chat(
            MSG, task="suggest", schema=SUGGEST
        )
    )
    assert "response_format" not in llm_server.requests[0]


def test_a_looping_model_is_cut_off(llm_server: LlmServer) -> None:
    """`bash && linux-2.11.1 && …` repeated is stopped early and the server is hung up on."""
    loop = "bash && linux-2.11.1 && " * 4000  # ~100 KB, minutes from a slow model
    llm_server.reply(loop, chunk_size=16)
    deltas, err = _collect(_client(llm_server).stream_chat(MSG, task="suggest"))
    assert err is None and deltas[-1].finish_reason == REPETITION
    assert len("".join(d.text for d in deltas)) < 2_000
    assert llm_server.wait_disconnect(5)


@settings(max_examples=max(2_000, settings().max_examples or 0))
@given(value=st.one_of(st.none(), st.text(max_size=60)))
def test_any_retry_after_header_is_read_or_ignored(value: str | None) -> None:
    """A Retry-After of any shape gives seconds ≥ 0 or None, never an exception."""
    seconds = parse_retry_after(value)
    assert seconds is None or seconds >= 0


def test_openai_preset_gets_the_strict_schema_and_its_token_field(llm_server: LlmServer) -> None:
    """OpenAI: strict json_schema (every key required) and max_completion_tokens."""
    config = Config()
    config.providers = [ProviderConfig(name="oa", preset="openai", base_url=llm_server.base_url)]
    routes = resolve_routes(config, {"OPENAI_API_KEY": "x"})
    llm_server.reply('{"suggestions": [], "question": ""}')
    _collect(OpenAIClient(routes).stream_chat(MSG, task="suggest", schema=SUGGEST))
    body = llm_server.requests[0]
    assert body["max_completion_tokens"] == 1000 and "max_tokens" not in body
    spec = body["response_format"]["json_schema"]
    assert spec["strict"] is True
    assert spec["schema"]["required"] == ["suggestions", "question"]
    assert "maxItems" not in spec["schema"]["properties"]["suggestions"]


def test_deepseek_preset_gets_no_schema(llm_server: LlmServer) -> None:
    """DeepSeek offers JSON mode only, which cannot hold NDJSON: no response_format."""
    config = Config()
    config.providers = [ProviderConfig(name="ds", preset="deepseek", base_url=llm_server.base_url)]
    routes = resolve_routes(config, {"DEEPSEEK_API_KEY": "x"})
    llm_server.reply("x")
    _collect(OpenAIClient(routes).stream_chat(MSG, task="suggest", schema=SUGGEST))
    assert "response_format" not in llm_server.requests[0]
    assert llm_server.requests[0]["max_tokens"] == 1000
