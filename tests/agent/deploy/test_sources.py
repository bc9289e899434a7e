"""Reading repositories for a plan: GitHub API, git URL, local folder, bare name, and failures."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.deploy.sources import SourceError, classify_target, fetch_repository

from tests.support.github_server import FakeGitHub
from tests.support.wine_limits import wine_limit


def _fixture_repo(root: Path) -> Path:
    repo = root / "webapp"
    repo.mkdir()
    (repo / "README.md").write_text("# webapp\n\nRun `npm install` then `npm start`.\n")
    (repo / "package.json").write_text(
        json.dumps({"name": "webapp", "scripts": {"start": "node ."}})
    )
    (repo / ".nvmrc").write_text("20\n")
    (repo / "requirements-dev.txt").write_text("pytest\n")
    (repo / "src").mkdir()
    (repo / "src" / "index.js").write_text("console.log('hi')\n")
    return repo


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    fake.repos["acme/webapp"] = _fixture_repo(tmp_path)
    yield fake
    fake.stop()


def test_github_repo_read_through_the_api(github: FakeGitHub):
    """README, root listing and manifests come from the REST API."""
    snap = fetch_repository("https://github.com/acme/webapp", github_api=github.api)
    assert snap.kind == "github" and snap.name == "webapp"
    assert "npm start" in (snap.readme or "")
    assert set(snap.files) == {"package.json", ".nvmrc", "requirements-dev.txt"}
    assert "src/" in snap.listing
    assert all("Authorization" not in h for _, h in github.requests), "anonymous by default"


def test_github_token_is_sent_and_opens_private_repos(github: FakeGitHub):
    github.private.add("acme/webapp")
    with pytest.raises(SourceError, match=r"not found or private.*set-key github"):
        fetch_repository("acme/webapp", github_api=github.api)
    snap = fetch_repository("acme/webapp", github_api=github.api, token="t0k")
    assert snap.readme


def test_rate_limit_names_the_reset_time(github: FakeGitHub):
    github.rate_limited = True
    with pytest.raises(SourceError, match=r"rate limit is used up until \d\d:\d\d:\d\d"):
        fetch_repository("https://github.com/acme/webapp", github_api=github.api)


def test_missing_repository_is_a_clear_404(github: FakeGitHub):
    with pytest.raises(SourceError, match="acme/nothing not found"):
        fetch_repository("https://github.com/acme/nothing.git", github_api=github.api)


def test_missing_readme_is_noted(github: FakeGitHub, tmp_path: Path):
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "Makefile").write_text("all:\n\ttrue\n")
    github.repos["acme/bare"] = bare
    snap = fetch_repository("acme/bare", github_api=github.api)
    assert snap.readme is None and "Makefile" in snap.files
    assert any("no README" in n for n in snap.notes)


def test_unreachable_api_says_so():
    with pytest.raises(SourceError, match="cannot reach"):
        fetch_repository("acme/webapp", github_api="http://127.0.0.1:9")


@wine_limit("no-posix-tools")
def test_git_url_is_shallow_cloned(tmp_path: Path):
    repo = _fixture_repo(tmp_path)
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    snap = fetch_repository(f"file://{repo}")
    assert snap.kind == "git" and snap.name == "webapp"
    assert "package.json" in snap.files and ".git/" not in snap.listing


@wine_limit("no-posix-tools")
def test_bad_git_url_reports_git_error(tmp_path: Path):
    with pytest.raises(SourceError, match="could not clone"):
        fetch_repository(f"file://{tmp_path}/missing")


def test_local_folder_is_read_directly(tmp_path: Path):
    repo = _fixture_repo(tmp_path)
    snap = fetch_repository(str(repo))
    assert snap.kind == "local" and "npm start" in (snap.readme or "")


def test_bare_name_is_labelled_as_knowledge():
    snap = fetch_repository("nextcloud")
    assert snap.from_knowledge and "model's own knowledge" in snap.notes[0]


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("https://github.com/a/b", "github"),
        ("https://github.com/a/b/tree/main/docs", "github"),
        ("git@github.com:a/b.git", "github"),
        ("a/b", "github"),
        ("https://gitlab.com/a/b.git", "git"),
        ("git@gitlab.com:a/b.git", "git"),
        ("ollama", "name"),
    ],
)
def test_targets_are_classified(target: str, kind: str, tmp_path: Path):
    assert classify_target(target, cwd=tmp_path)[0] == kind


def test_token_comes_from_the_environment_or_the_keyring(memory_keyring) -> None:
    """GITHUB_TOKEN wins; otherwise the keyring entry termwise/github; otherwise none."""
    from termwise.agent.deploy.sources import github_token

    assert github_token({}) is None
    memory_keyring.set_password("termwise", "github", "from-keyring")
    assert github_token({}) == "from-keyring"
    assert github_token({"GITHUB_TOKEN": "from-env"}) == "from-env"
    assert github_token({"GH_TOKEN": "gh"}) == "gh"
