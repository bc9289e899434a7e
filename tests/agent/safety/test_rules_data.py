"""The YAML rules ship with the package, load cleanly, and a broken rules file fails loudly."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml
from termwise.agent.safety.rules import FAMILY_FILES, SafetyRulesError, compile_rules, load_rules


@pytest.mark.parametrize("family", sorted(FAMILY_FILES))
def test_every_family_loads_with_rules_of_each_kind(family: str) -> None:
    """Each shell family has known-safe commands, dangerous rules and pipeline rules."""
    rules = load_rules(family)  # type: ignore[arg-type]
    assert any(spec.safe for spec in map(rules.spec_for, rules.commands) if spec is not None)
    assert any(rule.level == "dangerous" for rule in rules.rules)
    assert rules.pipelines


def test_rule_files_are_package_data() -> None:
    """The files are read through importlib.resources, so they exist in an installed wheel too."""
    folder = resources.files("termwise.resources").joinpath("safety")
    names = {entry.name for entry in folder.iterdir()}
    assert {n for files in FAMILY_FILES.values() for n in files} <= names


def test_every_rule_names_itself_and_explains() -> None:
    """Reasons shown to users need an id and a sentence for every rule."""
    for family in FAMILY_FILES:
        rules = load_rules(family)  # type: ignore[arg-type]
        for rule in [*rules.rules, *rules.pipelines, *rules.texts, *rules.redirects, *rules.env]:
            assert rule.id and " " not in rule.id
            assert len(rule.message) > 10


def test_unknown_keys_are_refused_with_the_file_name() -> None:
    """An unquoted comma in a YAML flow mapping creates a stray key; it must not pass silently."""
    doc = yaml.safe_load("commands:\n  mkfs: {level: dangerous, message: erases it, for good}\n")
    with pytest.raises(SafetyRulesError, match=r"extra\.yaml.*for good"):
        compile_rules("posix", [("extra.yaml", doc)])


def test_bad_levels_and_regexes_are_refused() -> None:
    """A typo in a level or a broken regular expression names the file and the problem."""
    bad_level = {"rules": [{"id": "x", "level": "scary", "commands": "ls", "message": "m"}]}
    with pytest.raises(SafetyRulesError, match="unknown level"):
        compile_rules("posix", [("a.yaml", bad_level)])
    bad_regex = {"text_rules": [{"id": "x", "level": "confirm", "regex": "(", "message": "m"}]}
    with pytest.raises(SafetyRulesError, match=r"a\.yaml"):
        compile_rules("posix", [("a.yaml", bad_regex)])
    bad_set = {
        "rules": [
            {"id": "x", "level": "confirm", "commands": "rm", "message": "m", "args_any": "@nope"}
        ]
    }
    with pytest.raises(SafetyRulesError, match="unknown path set"):
        compile_rules("posix", [("a.yaml", bad_set)])


def test_regex_parts_are_shared_and_an_unknown_one_is_refused() -> None:
    """A `{{name}}` in argv_regex or a text rule's regex is that regex part, from any earlier
    file; a name no file defines is an error naming the file."""
    common = {"regex_parts": {"key": r"id_rsa$"}}
    use = {
        "rules": [
            {
                "id": "r",
                "level": "confirm",
                "commands": "cat",
                "argv_regex": "{{key}}",
                "message": "m",
            }
        ],
        "text_rules": [{"id": "t", "level": "confirm", "regex": "x {{key}}", "message": "m"}],
    }
    rules = compile_rules("posix", [("c.yaml", common), ("u.yaml", use)])
    argv = rules.rules_for("cat")[0].argv_regex
    assert argv is not None and argv.search("~/.ssh/id_rsa") and not argv.search("id_rsa.pub")
    assert rules.texts[0].regex.search("x id_rsa")
    unknown = {"text_rules": [{"id": "t", "level": "confirm", "regex": "{{nope}}", "message": "m"}]}
    with pytest.raises(SafetyRulesError, match=r"u\.yaml.*nope"):
        compile_rules("posix", [("u.yaml", unknown)])


def test_later_files_extend_earlier_ones() -> None:
    """A second document can add a command and a rule for it: the rules really are data."""
    base = {"commands": {"ls": {"safe": True}}}
    extra = {
        "commands": {"deploy": {"message": "ships it"}},
        "rules": [
            {
                "id": "deploy-prod",
                "level": "dangerous",
                "commands": "deploy",
                "argv_regex": "--prod",
                "message": "ships to production",
            }
        ],
    }
    rules = compile_rules("posix", [("a.yaml", base), ("b.yaml", extra)])
    assert rules.spec_for("ls").safe  # type: ignore[union-attr]
    assert [r.id for r in rules.rules_for("deploy")] == ["deploy-prod"]


def test_every_rule_has_a_case() -> None:
    """Each rule id in the data shows up as a reason for some case of the tables, so none is dead."""
    from termwise.agent.safety import classify

    from tests.agent.safety.test_classify import EDGES, NASTY, TABLE

    fired: set[str] = set()
    for case in TABLE + NASTY + EDGES:
        verdict = classify(case["cmd"], case.get("shell", "bash"))
        fired |= {reason.split(":", 1)[0] for reason in verdict.reasons}
    ids: set[str] = set()
    for family in FAMILY_FILES:
        rules = load_rules(family)  # type: ignore[arg-type]
        for rule in [*rules.rules, *rules.pipelines, *rules.texts, *rules.redirects, *rules.env]:
            ids.add(rule.id)
    assert ids - fired == set()


@pytest.mark.parametrize("strict", [True, False])
def test_specs_built_late_keep_aliases_and_overrides(strict: bool) -> None:
    """Specs of cached files are built on first lookup: a later file still overrides an
    earlier one, and a command's aliases share its spec."""
    base = {"commands": {"ls": {"safe": True, "aliases": ["dir"]}, "rm": {"message": "a"}}}
    extra = {"commands": {"ls": {"message": "lists, then deletes"}}}
    rules = compile_rules("posix", [("a.yaml", base), ("b.yaml", extra)], strict=strict)
    ls, rm = rules.spec_for("ls"), rules.spec_for("rm")
    assert ls is not None and not ls.safe and ls.message == "lists, then deletes"
    assert rm is not None and rules.spec_for("dir") is not None
    assert rules.spec_for("dir") is not ls and rules.spec_for("dir").safe  # type: ignore[union-attr]
    assert rules.spec_for("nope") is None
