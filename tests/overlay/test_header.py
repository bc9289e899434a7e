"""The overlay header names the folder as the prompt does: home as `~`, long paths elided."""

from __future__ import annotations

from termwise.overlay.header import MAX_PATH_CHARS, short_path


def test_the_home_folder_reads_as_a_tilde() -> None:
    assert short_path("/home/ann/src/shop", "/home/ann") == "~/src/shop"
    assert short_path("/home/ann", "/home/ann/") == "~"
    assert short_path("/home/anna/src", "/home/ann") == "/home/anna/src"  # not a prefix folder
    assert short_path("/srv/app", "/home/ann") == "/srv/app"
    assert short_path("/etc", "/") == "/etc"


def test_a_long_folder_keeps_its_start_and_its_end() -> None:
    deep = "/srv/" + "/".join(f"level{i}" for i in range(20)) + "/target"
    shown = short_path(deep, "/home/ann")
    assert len(shown) == MAX_PATH_CHARS
    assert shown.startswith("/srv/") and shown.endswith("/target") and "…" in shown
