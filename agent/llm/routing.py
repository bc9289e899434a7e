"""Per-task routing: which provider, model, temperature and key each task uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from termwise.agent.base.config_schema import Config, TaskConfig
from termwise.agent.base.errors import ConfigError
from termwise.agent.llm.base import TASKS, Task
from termwise.agent.llm.keys import get_key
from termwise.agent.llm.providers import Provider, provider_from_config

ENV_BASE_URL = "TERMWISE_BASE_URL"
ENV_MODEL = "TERMWISE_MODEL"
ENV_API_KEY = "TERMWISE_API_KEY"

DEFAULT_TEMPERATURES: dict[Task, float] = {
    "suggest": 0.7,
    "safety": 0.0,
    "memory": 0.3,
    "deploy": 0.2,
    "chat": 0.7,
}


@dataclass(frozen=True)
class Route:
    """Everything needed to call the model for one task."""

    task: Task
    provider: Provider
    model: str
    temperature: float
    api_key: str | None = None
    key_source: str = ""
    max_tokens: int = 0  # 0: leave it to the provider


def has_model_settings(config: Config, env: Mapping[str, str]) -> bool:
    """True when the config or the environment names a model endpoint."""
    return bool(env.get(ENV_BASE_URL)) or bool(config.providers)


def task_config(config: Config, task: Task) -> TaskConfig:
    return getattr(config.tasks, task)  # type: ignore[no-any-return]


def resolve_route(config: Config, task: Task, env: Mapping[str, str]) -> Route:
    """The route for `task`; the TERMWISE_* variables override every task's model."""
    tc = task_config(config, task)
    temperature = float(tc.temperature)
    override_url = env.get(ENV_BASE_URL, "").strip()
    override_model = env.get(ENV_MODEL, "").strip()
    override_key = env.get(ENV_API_KEY) or None
    if override_url:
        provider = Provider(name="env", base_url=override_url, default_model=override_model)
        model = override_model or tc.model
        if not model:
            raise ConfigError(f"{ENV_BASE_URL} is set but {ENV_MODEL} is not: name the model")
        return Route(
            task, provider, model, temperature, override_key, "env:" + ENV_API_KEY, tc.max_tokens
        )
    provider = _provider_for(config, task, tc)
    model = override_model or tc.model or provider.default_model
    if not model:
        raise ConfigError(
            f"no model for task {task!r}: set tasks.{task}.model or the provider's default_model"
        )
    if override_key:
        key, source = override_key, "env:" + ENV_API_KEY
    else:
        key, source = get_key(provider.name, provider.key_env, env)
    return Route(task, provider, model, temperature, key, source, tc.max_tokens)


def resolve_routes(config: Config, env: Mapping[str, str]) -> dict[Task, Route]:
    return {task: resolve_route(config, task, env) for task in TASKS}


def _provider_for(config: Config, task: Task, tc: TaskConfig) -> Provider:
    if not config.providers:
        raise ConfigError("no model provider configured (providers: is empty)")
    providers = [provider_from_config(pc, i) for i, pc in enumerate(config.providers)]
    if not tc.provider:
        return providers[0]
    for p in providers:
        if p.name == tc.provider:
            return p
    names = ", ".join(p.name for p in providers)
    raise ConfigError(
        f"tasks.{task}.provider: no provider named {tc.provider!r}; configured: {names}"
    )
