"""The lenient, incremental parser of model answers."""

from __future__ import annotations

from termwise.agent.suggest.parser import (
    ParsedQuestion,
    ParsedSuggestion,
    Problem,
    SuggestionParser,
    parse_all,
)


def commands(items: list) -> list[str]:
    return [i.suggestion.command for i in items if isinstance(i, ParsedSuggestion)]


def problems(items: list) -> list[str]:
    return [i.message for i in items if isinstance(i, Problem)]


NDJSON = (
    '{"command": "git push -u origin main", "explanation": "sets upstream", "caveats": ""}\n'
    '{"command": "git push origin HEAD", "explanation": "push the current branch"}\n'
)


def test_ndjson_lines_are_ready_when_their_closing_brace_arrives() -> None:
    """A suggestion comes out exactly when the brace closing its object arrives, not before."""
    parser = SuggestionParser()
    first_close = NDJSON.index("}\n")
    ready_at: list[int] = []
    for pos in range(len(NDJSON)):
        if commands(parser.feed(NDJSON[pos])):
            ready_at.append(pos)
    assert ready_at == [first_close, len(NDJSON) - 2]
    assert parser.finish() == []


def test_fields_are_kept() -> None:
    """Command, explanation and caveats land in the Suggestion, source model."""
    items = parse_all(
        '{"command": "rm -rf build", "explanation": "clean", "caveats": ["deletes build/"]}'
    )
    s = items[0].suggestion
    assert (s.command, s.explanation, s.caveats, s.source) == (
        "rm -rf build",
        "clean",
        "deletes build/",
        "model",
    )


def test_json_array_pretty_printed_and_in_a_fence_with_prose() -> None:
    """A pretty JSON array inside a ```json fence, with chatter around, yields each object."""
    text = (
        'Sure! Here are some options:\n```json\n[\n  {\n    "command": "pip install requests",\n'
        '    "explanation": "installs it"\n  },\n  {"command": "python -m pip install --user requests"}\n]\n```\n'
        "Let me know if that helps {not json}."
    )
    items = parse_all(text)
    assert commands(items) == ["pip install requests", "python -m pip install --user requests"]
    assert problems(items) == []


def test_bare_shell_fence_is_one_suggestion() -> None:
    """A fenced shell block without JSON becomes one suggestion, prompts stripped."""
    text = "You can fix it with:\n```bash\n$ mkdir -p out\n$ cp a.txt out/\n```\nDone."
    assert commands(parse_all(text)) == ["mkdir -p out && cp a.txt out/"]
    ps = "```powershell\nPS C:\\> Set-ExecutionPolicy -Scope CurrentUser RemoteSigned\n```"
    assert commands(parse_all(ps, shell="pwsh")) == [
        "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned"
    ]


def test_question_line() -> None:
    """A {"question": …} answer becomes one clarifying question."""
    items = parse_all('{"question": "Which branch do you want to push?"}\n')
    assert items == [ParsedQuestion("Which branch do you want to push?")]


def test_malformed_lines_are_reported_and_the_rest_kept() -> None:
    """A broken line, an object without a command and a cut-off object become problems only."""
    text = (
        '{"command": "ls -la", "explanation": "list"\n'  # never closed
        '{"command": "pwd"}\n'
        '{"note": "no command here"}\n'
        '{"command": "echo \\"}\n'  # string never ends
        '{"command": "whoami"}\n'
        '{"command": "cut off'
    )
    items = parse_all(text)
    assert commands(items) == ["pwd", "whoami"]
    assert len(problems(items)) == 4


def test_at_most_five_suggestions() -> None:
    """Only the first five suggestions are kept; the rest are reported as ignored."""
    text = "".join(f'{{"command": "echo {i}"}}\n' for i in range(8))
    items = parse_all(text)
    assert commands(items) == [f"echo {i}" for i in range(5)]
    assert problems(items) == ["ignored 3 suggestion(s) beyond 5"]


def test_garbage_never_raises() -> None:
    """Random bytes, unbalanced braces and lone fences parse to nothing or problems, no crash."""
    for text in [
        "}}}]]",
        "{{{{",
        "```",
        '{"command": 5}',
        "[1, 2, 3]",
        '\x00\x01{"',
        "```json\n{\n```\n",
    ]:
        items = parse_all(text)
        assert commands(items) == []


def test_fence_edge_cases() -> None:
    """NDJSON wrongly fenced as bash still parses; an unlabelled block quoting output loses to JSON."""
    wrong_label = '```bash\n{"command": "ls"}\n{"command": "pwd"}\n```\n'
    assert commands(parse_all(wrong_label)) == ["ls", "pwd"]
    quoted = 'The error was:\n```\nfatal: not a git repository\n```\n{"command": "git init"}\n'
    assert commands(parse_all(quoted)) == ["git init"]
    alone = "Run this:\n```\nnpm install\n```\n"
    assert commands(parse_all(alone)) == ["npm install"]


def test_a_schema_answer_gives_each_suggestion_as_its_object_closes() -> None:
    """`{"suggestions": [...]}` (a constrained answer) yields each element at its closing brace."""
    text = (
        '{"suggestions":[\n'
        '  {"command": "du -ah . | sort -rh | head -5", "explanation": "sizes", "caveats": ""},\n'
        '  {"command": "ls -lS | head -6", "explanation": "by size", "caveats": ""}\n'
        '], "question": ""}\n'
    )
    parser = SuggestionParser()
    ready_at = [pos for pos in range(len(text)) if commands(parser.feed(text[pos]))]
    assert ready_at == [text.index("}"), text.index("}", text.index("}") + 1)]
    items = parser.finish()
    assert problems(items) == []


def test_a_question_beside_suggestions_is_not_asked() -> None:
    """A constrained answer with suggestions and a question shows the suggestions only."""
    items = parse_all('{"suggestions": [{"command": "ls"}], "question": "Which folder?"}')
    assert commands(items) == ["ls"] and not [i for i in items if isinstance(i, ParsedQuestion)]
    alone = parse_all('{"suggestions": [], "question": "Which folder?"}')
    assert alone == [ParsedQuestion("Which folder?")]
