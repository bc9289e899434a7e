"""The YAML data-file cache: a hit gives what the parser gives, and any change to a source
file (the user's own or a packaged one) is seen at the next load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from termwise.agent.base.datafiles import load_yaml_files, parse_yaml, resource_yaml


def _entry(cache: Path) -> Path:
    (entry,) = (cache / "yaml").glob("*.json")
    return entry


def _poison(entry: Path) -> None:
    """Change the cached data but not its key: a load that returns it read the cache."""
    stored = json.loads(entry.read_text())
    stored["data"] = [{"from": "cache"}]
    entry.write_text(json.dumps(stored))


def test_second_load_comes_from_the_cache(tmp_path: Path) -> None:
    """The first load parses and writes an entry; the next one reads that entry."""
    source = tmp_path / "rules.yaml"
    source.write_text("commands:\n  ls: {safe: true}\n")
    cache = tmp_path / "cache"
    assert load_yaml_files("t", [source], cache_dir=cache) == [{"commands": {"ls": {"safe": True}}}]
    entry = _entry(cache)
    _poison(entry)
    assert load_yaml_files("t", [source], cache_dir=cache) == [{"from": "cache"}]


@pytest.mark.parametrize(
    "new_text",
    [
        "commands:\n  rm: {safe: false, level: dangerous}\n",  # another size
        "commands:\n  ls: {safe: fals}\n",  # the same size, other content
    ],
)
def test_an_edited_user_file_is_read_again(tmp_path: Path, new_text: str) -> None:
    """Editing the user's own rules file shows at the next load, even at the same size."""
    source = tmp_path / "my-rules.yaml"
    source.write_text("commands:\n  ls: {safe: true}\n")
    cache = tmp_path / "cache"
    load_yaml_files("mine", [source], cache_dir=cache)
    _poison(_entry(cache))
    before = os.stat(source).st_mtime_ns
    source.write_text(new_text)
    os.utime(source, ns=(before + 1_000_000, before + 1_000_000))  # a coarse clock: still later
    assert load_yaml_files("mine", [source], cache_dir=cache) == [yaml.safe_load(new_text)]
    # ... and the rewritten entry now serves the new text.
    assert load_yaml_files("mine", [source], cache_dir=cache) == [yaml.safe_load(new_text)]


def test_one_changed_file_of_a_set_reloads_the_set(tmp_path: Path) -> None:
    """A family is several files; a change to the second one is seen too."""
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("x: 1\n")
    second.write_text("y: 2\n")
    cache = tmp_path / "cache"
    assert load_yaml_files("set", [first, second], cache_dir=cache) == [{"x": 1}, {"y": 2}]
    second.write_text("y: 30\n")
    assert load_yaml_files("set", [first, second], cache_dir=cache) == [{"x": 1}, {"y": 30}]


def test_a_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    """A torn or garbled cache file costs a parse, never wrong data or an error."""
    source = tmp_path / "r.yaml"
    source.write_text("a: [1, 2]\n")
    cache = tmp_path / "cache"
    load_yaml_files("c", [source], cache_dir=cache)
    entry = _entry(cache)
    for garbage in ('{"key": ', "[]", '{"key": 1, "data": 2}', "\x00\xff"):
        entry.write_text(garbage)
        assert load_yaml_files("c", [source], cache_dir=cache) == [{"a": [1, 2]}]
    assert json.loads(entry.read_text())["data"] == [{"a": [1, 2]}]


def test_a_failing_check_caches_nothing(tmp_path: Path) -> None:
    """Data that fails its check raises every time (a hit never skips a failing check)."""
    source = tmp_path / "r.yaml"
    source.write_text("level: scary\n")
    cache = tmp_path / "cache"

    def check(docs: list[object]) -> None:
        if docs != [{"level": "safe"}]:
            raise ValueError(f"bad data {docs}")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad data"):
            load_yaml_files("k", [source], check=check, cache_dir=cache)
    assert not list((cache / "yaml").glob("*.json")) if (cache / "yaml").exists() else True
    source.write_text("level: safe\n")
    assert load_yaml_files("k", [source], check=check, cache_dir=cache) == [{"level": "safe"}]
    assert _entry(cache).exists()


