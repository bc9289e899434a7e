"""Reading a repository for planning: GitHub's REST API, any git URL, a local folder or a name."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from termwise.agent.base.errors import AgentError

# Files that tell how a project is built and run, in the order a planner reads them.
MANIFESTS = (
    "package.json",
    "pyproject.toml",
    "requirements.txt",
    "requirements-dev.txt",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "environment.yml",
    "environment.yaml",
    "Dockerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yaml",
    "compose.yml",
    "Makefile",
    "Cargo.toml",
    "go.mod",
    "CMakeLists.txt",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    ".nvmrc",
    ".node-version",
    ".python-version",
    ".tool-versions",
    "Procfile",
    ".env.example",
)
_REQUIREMENTS = re.compile(r"^requirements[\w.-]*\.txt$", re.IGNORECASE)
_README = re.compile(r"^readme(\.(md|rst|txt|markdown))?$", re.IGNORECASE)
README_LIMIT = 40_000
MANIFEST_LIMIT = 12_000
HTTP_TIMEOUT = 15.0
CLONE_TIMEOUT = 120.0

Kind = Literal["github", "git", "local", "name"]


class SourceError(AgentError):
    """The repository could not be read; the message says why and what to do."""


@dataclass
class RepoSnapshot:
    """What a planner gets to read about a repository."""

    name: str
    origin: str
    kind: Kind
    readme: str | None = None
    readme_name: str | None = None
    listing: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def from_knowledge(self) -> bool:
        """True when nothing was read: the plan comes from the model's own knowledge."""
        return self.kind == "name"


def is_manifest(name: str) -> bool:
    return name in MANIFESTS or bool(_REQUIREMENTS.match(name))


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [truncated: {len(text) - limit} more characters]"


_GITHUB_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?(?:/.*)?$",
    re.IGNORECASE,
)
_GITHUB_SSH = re.compile(r"^git@github\.com:(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?$")
_SHORTHAND = re.compile(r"^(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)$")
_GIT_URL = re.compile(r"^(?:(?:https?|git|ssh|file)://|[\w.-]+@[\w.-]+:)")


def classify_target(target: str, cwd: Path | None = None) -> tuple[Kind, str]:
    """Decide how to read `target`: returns the kind and the normalised target."""
    target = target.strip()
    if not target:
        raise SourceError("give a repository URL, a local folder or a project name")
    base = cwd or Path.cwd()
    path = Path(target).expanduser()
    if not path.is_absolute():
        path = base / path
    if path.is_dir():
        return "local", str(path.resolve())
    for pattern in (_GITHUB_URL, _GITHUB_SSH):
        m = pattern.match(target)
        if m:
            return "github", f"{m['owner']}/{m['repo']}"
    if _GIT_URL.match(target):
        return "git", target
    m = _SHORTHAND.match(target)
    if m and not target.startswith("."):
        return "github", f"{m['owner']}/{m['repo']}"
    if re.fullmatch(r"[\w.+-]+( [\w.+-]+)*", target):
        return "name", target
    raise SourceError(f"`{target}` is neither a folder, a git URL nor a project name")


def read_local(folder: Path, origin: str | None = None, kind: Kind = "local") -> RepoSnapshot:
    """Read the README, the root listing and the manifests of a folder."""
    if not folder.is_dir():
        raise SourceError(f"{folder} is not a folder")
    snap = RepoSnapshot(name=folder.name, origin=origin or str(folder), kind=kind)
    entries = sorted(folder.iterdir(), key=lambda p: p.name.lower())
    snap.listing = [p.name + ("/" if p.is_dir() else "") for p in entries if p.name != ".git"]
    for p in entries:
        if not p.is_file():
            continue
        if snap.readme is None and _README.match(p.name):
            snap.readme = _truncate(p.read_text(encoding="utf-8", errors="replace"), README_LIMIT)
            snap.readme_name = p.name
        elif is_manifest(p.name):
            text = p.read_text(encoding="utf-8", errors="replace")
            snap.files[p.name] = _truncate(text, MANIFEST_LIMIT)
    if snap.readme is None:
        snap.notes.append("The repository has no README; the plan relies on its manifests.")
    return snap


def clone_and_read(url: str, *, timeout: float = CLONE_TIMEOUT) -> RepoSnapshot:
    """Shallow-clone a git URL into a temporary folder, read it, and remove the clone."""
    if shutil.which("git") is None:
        raise SourceError("git is not installed; install it to read repositories by URL")
    tmp = Path(tempfile.mkdtemp(prefix="termwise-clone-"))
    try:
        proc = subprocess.run(
            ["git", "clone", "--depth", "1", "--quiet", url, str(tmp / "repo")],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},  # never prompt for credentials
        )
        if proc.returncode != 0:
            reason = (
                proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "unknown error"
            )
            raise SourceError(f"could not clone {url}: {reason}")
        snap = read_local(tmp / "repo", origin=url, kind="git")
        snap.name = _name_from_url(url)
        return snap
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"cloning {url} took longer than {timeout:.0f} s; stopped") from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _name_from_url(url: str) -> str:
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail.removesuffix(".git") or url


