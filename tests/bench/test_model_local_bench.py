"""Bench: a weak local model's answers with and without schema-constrained output.

Rounds interleave the two modes question by question (same server, same load), so the
ratio is fair. Printed per mode: parse rate (answers with at least one suggestion) and
seconds per answer, min/median/max; and the model's raw generation speed measured in the
same run as the physical limit an answer is bound by. Needs the local model
(tests/support/local_model/setup.sh). Run: uv run pytest tests/bench/test_model_local_bench.py -m bench -s
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import openai
import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.types import SessionContext
from termwise.agent.llm.factory import make_client
from termwise.agent.llm.schemas import SUGGEST
from termwise.agent.suggest.context import build_prompt
from termwise.agent.suggest.parser import ParsedSuggestion, SuggestionParser

from tests.agent.llm.test_local_model import QUESTIONS, TEMPERATURE
from tests.support.local_model import LocalModel, local_model, require_local_model

ROUNDS = 5
pytestmark = pytest.mark.bench


def _answer(client: object, messages: list[dict[str, str]], schema: bool) -> tuple[bool, float]:
    """One suggest answer read to its end (or to five suggestions): parsed?, seconds."""
    parser = SuggestionParser("bash")
    start = time.perf_counter()
    got = False
    stream = client.stream_chat(  # type: ignore[attr-defined]
        messages, task="suggest", schema=SUGGEST if schema else None
    )
    try:
        for delta in stream:
            got = any(isinstance(i, ParsedSuggestion) for i in parser.feed(delta.text)) or got
            if parser.full:
                break
    except Exception as exc:  # a deadline counts as an answer that took that long
        print(f"    ({type(exc).__name__}: {str(exc)[:80]})")
    finally:
        stream.close()
    got = any(isinstance(i, ParsedSuggestion) for i in parser.finish()) or got
    return got, time.perf_counter() - start


def _tokens_per_second(model: LocalModel) -> float:
    client = openai.OpenAI(base_url=model.base_url, api_key="local")
    start = time.perf_counter()
    answer = client.chat.completions.create(
        model=model.model,
        messages=[{"role": "user", "content": "Tell a long story about a cat."}],
        max_tokens=200,
        temperature=0.7,
    )
    tokens = answer.usage.completion_tokens if answer.usage else 0
    return tokens / (time.perf_counter() - start)


@pytest.mark.timeout(3600)
def test_local_model_parse_rate_and_time_per_answer(tmp_path: Path) -> None:
    require_local_model()
    config = Config()
    config.llm.probe_ollama = False
    config.tasks.suggest.temperature = TEMPERATURE
    with local_model(tmp_path) as model:
        env = {
            "TERMWISE_BASE_URL": model.base_url,
            "TERMWISE_MODEL": model.model,
            "TERMWISE_API_KEY": "local",
        }
        client = make_client(config, env)
        assert client is not None
        ctx = SessionContext(shell="bash", cwd=str(tmp_path))
        prompts = {q: build_prompt(ctx, config, q, env_info={}).messages for q in QUESTIONS}
        parsed = {True: 0, False: 0}
        times: dict[bool, list[float]] = {True: [], False: []}
        speeds = []
        for r in range(ROUNDS):
            speeds.append(_tokens_per_second(model))
            for q in QUESTIONS:
                for schema in (True, False) if r % 2 == 0 else (False, True):
                    ok, seconds = _answer(client, prompts[q], schema)
                    parsed[schema] += ok
                    times[schema].append(seconds)
        total = ROUNDS * len(QUESTIONS)
        print(
            f"\nlocal model (SmolLM2-135M, llama.cpp), {ROUNDS} rounds x {len(QUESTIONS)} questions"
        )
        print(
            f"  raw generation: {min(speeds):.0f}/{statistics.median(speeds):.0f}/"
            f"{max(speeds):.0f} tokens/s (min/median/max)"
        )
        for schema in (True, False):
            t = times[schema]
            label = "with schema   " if schema else "without schema"
            print(
                f"  {label}: parse {parsed[schema]}/{total} = {parsed[schema] / total:.0%}; "
                f"s/answer min {min(t):.1f} median {statistics.median(t):.1f} max {max(t):.1f}"
            )
        ratio = statistics.median(times[True]) / statistics.median(times[False])
        print(f"  median time with/without schema: {ratio:.2f}x")