def test_data_json_would_change_is_parsed_every_time(tmp_path: Path) -> None:
    """Integer keys and dates do not survive JSON: such files are not cached, still right."""
    source = tmp_path / "r.yaml"
    source.write_text("1: one\nwhen: 2024-01-02\n")
    cache = tmp_path / "cache"
    want = [yaml.safe_load(source.read_text())]
    assert load_yaml_files("j", [source], cache_dir=cache) == want
    assert load_yaml_files("j", [source], cache_dir=cache) == want
    assert not (cache / "yaml").exists() or not list((cache / "yaml").glob("*.json"))


def test_a_cache_folder_that_cannot_be_written_only_costs_the_parse(tmp_path: Path) -> None:
    """A file where the cache folder should be: loads still work."""
    source = tmp_path / "r.yaml"
    source.write_text("a: 1\n")
    blocked = tmp_path / "cache"
    blocked.write_text("not a folder")
    assert load_yaml_files("b", [source], cache_dir=blocked) == [{"a": 1}]
    assert load_yaml_files("b", [source], cache_dir=blocked) == [{"a": 1}]


def test_a_missing_file_raises_as_reading_it_would(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_yaml_files("m", [tmp_path / "nope.yaml"], cache_dir=tmp_path / "cache")


def test_packaged_files_read_through_the_cache_equal_a_plain_parse(tmp_path: Path) -> None:
    """Every packaged safety file: the cached copy is exactly what the YAML parser gives."""
    from importlib import resources

    folder = resources.files("termwise.resources").joinpath("safety")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".yaml"))
    assert "posix.yaml" in names
    files = [f"safety/{n}" for n in names]
    parsed = [parse_yaml(folder.joinpath(n).read_text("utf-8")) for n in names]
    cache = tmp_path / "cache"
    assert resource_yaml("all", files, cache_dir=cache) == parsed  # miss
    assert resource_yaml("all", files, cache_dir=cache) == parsed  # hit
    assert _entry(cache).exists()


def test_a_warm_check_does_not_import_the_yaml_parser(tmp_path: Path) -> None:
    """The point of the cache: once warm, classifying a command loads no YAML parser."""
    code = (
        "import sys\n"
        "from termwise.agent.safety import classify\n"
        "v = classify('rm -rf ~')\n"
        "print(v.level, 'yaml' in sys.modules)\n"
    )
    env = {**os.environ, "TERMWISE_HOME": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0] == ["dangerous", "True"]  # cold: parsed, and the entries written
    assert runs[1] == ["dangerous", "False"]  # warm: from the cache
    assert len(list((tmp_path / "cache" / "yaml").glob("safety-*.json"))) == 2


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="Windows' stat has no change time (st_ctime is the creation time), so an in-place "
    "rewrite with its old mtime put back is not seen there; a replaced file is (next test)",
)
def test_a_same_size_copy_with_the_old_mtime_is_read_again(tmp_path: Path) -> None:
    """`cp -p` onto the file can bring back the old size and mtime; its change time tells."""
    source = tmp_path / "r.yaml"
    source.write_text("level: safe\n")
    cache = tmp_path / "cache"
    load_yaml_files("p", [source], cache_dir=cache)
    old = os.stat(source)
    source.write_text("level: dang\n")  # same size
    os.utime(source, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert os.stat(source).st_mtime_ns == old.st_mtime_ns
    assert load_yaml_files("p", [source], cache_dir=cache) == [{"level": "dang"}]


def test_a_same_size_file_put_in_place_with_the_old_mtime_is_read_again(tmp_path: Path) -> None:
    """An unpacked archive or an update replaces the file by another with the old size and
    mtime: it is another file (inode / file index), so it is read again on every OS."""
    source = tmp_path / "r.yaml"
    source.write_text("level: safe\n")
    cache = tmp_path / "cache"
    load_yaml_files("p", [source], cache_dir=cache)
    old = os.stat(source)
    fresh = tmp_path / "r.yaml.new"
    fresh.write_text("level: dang\n")  # same size
    os.utime(fresh, ns=(old.st_atime_ns, old.st_mtime_ns))
    os.replace(fresh, source)
    assert os.stat(source).st_mtime_ns == old.st_mtime_ns
    assert load_yaml_files("p", [source], cache_dir=cache) == [{"level": "dang"}]
