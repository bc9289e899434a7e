"""The YAML files shipped in resources/: a key written twice silently drops the first
value (YAML keeps the last), so a rule or a safety verdict would vanish unnoticed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
FILES = sorted(RESOURCES.rglob("*.yaml"))


class _StrictLoader(yaml.SafeLoader):
    pass


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict:
    keys = [loader.construct_object(k, deep=True) for k, _ in node.value]
    twice = sorted(str(k) for k, n in Counter(map(str, keys)).items() if n > 1)
    if twice:
        raise yaml.constructor.ConstructorError(
            None, None, f"keys written twice: {', '.join(twice)}", node.start_mark
        )
    return loader.construct_mapping(node, deep=True)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def test_there_are_resource_files_to_check() -> None:
    assert len(FILES) >= 5


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(RESOURCES).as_posix())
def test_no_key_is_written_twice(path: Path) -> None:
    yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)


def test_the_strict_loader_catches_a_repeated_key() -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="written twice: heroku"):
        yaml.load("heroku: [a]\nbrew: [b]\nheroku: [c]\n", Loader=_StrictLoader)
