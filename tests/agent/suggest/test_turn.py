"""A suggestion turn end to end: rules, the real openai SDK against the loopback server, verdicts."""

from __future__ import annotations

import json
import threading
from typing import Any

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.events import (
    Error,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import Block, SessionContext
from termwise.agent.llm.factory import make_client
from termwise.agent.suggest.turn import NO_MODEL, SuggestTurn

from tests.support.llm_server import LlmServer, Reply

ENV_INFO = {"os": "Linux", "os_version": "Debian 12", "tools": {"git": "2.39.5"}}
PUSH_FAIL = SessionContext(
    blocks=[
        Block(
            "git psuh",
            "git: 'psuh' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tpush\n",
            1,
            "/src/app",
        )
    ],
    shell="bash",
    cwd="/src/app",
)
LINES = (
    '{"command": "git push -u origin main", "explanation": "sets the upstream"}\n'
    '{"command": "git status", "explanation": "see what is going on"}\n'
)


def _turn(server: LlmServer, config: Config | None = None, **llm: Any) -> SuggestTurn:
    config = config or Config()
    config.llm.first_token_timeout = llm.get("first_token_timeout", 5.0)
    config.llm.max_retries = llm.get("max_retries", 2)
    env = {"TERMWISE_BASE_URL": server.base_url, "TERMWISE_MODEL": "test", "TERMWISE_API_KEY": "x"}
    return SuggestTurn(make_client(config, env), config, env_info=ENV_INFO)


def _safety_ok(body: dict[str, Any]) -> Reply | None:
    """Route second-step safety requests to a harmless low-risk answer."""
    if "Static rules already flagged" in body["messages"][0]["content"]:
        return Reply(text='{"risk": "low", "explanation": "fine"}')
    return None


def test_rules_first_then_model_lines_in_order(llm_server: LlmServer) -> None:
    """Rules suggestions come instantly, then the model's, each followed by its verdict."""
    llm_server.responder = _safety_ok
    llm_server.reply(LINES, chunk_size=7)
    events = list(_turn(llm_server).run("", PUSH_FAIL))
    ready = [e for e in events if isinstance(e, SuggestionReady)]
    assert [(e.index, e.suggestion.source, e.suggestion.command) for e in ready] == [
        (0, "rules", "git push"),
        (1, "model", "git push -u origin main"),
        (2, "model", "git status"),
    ]
    first_model = events.index(ready[1])
    assert any(isinstance(e, Status) for e in events[:first_model])  # "asking the model…"
    for e in ready:
        after = events[events.index(e) + 1]
        assert isinstance(after, VerdictReady) and after.index == e.index
    assert isinstance(events[-1], Finished) and not events[-1].cancelled
    assert not any(isinstance(e, Error) for e in events)


def test_suggestion_arrives_while_the_stream_is_still_open(llm_server: LlmServer) -> None:
    """The first line's suggestion is yielded while the server still holds the stream open."""
    text = LINES + '{"command": "never finished'
    llm_server.reply(text, chunk_size=5, stall_after=len(text) // 5)
    token = CancelToken()
    run = _turn(llm_server, first_token_timeout=30).run("push please", PUSH_FAIL, token)
    got: list[str] = []
    for e in run:
        if isinstance(e, SuggestionReady):
            got.append(e.suggestion.command)
            if len(got) == 2:
                assert not llm_server.wait_disconnect(0.05)  # the stream is still open
                token.cancel()
        if isinstance(e, Finished):
            assert e.cancelled
    assert got == ["git push -u origin main", "git status"]
    assert llm_server.wait_disconnect(5)  # cancel closed the HTTP stream


def test_cancel_from_another_thread_closes_a_blocked_stream(llm_server: LlmServer) -> None:
    """Cancelling while the turn waits on a silent server ends it at once, marked cancelled."""
    llm_server.reply(LINES, chunk_size=5, stall_after=0)
    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    events = list(_turn(llm_server, first_token_timeout=30).run("hi", PUSH_FAIL, token))
    assert events[-1] == Finished(cancelled=True)
    assert not any(isinstance(e, Error) for e in events)
    assert llm_server.wait_disconnect(5)


def test_429_is_retried_inside_a_turn(llm_server: LlmServer) -> None:
    """A rate-limited first answer is retried and its suggestions arrive."""
    llm_server.reply(status=429, headers={"Retry-After": "0.05"})
    llm_server.reply(LINES)
    events = list(_turn(llm_server).run("push", PUSH_FAIL))
    assert [e.suggestion.command for e in events if isinstance(e, SuggestionReady)][:1] == [
        "git push -u origin main"
    ]
    assert len(llm_server.requests) >= 2


def test_500_is_a_clear_retryable_error_and_rules_stay(llm_server: LlmServer) -> None:
    """Server errors end in one Error event; the rules suggestion already shown stays."""
    for _ in range(2):
        llm_server.reply(
            status=500, error_message="upstream exploded", headers={"Retry-After": "0"}
        )
    events = list(_turn(llm_server, max_retries=1).run("", PUSH_FAIL))
    errors = [e for e in events if isinstance(e, Error)]
    assert len(errors) == 1 and "HTTP 500" in errors[0].message and errors[0].retryable
    assert [e.suggestion.command for e in events if isinstance(e, SuggestionReady)] == ["git push"]
    assert isinstance(events[-1], Finished)


def test_stalled_cut_and_invalid_streams_keep_partial_results(llm_server: LlmServer) -> None:
    """Stall (first-token timeout), cut connection and a non-JSON chunk each keep line one."""
    one_and_half = LINES + '{"command": "git lo'
    cases = [
        ({"stall_after": len(one_and_half) // 6}, "stopped sending"),
        ({"cut_after": len(one_and_half) // 6}, "broke mid-answer"),
        ({"invalid_after": len(one_and_half) // 6}, "malformed"),
    ]
    for knobs, message in cases:
        llm_server.reply(one_and_half, chunk_size=6, **knobs)
        events = list(_turn(llm_server, first_token_timeout=0.5).run("push", PUSH_FAIL))
        commands = [e.suggestion.command for e in events if isinstance(e, SuggestionReady)]
        errors = [e.message for e in events if isinstance(e, Error)]
        assert commands == ["git push -u origin main", "git status"], knobs
        assert len(errors) == 1 and message in errors[0], (knobs, errors)
        assert isinstance(events[-1], Finished)


def test_first_token_timeout_when_nothing_arrives(llm_server: LlmServer) -> None:
    """A model that never starts answering gives a first-token timeout error."""
    llm_server.reply(LINES, delay=3)
    events = list(_turn(llm_server, first_token_timeout=0.4).run("push", PUSH_FAIL))
    errors = [e.message for e in events if isinstance(e, Error)]
    assert len(errors) == 1 and "first-token timeout" in errors[0]


def test_malformed_model_text_keeps_what_parsed(llm_server: LlmServer) -> None:
    """A garbled line is reported as an error event; good lines around it still count."""
    llm_server.reply('{"command": "ls"}\n{"command": oops}\n{"command": "pwd"}\n')
    events = list(_turn(llm_server).run("where am i", PUSH_FAIL))
    assert [e.suggestion.command for e in events if isinstance(e, SuggestionReady)] == ["ls", "pwd"]
    assert len([e for e in events if isinstance(e, Error)]) == 1


def test_question_event(llm_server: LlmServer) -> None:
    """A vague request may get one clarifying question instead of suggestions."""
    llm_server.reply('{"question": "Which remote?"}\n')
    events = list(_turn(llm_server).run("push it", PUSH_FAIL))
    assert Question("Which remote?") in events
    assert not any(isinstance(e, SuggestionReady) for e in events)


def test_safety_model_explains_and_raises_never_lowers(llm_server: LlmServer) -> None:
    """Flagged commands get a second-step explanation; 'low' risk cannot lower a verdict."""

    def responder(body: dict[str, Any]) -> Reply | None:
        system = body["messages"][0]["content"]
        if "Static rules already flagged" not in system:
            return None
        command = body["messages"][1]["content"]
        if "rm -rf" in command:
            return Reply(text='Sure: {"risk": "low", "explanation": "deletes the build folder"}')
        return Reply(text='{"risk": "high", "explanation": "pushes over others\' work"}')

    llm_server.responder = responder
    llm_server.reply(
        '{"command": "rm -rf build"}\n{"command": "git push --force"}\n{"command": "ls"}\n'
    )
    events = list(_turn(llm_server).run("clean and push", PUSH_FAIL))
    verdicts: dict[int, list] = {}
    for e in events:
        if isinstance(e, VerdictReady):
            verdicts.setdefault(e.index, []).append(e.verdict)
    rm_final = verdicts[0][-1]
    assert rm_final.level == "dangerous" and rm_final.explanation == "deletes the build folder"
    assert verdicts[1][-1].explanation == "pushes over others' work"
    assert [v.level for v in verdicts[2]] == ["safe"]  # safe ones are not reviewed
    safety_requests = [r for r in llm_server.requests if r["temperature"] == 0.0]
    assert len(safety_requests) == 2


def test_no_model_gives_rules_and_a_status() -> None:
    """Offline: the rules suggestion and a status saying a model adds more."""
    events = list(SuggestTurn(None, Config(), env_info=ENV_INFO).run("", PUSH_FAIL))
    assert [e.suggestion.command for e in events if isinstance(e, SuggestionReady)] == ["git push"]
    assert Status(NO_MODEL) in events and events[-1] == Finished()


def test_secrets_never_reach_the_model(llm_server: LlmServer) -> None:
    """Tokens in the output and in the question are redacted in the request body."""
    secret = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
    ctx = SessionContext(
        blocks=[
            Block("git push", f"remote: invalid token {secret}\nfatal: auth failed", 128, "/x")
        ],
        shell="zsh",
    )
    llm_server.reply('{"command": "gh auth login"}\n')
    list(_turn(llm_server).run(f"why does {secret} fail with password=hunter22", ctx))
    body = json.dumps(llm_server.requests[0])
    assert secret not in body and "hunter22" not in body
    assert "[REDACTED:github-token]" in body and "[REDACTED:password]" in body
    assert "zsh" in llm_server.requests[0]["messages"][0]["content"]


def test_memory_snippets_go_into_the_prompt(llm_server: LlmServer) -> None:
    """The memory callable is asked with the request and its snippets appear in the prompt."""
    asked: list[tuple[str, int]] = []

    def memory(query: str, n: int) -> list[str]:
        asked.append((query, n))
        return ["prefers pnpm over npm"]

    llm_server.reply('{"command": "pnpm install"}\n')
    turn = _turn(llm_server)
    turn.memory = memory
    list(turn.run("install deps", PUSH_FAIL))
    assert asked and "install deps" in asked[0][0]
    assert "prefers pnpm over npm" in llm_server.requests[0]["messages"][1]["content"]


def test_cancel_during_the_safety_review_ends_the_turn(llm_server: LlmServer) -> None:
    """A slow second-step review is cut short by cancel; the rules verdict stays."""

    def responder(body: dict[str, Any]) -> Reply | None:
        if "Static rules already flagged" in body["messages"][0]["content"]:
            return Reply(text='{"risk": "high", "explanation": "x"}', stall_after=0)
        return None

    llm_server.responder = responder
    llm_server.reply('{"command": "rm -rf build"}\n')
    token = CancelToken()
    events = []
    for e in _turn(llm_server, first_token_timeout=30).run("clean", PUSH_FAIL, token):
        events.append(e)
        if isinstance(e, VerdictReady):
            threading.Timer(0.3, token.cancel).start()
    assert events[-1] == Finished(cancelled=True)
    assert [e.verdict.explanation for e in events if isinstance(e, VerdictReady)] == [""]
    assert llm_server.wait_disconnect(5)


def test_rules_run_for_blocks_without_exit_code_and_see_the_folder(tmp_path) -> None:
    """cmd.exe reports no exit code; the rules still answer, and folder rules use the block's cwd."""
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"start": "node ."}}))
    ctx = SessionContext(
        blocks=[
            Block(
                "npm run strat",
                'npm ERR! Missing script: "strat"\n\nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run\n',
                None,
                str(tmp_path),
            )
        ],
        shell="cmd",
    )
    events = list(SuggestTurn(None, Config(), env_info=ENV_INFO).run("", ctx))
    commands = [e.suggestion.command for e in events if isinstance(e, SuggestionReady)]
    assert "npm run start" in commands


def test_rules_the_host_found_are_offered_as_judged_there() -> None:
    """`termwise fix` hands over the host's rules tier: offered as given, verdicts kept;
    a turn about any other context still runs the rules itself."""
    from dataclasses import replace

    from termwise.agent.base.types import Suggestion, Verdict

    given = [Suggestion("git push --dry-run", "host said", source="rules", rule="git",
                        verdict=Verdict("safe", ("host verdict",)))]  # fmt: skip
    turn = SuggestTurn(None, Config())
    turn.use_rules(PUSH_FAIL, given)
    events = list(turn.run("", PUSH_FAIL))
    offered = [e.suggestion for e in events if isinstance(e, SuggestionReady)]
    assert [s.command for s in offered] == ["git push --dry-run"]
    assert offered[0].verdict == Verdict("safe", ("host verdict",))
    assert given[0].verdict == Verdict("safe", ("host verdict",))  # the given list is untouched
    other = replace(PUSH_FAIL)
    again = [e.suggestion.command for e in turn.run("", other) if isinstance(e, SuggestionReady)]
    assert again[0] == "git push"  # the real rules, run here


def test_a_model_suggestion_is_always_judged_here(llm_server: LlmServer) -> None:
    """Only rules suggestions keep a verdict they came with: a model's `rm -rf` is judged."""
    llm_server.responder = _safety_ok
    llm_server.reply('{"command": "rm -rf /src/app", "explanation": "start over"}\n')
    turn = _turn(llm_server)
    turn.use_rules(PUSH_FAIL, [])
    events = list(turn.run("", PUSH_FAIL))
    verdicts = {e.index: e.verdict.level for e in events if isinstance(e, VerdictReady)}
    offered = [e.suggestion.command for e in events if isinstance(e, SuggestionReady)]
    assert offered == ["rm -rf /src/app"]
    assert verdicts[0] == "dangerous"
