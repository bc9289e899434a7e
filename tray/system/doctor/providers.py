"""Does each configured model provider answer? One short `GET /models` per provider.

Plain urllib on purpose: only the LLM client module imports the openai SDK, and a
doctor should see the raw answer (status, listed models) without retries.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from termwise.tray.system.doctor.base import CheckResult, DoctorContext, fail, ok, warn

MAX_BODY = 2_000_000
SHOWN_MODELS = 5


@dataclass(frozen=True)
class Target:
    """A provider to ask, with the models the config expects it to serve."""

    label: str  # how the report names it
    base_url: str
    key: str | None
    key_hint: str  # how to set the key, for the fix text
    needs_key: bool
    models: tuple[str, ...]
    where: str  # where the setting lives, for the fix text


def targets(ctx: DoctorContext) -> tuple[list[Target], list[CheckResult]]:
    """Providers from the environment override and the config; problems as results."""
    from termwise.agent.base.errors import ConfigError
    from termwise.agent.llm.keys import get_key
    from termwise.agent.llm.providers import provider_from_config
    from termwise.agent.llm.routing import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL

    found: list[Target] = []
    problems: list[CheckResult] = []
    url = ctx.env.get(ENV_BASE_URL, "").strip()
    if url:
        model = ctx.env.get(ENV_MODEL, "").strip()
        found.append(
            Target(
                label=f"{ENV_BASE_URL} ({url})",
                base_url=url,
                key=ctx.env.get(ENV_API_KEY) or None,
                key_hint=f"set {ENV_API_KEY}",
                needs_key=False,
                models=(model,) if model else (),
                where=f"the {ENV_BASE_URL} environment variable",
            )
        )
    for i, pc in enumerate(ctx.config.providers):
        try:
            provider = provider_from_config(pc, i)
        except ConfigError as exc:
            problems.append(
                fail(
                    f"Provider #{i + 1}",
                    str(exc),
                    f"correct providers[{i}] in {ctx.paths.config_file}",
                )
            )
            continue
        key, _source = get_key(provider.name, provider.key_env, ctx.env)
        hint = f"`termwise config set-key {provider.name}`"
        if provider.key_env:
            hint += f" or set {provider.key_env}"
        models = {provider.default_model} if provider.default_model else set()
        for task in ("suggest", "safety", "memory", "deploy", "chat"):
            tc = getattr(ctx.config.tasks, task, None)
            if tc is None or not tc.model:
                continue
            # A task without a provider uses the first one.
            if tc.provider == provider.name or (not tc.provider and i == 0):
                models.add(tc.model)
        found.append(
            Target(
                label=f"{provider.name} ({provider.base_url})",
                base_url=provider.base_url,
                key=key,
                key_hint=hint,
                needs_key=provider.needs_key,
                models=tuple(sorted(models)),
                where=f"providers[{i}] in {ctx.paths.config_file}",
            )
        )
    return found, problems


def _models_of(body: bytes) -> list[str]:
    data = json.loads(body)
    items = data.get("data", data.get("models", [])) if isinstance(data, dict) else []
    names = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            value = item.get("id") or item.get("name")
            if isinstance(value, str):
                names.append(value)
    return names


def _listed(model: str, models: list[str]) -> bool:
    # Some endpoints list "models/<name>" or "<name>:latest".
    return any(m == model or m.endswith("/" + model) or m.split(":")[0] == model for m in models)


def check_target(target: Target, timeout: float) -> CheckResult:
    name = f"Provider {target.label}"
    if target.needs_key and not target.key:
        return fail(name, "no API key", f"store one with {target.key_hint}")
    url = target.base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if target.key:
        request.add_header("Authorization", f"Bearer {target.key}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            body = resp.read(MAX_BODY)
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            return fail(
                name,
                f"{url} rejected the API key (HTTP {exc.code})",
                f"store the right key with {target.key_hint}",
            )
        if exc.code == 404:
            return warn(
                name,
                f"{url} answered HTTP 404: no /models here",
                f"check that the base URL in {target.where} ends with the API root (often /v1)",
            )
        return fail(
            name, f"{url} answered HTTP {exc.code} {exc.reason}", "try again later or check it"
        )
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(exc, TimeoutError) or isinstance(reason, TimeoutError):
            return fail(
                name,
                f"{url} did not answer within {timeout:g} s",
                f"check the network and proxy, or the address in {target.where}",
            )
        return fail(
            name,
            f"cannot reach {url}: {getattr(reason, 'strerror', None) or reason}",
            f"start the model server, or correct the address in {target.where}",
        )
    took = (time.monotonic() - started) * 1000
    try:
        models = _models_of(body)
    except ValueError:
        return warn(
            name,
            f"{url} answered, but not with JSON",
            f"check that the address in {target.where} is an OpenAI-compatible API",
        )
    missing = [m for m in target.models if not _listed(m, models)]
    shown = ", ".join(models[:SHOWN_MODELS]) + (" …" if len(models) > SHOWN_MODELS else "")
    if missing and models:
        return warn(
            name,
            f"answers, but does not list model {', '.join(missing)} (it lists: {shown})",
            f"use one of its models in {target.where} or tasks.*.model",
        )
    return ok(name, f"answers in {took:.0f} ms; {len(models)} models ({shown or 'none listed'})")


def check_providers(ctx: DoctorContext) -> list[CheckResult]:
    found, problems = targets(ctx)
    if not found and not problems:
        return [_offline(ctx)]
    with ThreadPoolExecutor(max_workers=min(8, max(1, len(found)))) as pool:
        results = list(pool.map(lambda t: check_target(t, ctx.timeout), found))
    return problems + results


def _offline(ctx: DoctorContext) -> CheckResult:
    from termwise.agent.llm.factory import OLLAMA_URL, probe_ollama

    if ctx.config.llm.probe_ollama:
        model = probe_ollama(OLLAMA_URL, timeout=min(ctx.timeout, 1.0))
        if model:
            return ok("Model", f"no provider configured; the local Ollama answers ({model})")
    return warn(
        "Model",
        "no model provider configured: offline mode (sessions, rules, safety and memory work)",
        f"add a provider under `providers:` in {ctx.paths.config_file}, or run Ollama locally",
    )
