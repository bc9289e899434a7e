"""The lenient, incremental parser of streamed deploy plans."""

from __future__ import annotations

from termwise.agent.deploy.plan import Step
from termwise.agent.deploy.step_parser import StepParser, StepProblem, parse_steps

NDJSON = (
    '{"step": 1, "title": "Install deps", "why": "needed", "commands": ["npm ci"], '
    '"check": "npm ls", "notes": ""}\n'
    '{"step": 2, "title": "Build", "why": "", "commands": ["npm run build"], "check": null}\n'
)


def steps(items: list) -> list[Step]:
    return [i for i in items if isinstance(i, Step)]


def problems(items: list) -> list[str]:
    return [i.message for i in items if isinstance(i, StepProblem)]


def test_each_step_is_ready_when_its_line_ends() -> None:
    """A step comes out exactly when the newline closing its line arrives, not before."""
    parser = StepParser()
    ready_at = [pos for pos, ch in enumerate(NDJSON) if steps(parser.feed(ch))]
    assert ready_at == [NDJSON.index("\n"), len(NDJSON) - 1]
    assert [s.title for s in parser.steps] == ["Install deps", "Build"]
    assert parser.steps[0].check == "npm ls" and parser.steps[1].check is None
    assert parser.finish() == []


def test_array_in_a_fence_with_prose_and_braces_in_commands() -> None:
    """A pretty JSON array in a ```json fence, chatter around and `{}` inside strings still parse."""
    text = (
        'Here is your plan:\n```json\n[\n  {\n    "title": "Show",\n'
        '    "commands": ["awk \'{print $1}\' file.txt"]\n  },\n'
        '  {"title": "Run", "commands": "make run"}\n]\n```\nGood luck {really}!'
    )
    items = parse_steps(text)
    assert [(s.number, s.commands) for s in steps(items)] == [
        (1, ["awk '{print $1}' file.txt"]),
        (2, ["make run"]),
    ]
    assert problems(items) == []


def test_steps_wrapper_and_renumbering() -> None:
    """A {"steps": [...]} wrapper works, and numbers follow arrival whatever the model wrote."""
    text = '{"steps": [{"step": 4, "title": "A", "commands": ["a"]}, {"step": 4, "title": "B", "commands": ["b"]}]}'
    assert [(s.number, s.title) for s in steps(parse_steps(text))] == [(1, "A"), (2, "B")]


def test_a_broken_line_does_not_swallow_the_next_step() -> None:
    """A truncated NDJSON line is reported and the following good line still becomes a step."""
    text = '{"title": "Broken", "commands": ["npm ci"\n{"title": "Good", "commands": ["make"]}\n'
    items = parse_steps(text)
    assert [s.title for s in steps(items)] == ["Good"]
    assert any("malformed JSON line" in p for p in problems(items))


def test_no_steps_at_all_is_said() -> None:
    """An answer of prose only ends with a problem saying there are no steps."""
    items = parse_steps("I am not sure how to deploy this project.")
    assert steps(items) == [] and problems(items) == ["the model's answer held no plan steps"]


def test_objects_that_are_not_steps_are_reported() -> None:
    """A JSON object without commands or title is named, not silently dropped."""
    items = parse_steps('{"question": "which OS?"}\n{"title": "Go", "commands": ["go build"]}\n')
    assert [s.title for s in steps(items)] == ["Go"]
    assert any("not a step" in p for p in problems(items))


def test_answer_cut_inside_a_step() -> None:
    """A stream that stops mid-object keeps the complete steps and says where it ended."""
    parser = StepParser()
    items = parser.feed(NDJSON.splitlines(keepends=True)[0] + '{"title": "Half", "commands": [')
    items += parser.finish()
    assert [s.title for s in steps(items)] == ["Install deps"]
    assert any("ended inside a step" in p for p in problems(items))


def test_shell_blocks_become_steps_when_there_is_no_json() -> None:
    """A model that ignores the contract and writes titled shell blocks still yields a plan."""
    text = (
        "To deploy this project:\n\n"
        "1. **Install the dependencies:**\n```bash\n$ npm ci\n```\n"
        "## Step 2: Build and start\n```sh\n# build first\nnpm run build\nnpm start\n```\n"
        'Output looks like:\n```\n{"ok": true}\n```\n'
    )
    items = parse_steps(text)
    assert [(s.number, s.title, s.commands) for s in steps(items)] == [
        (1, "Install the dependencies", ["npm ci"]),
        (2, "Build and start", ["npm run build", "npm start"]),
    ]
    assert any("shell blocks instead of JSON" in p for p in problems(items))


def test_shell_blocks_beside_json_steps_are_illustrations() -> None:
    """When JSON steps arrive, a shell block in the prose does not add a step."""
    text = 'For example:\n```bash\nls\n```\n{"title": "Build", "commands": ["make"]}\n'
    assert [s.title for s in steps(parse_steps(text))] == ["Build"]


def test_steps_inside_a_schema_wrapper_come_out_as_each_closes() -> None:
    """A grammar-constrained `{"steps": [...]}` answer, pretty-printed as local servers do:
    the first step is ready before the second arrives, and none is given twice."""
    import json

    answer = json.dumps(
        {
            "steps": [
                {"title": "Build", "why": "", "commands": ["make"], "check": "", "notes": ""},
                {"title": "Ship", "why": "", "commands": ["./ship"], "check": "", "notes": ""},
            ]
        },
        indent=2,
    )
    cut = answer.index('"Ship"')
    parser = StepParser()
    first = parser.feed(answer[:cut])
    assert [s.title for s in first if isinstance(s, Step)] == ["Build"]
    rest = [*parser.feed(answer[cut:]), *parser.finish()]
    assert [s.title for s in rest if isinstance(s, Step)] == ["Ship"]
    assert not [p for p in rest if isinstance(p, StepProblem)]
    assert [s.number for s in parser.steps] == [1, 2]
