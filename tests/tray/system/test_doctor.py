"""`termwise doctor` run as the real command in a temporary home, checked by its report."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support import wine_limits

TIMEOUT = 120
SECRET = "sk-doctor-secret-4242424242"


def doctor(
    *args: str, env_extra: dict[str, str] | None = None, drop: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **(env_extra or {}))
    for name in drop:
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def report(*args: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    done = doctor("--json", *args, **kwargs)
    assert done.stdout.startswith("{"), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)


def lines(data: dict[str, Any], prefix: str) -> list[dict[str, str]]:
    return [c for c in data["checks"] if c["name"].startswith(prefix)]


def write_config(home: Path, text: str) -> Path:
    path = home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def provider_config(base_url: str, model: str = "test", name: str = "local") -> str:
    return (
        "providers:\n"
        f"  - name: {name}\n"
        "    preset: custom\n"
        f"    base_url: {base_url}\n"
        f"    default_model: {model}\n"
        "    key_env: DOCTOR_TEST_KEY\n"
    )


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (kernel backlog) but never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield int(s.getsockname()[1])


@pytest.fixture
def key_checking_server() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server whose /v1/models wants `Bearer <SECRET>`; records what it got."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            auth = self.headers.get("Authorization", "")
            seen.append(auth)
            good = auth == f"Bearer {SECRET}"
            body = json.dumps(
                {"data": [{"id": "m1"}]} if good else {"error": {"message": "bad key"}}
            ).encode()
            self.send_response(200 if good else 401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def test_every_check_reports_a_status_and_failures_carry_a_fix():
    """The report names every area the issue lists; anything not OK says what to do."""
    _, data = report()
    names = {c["name"] for c in data["checks"]}
    for expected in (
        "Python",
        "Qt platform",
        "System tray",
        "Hotkey backend",
        "PTY backend",
        "Shells",
        "termwise on PATH",
        "Terminal launcher",
        "Keyring",
        "Clipboard",
        "Config",
        "Memory folder",
        "Model",
    ):
        assert expected in names, names
    for check in data["checks"]:
        assert check["status"] in ("ok", "warn", "fail")
        assert check["detail"]
        assert check["status"] == "ok" or check["fix"], check
    assert data["ok"] == (not any(c["status"] == "fail" for c in data["checks"]))
    pty = lines(data, "PTY backend")[0]
    if wine_limits.UNDER_WINE:
        # Wine's ConPTY cannot start: doctor names the WinPTY fallback and warns.
        assert pty["status"] == "warn" and "pywinpty (WinPTY)" in pty["detail"], pty
    else:
        assert pty["status"] == "ok", pty
    assert lines(data, "Python")[0]["status"] == "ok"


def test_text_report_puts_fixes_under_their_line_and_sums_up(termwise_home: Path, closed_port):
    """The human report shows OK/WARN/FAIL lines, the fix beneath, a summary, and exit 1."""
    write_config(termwise_home, provider_config(f"http://127.0.0.1:{closed_port}/v1"))
    done = doctor()
    assert done.returncode == 1
    out = done.stdout.splitlines()
    fail_at = next(i for i, line in enumerate(out) if line.startswith("  FAIL  Provider local"))
    assert out[fail_at + 1].strip().startswith("fix: start the model server")
    assert re.fullmatch(r"\d+ ok, \d+ warnings?, [1-9]\d* failures?", out[-1]), out[-1]
    assert out[0].startswith("termwise doctor (termwise ")


def test_broken_config_is_reported_with_file_and_line_and_left_in_place(termwise_home: Path):
    """A bad value is a FAIL naming config.yaml:line; doctor never moves the user's file."""
    path = write_config(termwise_home, "hotkey:\n  combo: ctrl+alt+space\n  enabled: maybe\n")
    code, data = report()
    assert code == 1
    problems = [c for c in lines(data, "Config") if c["status"] == "fail"]
    assert len(problems) == 1
    assert problems[0]["detail"].startswith(f"{path}:3: `hotkey.enabled` should be bool")
    assert "edit the file at the line shown" in problems[0]["fix"]
    assert path.read_text().endswith("enabled: maybe\n")
    assert not list(path.parent.glob("config.yaml.bad-*"))


def test_invalid_yaml_names_the_line(termwise_home: Path):
    """Unparseable YAML is reported with the line where parsing failed."""
    path = write_config(termwise_home, "ui:\n  theme: dark\n  language: [en\n")
    _, data = report()
    (problem,) = [c for c in lines(data, "Config") if c["status"] == "fail"]
    assert problem["detail"].startswith(f"{path}:")
    assert "not valid YAML" in problem["detail"]


