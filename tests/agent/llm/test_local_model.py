"""A real weak local model (llama.cpp + SmolLM2-135M) behind the real `termwise ask`.

The model is too small to be right, and in free text it mostly does not even answer in
the requested format. Asked for schema-constrained output, every answer it gives is
JSON of the suggestion shape, so `termwise ask` gets suggestions out of (nearly) every
everyday question. The test prints how many parse with and without the schema.
Built by tests/support/local_model/setup.sh (`.ci/run` calls it); never skipped on CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import openai
import pytest
from termwise.agent.llm.schemas import SUGGEST

from tests.support.local_model import LocalModel, local_model, require_local_model
from tests.tray.serve_support import TERMWISE

QUESTIONS = [
    "list the 5 largest files in this folder",
    "show my current git branch",
    "find all json files under this folder",
    "how much free disk space is left",
    "count the lines in main.py",
    "show which process listens on port 8080",
    "make a folder called build",
    "show the last 20 lines of app.log",
    "search for TODO in all python files",
    "compress the logs folder into logs.tar.gz",
]
WORKERS = 2  # the server serves two answers at once
TEMPERATURE = 0.0  # greedy: what a weak local model should be run with, and repeatable


@dataclass
class Asked:
    question: str
    commands: list[str]
    notes: list[str]
    seconds: float


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    require_local_model()
    with local_model(tmp_path_factory.mktemp("llama"), parallel=WORKERS) as server:
        yield server


def _home(root: Path, *, structured: bool) -> dict[str, str]:
    home = root / ("schema" if structured else "plain")
    home.mkdir()
    env = {**os.environ, "TERMWISE_HOME": str(home)}
    path = subprocess.run(
        [*TERMWISE, "config", "path"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(
        f"llm:\n  probe_ollama: false\n  structured_output: {str(structured).lower()}\n"
        f"tasks:\n  suggest:\n    temperature: {TEMPERATURE}\n",
        encoding="utf-8",
    )
    return env


def ask_all(model: LocalModel, env: dict[str, str], cwd: Path) -> list[Asked]:
    """`termwise ask --json` for each question against the model, two at a time."""
    env = {
        **env,
        "TERMWISE_BASE_URL": model.base_url,
        "TERMWISE_MODEL": model.model,
        "TERMWISE_API_KEY": "local",
    }

    def one(question: str) -> Asked:
        start = time.monotonic()
        result = subprocess.run(
            [*TERMWISE, "ask", "--json", question],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=240,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.monotonic() - start
        assert "Traceback" not in result.stderr, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        commands = [e["command"] for e in events if e["event"] == "suggestion"]
        notes = [
            e.get("text") or e.get("message") or "" for e in events if e["event"] != "suggestion"
        ]
        return Asked(question, commands, notes, seconds)

    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(one, QUESTIONS))


def _report(label: str, answers: list[Asked]) -> int:
    parsed = sum(1 for a in answers if a.commands)
    print(f"\n{label}: {parsed}/{len(answers)} answers parse into suggestions")
    for a in answers:
        shown = "; ".join(a.commands[:3]) or "— " + (a.notes[-1] if a.notes else "nothing")
        print(f"  {a.seconds:5.1f}s  {a.question!r}: {shown[:110]}")
    return parsed


def test_the_local_server_honours_the_suggestion_schema(model: LocalModel) -> None:
    """Asked with our schema, llama.cpp's answer is one JSON object of that shape."""
    client = openai.OpenAI(base_url=model.base_url, api_key="local")
    answer = client.chat.completions.create(
        model=model.model,
        messages=[{"role": "user", "content": "How do I list files?"}],
        response_format=SUGGEST.response_format(strict=False),  # type: ignore[arg-type]
        temperature=TEMPERATURE,
        # Room for the bounded schema's longest answer (5 × 440 characters): a cut-off
        # answer would be unterminated JSON whatever the grammar.
        max_tokens=2048,
    )
    assert answer.choices[0].finish_reason == "stop", answer.choices[0].message.content
    data = json.loads(answer.choices[0].message.content or "")
    assert 1 <= len(data["suggestions"]) <= 5
    assert all(isinstance(s["command"], str) and s["command"] for s in data["suggestions"])


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_termwise_ask_gets_suggestions_from_a_weak_local_model(
    model: LocalModel, tmp_path: Path
) -> None:
    """≥ 9 of 10 everyday questions become suggestions with the schema; printed: without it."""
    work = tmp_path / "work"
    work.mkdir()
    with_schema = ask_all(model, _home(tmp_path, structured=True), work)
    without = ask_all(model, _home(tmp_path, structured=False), work)
    parsed = _report("with schema-constrained output", with_schema)
    plain = _report("without a schema (free text, lenient parser)", without)
    print(f"\nlocal model parse rate: {parsed}/10 with the schema, {plain}/10 without")
    assert parsed >= 9
