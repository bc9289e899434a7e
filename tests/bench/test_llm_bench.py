"""Benchmarks of the model path: first token to first suggestion, and one-shot prompt size."""

from __future__ import annotations

import statistics
import time

import openai
import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.events import SuggestionReady
from termwise.agent.base.types import Block, SessionContext
from termwise.agent.llm.factory import make_client
from termwise.agent.suggest.context import build_prompt, estimate_tokens
from termwise.agent.suggest.turn import SuggestTurn

from tests.support.llm_server import LlmServer

ENV_INFO = {
    "os": "Linux",
    "os_version": "Debian 12",
    "tools": {"git": "2.39.5", "python": "3.11.7"},
}
LINE = '{"command": "git push --set-upstream origin main", "explanation": "sets the upstream"}\n'
ROUNDS = 30


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[int(len(values) * 0.9) - 1]
    return f"median {statistics.median(values) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms"


@pytest.mark.bench
def test_first_token_to_first_suggestion(llm_server: LlmServer) -> None:
    """Time from the server flushing the first token to the turn yielding the first suggestion."""
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    config = Config()
    turn = SuggestTurn(make_client(config, env), config, env_info=ENV_INFO)
    ctx = SessionContext(blocks=[Block("git push", "fatal: no upstream", 128)], shell="bash")
    text = LINE + LINE.replace("main", "dev")
    turn_lat: list[float] = []
    for _ in range(ROUNDS):
        llm_server.reply(text, chunk_size=len(LINE))
        for event in turn.run("push", ctx):
            if isinstance(event, SuggestionReady) and event.suggestion.source == "model":
                turn_lat.append(time.perf_counter() - llm_server.first_token_times[-1])
                break
    # Baseline in the same run: the bare SDK receiving that first chunk, no parsing or turn.
    sdk = openai.OpenAI(base_url=llm_server.base_url, api_key="x", max_retries=0)
    sdk_lat: list[float] = []
    for _ in range(ROUNDS):
        llm_server.reply(text, chunk_size=len(LINE))
        stream = sdk.chat.completions.create(
            model="test", messages=[{"role": "user", "content": "x"}], stream=True
        )
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                sdk_lat.append(time.perf_counter() - llm_server.first_token_times[-1])
                break
        stream.close()
    ratio = statistics.median(turn_lat) / max(statistics.median(sdk_lat), 1e-9)
    print(f"\nfirst token -> first parsed suggestion: {_ms(turn_lat)} (goal <= 10 ms)")
    print(f"baseline, first token -> SDK chunk:       {_ms(sdk_lat)}; turn/baseline {ratio:.2f}x")


@pytest.mark.bench
def test_one_shot_fix_prompt_size() -> None:
    """Prompt tokens of a one-shot fix for a realistic failure and for a huge one."""
    config = Config()
    pip_out = "\n".join(
        ["Collecting numpy==1.19.5"]
        + [f"  Downloading numpy-1.19.5.tar.gz ({i} MB)" for i in range(40)]
        + [
            "  error: subprocess-exited-with-error",
            "  × Building wheel for numpy (pyproject.toml) did not run successfully.",
        ]
        + [
            f"      gcc: error: build/src.linux-x86_64-3.11/numpy/core/src/multiarray/_multiarray_umath.c{i}"
            for i in range(300)
        ]
        + [
            "ERROR: Could not build wheels for numpy, which is required to install pyproject.toml-based projects"
        ]
    )
    typical = SessionContext(
        blocks=[
            Block("cd ~/src/app", "", 0, "/home/u/src/app"),
            Block("python -m venv .venv", "", 0, "/home/u/src/app"),
            Block("pip install -r requirements.txt", pip_out, 1, "/home/u/src/app"),
        ],
        shell="bash",
        cwd="/home/u/src/app",
    )
    huge = SessionContext(
        blocks=[
            Block(
                f"make -j8 target{i}",
                "\n".join(f"cc -c file{j}.c -o file{j}.o -Wall {'x' * 90}" for j in range(20000)),
                2,
            )
            for i in range(5)
        ],
        shell="bash",
    )
    for name, ctx in (("typical pip failure", typical), ("5 blocks x 20k lines", huge)):
        started = time.perf_counter()
        prompt = build_prompt(
            ctx, config, env_info=ENV_INFO, memory=lambda q, n: ["prefers uv over pip"]
        )
        took = (time.perf_counter() - started) * 1000
        tokens = sum(estimate_tokens(m["content"]) for m in prompt.messages)
        print(
            f"\none-shot fix prompt, {name}: {tokens} tokens (budget {config.llm.max_prompt_tokens}), built in {took:.1f} ms"
        )