def test_provider_on_the_loopback_server_answers(termwise_home: Path, llm_server):
    """A provider pointing at a live OpenAI-compatible server is OK and lists its models."""
    write_config(termwise_home, provider_config(llm_server.base_url))
    _, data = report()
    (line,) = lines(data, "Provider local")
    assert line["status"] == "ok", line
    assert "2 models (test, test-small)" in line["detail"]
    assert llm_server.models_requests == 1


def test_provider_on_a_closed_port_fails_with_a_fix(termwise_home: Path, closed_port):
    """Nothing listening is a FAIL that says to start the server or fix the address."""
    path = write_config(termwise_home, provider_config(f"http://127.0.0.1:{closed_port}/v1"))
    code, data = report("--timeout", "10")  # Windows retries a refused connect for ~2 s
    assert code == 1
    (line,) = lines(data, "Provider local")
    assert line["status"] == "fail"
    assert f"cannot reach http://127.0.0.1:{closed_port}/v1/models" in line["detail"]
    assert "refused" in line["detail"].lower()
    assert (
        line["fix"] == f"start the model server, or correct the address in providers[0] in {path}"
    )


def test_provider_that_never_answers_times_out_quickly(termwise_home: Path, silent_port):
    """A server that accepts but stays silent fails after --timeout, not after minutes."""
    write_config(termwise_home, provider_config(f"http://127.0.0.1:{silent_port}/v1"))
    code, data = report("--timeout", "0.5")
    assert code == 1
    (line,) = lines(data, "Provider local")
    assert line["status"] == "fail"
    assert "did not answer within 0.5 s" in line["detail"]


def test_wrong_api_key_fails_and_the_key_never_appears(termwise_home: Path, key_checking_server):
    """A 401 is a FAIL saying how to store the key; no key text is ever printed."""
    url, seen = key_checking_server
    write_config(termwise_home, provider_config(url, model="m1"))
    code, data = report(env_extra={"DOCTOR_TEST_KEY": "sk-wrong-key-000000000"})
    (line,) = lines(data, "Provider local")
    assert code == 1 and line["status"] == "fail"
    assert "rejected the API key (HTTP 401)" in line["detail"]
    assert "termwise config set-key local" in line["fix"] and "DOCTOR_TEST_KEY" in line["fix"]

    done = doctor(env_extra={"DOCTOR_TEST_KEY": SECRET})
    assert "  OK    Provider local" in done.stdout
    assert seen[-1] == f"Bearer {SECRET}"
    assert SECRET not in done.stdout + done.stderr


def test_model_the_provider_does_not_list_is_a_warning(termwise_home: Path, llm_server):
    """A configured model missing from /models is flagged before the first suggestion fails."""
    write_config(termwise_home, provider_config(llm_server.base_url, model="gpt-nonexistent"))
    _, data = report()
    (line,) = lines(data, "Provider local")
    assert line["status"] == "warn"
    assert "does not list model gpt-nonexistent (it lists: test, test-small)" in line["detail"]


def test_environment_override_is_checked_too(llm_server):
    """TERMWISE_BASE_URL (which overrides every task) is probed like a configured provider."""
    _, data = report(env_extra={"TERMWISE_BASE_URL": llm_server.base_url, "TERMWISE_MODEL": "test"})
    (line,) = lines(data, "Provider TERMWISE_BASE_URL")
    assert line["status"] == "ok"


def test_no_provider_is_a_warning_about_offline_mode():
    """Without any model Termwise still works; doctor says so and how to add one."""
    _, data = report()
    (line,) = lines(data, "Model")
    assert line["status"] in ("warn", "ok")  # ok only when a local Ollama answers
    if line["status"] == "warn":
        assert "offline mode" in line["detail"] and "providers:" in line["fix"]