class GitHubReader:
    """Reads a repository through the GitHub REST API (anonymous unless given a token)."""

    def __init__(
        self,
        api_base: str = "https://api.github.com",
        token: str | None = None,
        timeout: float = HTTP_TIMEOUT,
    ) -> None:
        self.api = api_base.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _get(self, path: str, *, raw: bool = False) -> bytes:
        req = urllib.request.Request(self.api + path)
        req.add_header(
            "Accept", "application/vnd.github.raw" if raw else "application/vnd.github+json"
        )
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "termwise")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return bytes(resp.read())
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc, path) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise SourceError(f"cannot reach {self.api} ({reason}); check the network") from exc

    def _http_error(self, exc: urllib.error.HTTPError, path: str) -> SourceError:
        headers = exc.headers
        remaining = headers.get("X-RateLimit-Remaining") if headers else None
        if exc.code in (403, 429) and (remaining == "0" or headers.get("Retry-After")):
            reset = headers.get("X-RateLimit-Reset")
            when = ""
            if reset and reset.isdigit():
                when = " until " + time.strftime("%H:%M:%S", time.localtime(int(reset)))
            elif headers.get("Retry-After"):
                when = f" for {headers['Retry-After']} s"
            hint = (
                ""
                if self.token
                else "; a token raises the limit (GITHUB_TOKEN or termwise config set-key github)"
            )
            return SourceError(f"GitHub's rate limit is used up{when}{hint}")
        if exc.code == 401:
            return SourceError(
                "GitHub refused the token (401); set a new GITHUB_TOKEN or termwise config set-key github"
            )
        if exc.code == 403:
            return SourceError(f"GitHub refused access to {path} (403)")
        if exc.code == 404:
            return SourceError("not found")  # callers word it for what was missing
        return SourceError(f"GitHub answered {exc.code} for {path}")

    def read(self, slug: str) -> RepoSnapshot:
        owner_repo = "/".join(urllib.parse.quote(p, safe="") for p in slug.split("/", 1))
        try:
            meta = json.loads(self._get(f"/repos/{owner_repo}"))
        except SourceError as exc:
            if str(exc) == "not found":
                private = (
                    ""
                    if self.token
                    else " (a private one needs a token: GITHUB_TOKEN or termwise config set-key github)"
                )
                raise SourceError(f"repository {slug} not found or private{private}") from exc
            raise
        snap = RepoSnapshot(
            name=meta.get("name") or slug, origin=f"https://github.com/{slug}", kind="github"
        )
        if meta.get("description"):
            snap.notes.append(f"Description: {meta['description']}")
        ref = meta.get("default_branch")
        suffix = f"?ref={urllib.parse.quote(ref)}" if ref else ""
        listing = json.loads(self._get(f"/repos/{owner_repo}/contents/{suffix}"))
        snap.listing = sorted(
            (e["name"] + ("/" if e.get("type") == "dir" else ""))
            for e in listing
            if isinstance(e, dict)
        )
        names = [e["name"] for e in listing if isinstance(e, dict) and e.get("type") == "file"]
        try:
            snap.readme = _truncate(
                self._get(f"/repos/{owner_repo}/readme{suffix}", raw=True).decode(
                    "utf-8", "replace"
                ),
                README_LIMIT,
            )
            snap.readme_name = next((n for n in names if _README.match(n)), "README")
        except SourceError as exc:
            if str(exc) != "not found":
                raise
            snap.notes.append("The repository has no README; the plan relies on its manifests.")
        for name in names:
            if is_manifest(name):
                path = f"/repos/{owner_repo}/contents/{urllib.parse.quote(name)}{suffix}"
                text = self._get(path, raw=True).decode("utf-8", "replace")
                snap.files[name] = _truncate(text, MANIFEST_LIMIT)
        return snap


TOKEN_ENV = ("GITHUB_TOKEN", "GH_TOKEN")


def github_token(env: Mapping[str, str] | None = None) -> str | None:
    """A GitHub token from GITHUB_TOKEN / GH_TOKEN or the keyring (service termwise, user github)."""
    from termwise.agent.llm.keys import get_key

    env = os.environ if env is None else env
    for name in TOKEN_ENV:
        if env.get(name):
            return env[name]
    return get_key("github", "", env)[0]


def fetch_repository(
    target: str,
    *,
    github_api: str = "https://api.github.com",
    token: str | None = None,
    cwd: Path | None = None,
) -> RepoSnapshot:
    """Read whatever `target` names: GitHub repo, git URL, local folder or bare name."""
    kind, value = classify_target(target, cwd)
    if kind == "local":
        return read_local(Path(value))
    if kind == "github":
        return GitHubReader(github_api, token).read(value)
    if kind == "git":
        return clone_and_read(value)
    return RepoSnapshot(
        name=value,
        origin=value,
        kind="name",
        notes=["Nothing was read: this plan comes from the model's own knowledge of the project."],
    )