def test_fail_keyring_backend_gets_the_environment_variable_fix():
    """With keyring's fail backend, doctor explains where keys can go instead."""
    _, data = report(env_extra={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    (line,) = lines(data, "Keyring")
    assert line["status"] == "warn"
    assert "no system keyring" in line["detail"]
    assert "TERMWISE_API_KEY" in line["fix"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 display handling")
def test_missing_display_cannot_abort_doctor():
    """Qt aborts without a display; doctor still finishes and reports it with a fix."""
    done = doctor("--json", drop=("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"))
    data = json.loads(done.stdout)
    (qt,) = lines(data, "Qt platform")
    assert qt["status"] == "fail"
    assert "could not connect to display" in qt["detail"]
    assert "desktop session" in qt["fix"]
    assert lines(data, "Memory folder"), "checks after Qt still ran"
    assert done.returncode == 1


def test_missing_default_shell_fails(termwise_home: Path):
    """A configured default shell that is not installed is a FAIL listing the ones found."""
    write_config(termwise_home, "terminal:\n  default_shell: wsl\n")
    if sys.platform == "win32":
        pytest.skip("wsl may exist on Windows")
    _, data = report()
    (line,) = lines(data, "Shells")
    assert line["status"] == "fail"
    assert "'wsl', which is not installed" in line["detail"]
    assert "set terminal.default_shell to one of" in line["fix"]


def test_memory_folder_that_is_a_file_fails(termwise_home: Path):
    """When the memory folder cannot be used, doctor says so and what to move."""
    memory = termwise_home / "data" / "memory"
    memory.parent.mkdir(parents=True)
    memory.write_text("not a folder")
    _, data = report()
    (line,) = lines(data, "Memory folder")
    assert line["status"] == "fail"
    assert "is not a folder" in line["detail"]


def test_writable_memory_folder_is_ok_and_left_clean(termwise_home: Path):
    """The write probe leaves nothing behind in the user's memory folder."""
    memory = termwise_home / "data" / "memory"
    memory.mkdir(parents=True)
    (memory / "profile.md").write_text("# Profile\n")
    _, data = report()
    (line,) = lines(data, "Memory folder")
    assert line["status"] == "ok" and "1 Markdown files" in line["detail"]
    assert sorted(p.name for p in memory.iterdir()) == ["profile.md"]


def test_frozen_tray_runs_its_console_sibling_for_child_checks(tmp_path: Path, monkeypatch):
    """In a frozen install, doctor's child processes use termwise.exe, not the windowed tray."""
    from termwise.tray.system.doctor.base import self_command

    (tmp_path / "TermwiseTray.exe").write_bytes(b"")
    (tmp_path / "termwise.exe").write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "TermwiseTray.exe"))
    monkeypatch.setattr(sys, "platform", "win32")
    assert self_command() == [str(tmp_path / "termwise.exe")]
    monkeypatch.setattr(sys, "platform", "linux")
    assert self_command() == [str(tmp_path / "TermwiseTray.exe")]


def test_termwise_missing_from_path_is_a_warning(tmp_path: Path):
    """Without `termwise` on PATH, doctor says terminals cannot call it and how to fix that."""
    path = os.pathsep.join(
        d
        for d in os.environ["PATH"].split(os.pathsep)
        if not any((Path(d) / n).exists() for n in ("termwise", "termwise.exe"))
    )
    _, data = report(env_extra={"PATH": path})
    (line,) = lines(data, "termwise on PATH")
    assert line["status"] == "warn"
    assert "not on PATH" in line["detail"] and "add this installation's folder" in line["fix"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX stand-in script")
def test_other_termwise_first_on_path_is_a_warning(tmp_path: Path):
    """An older `termwise` shadowing this one on PATH is pointed out."""
    other = tmp_path / "termwise"
    other.write_text("#!/bin/sh\necho old\n")
    other.chmod(0o755)
    _, data = report(env_extra={"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})
    (line,) = lines(data, "termwise on PATH")
    assert line["status"] == "warn"
    assert f"`termwise` on PATH is {other}, another installation" in line["detail"]


def test_a_quoted_windows_terminal_path_is_found(tmp_path: Path):
    """terminal.command with a quoted program path (C:\\Program Files\\…) is found on Windows."""
    from dataclasses import replace

    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.system.doctor.base import DoctorContext, Status
    from termwise.tray.system.doctor.system import check_terminal

    program = tmp_path / "Windows Terminal" / "wt.exe"
    program.parent.mkdir()
    program.write_text("")
    program.chmod(0o755)
    config = Config()
    config = replace(
        config, terminal=replace(config.terminal, command=f'"{program}" -w 0 {{attach}}')
    )
    ctx = DoctorContext(
        env={"PATH": str(tmp_path)}, paths=resolve_paths(), config=config, platform="win32"
    )
    result = check_terminal(ctx)
    assert result.status == Status.OK, result
    assert str(program) in result.detail
