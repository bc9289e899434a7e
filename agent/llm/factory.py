"""Build the model client from config and environment, or None when there is no model."""

from __future__ import annotations

import json
import logging
import os
import urllib.error
import urllib.request
from collections.abc import Mapping

from termwise.agent.base.config_schema import Config
from termwise.agent.llm.base import TASKS, LlmClient
from termwise.agent.llm.providers import PRESETS, Provider
from termwise.agent.llm.routing import Route, has_model_settings, resolve_routes, task_config

log = logging.getLogger(__name__)

OLLAMA_URL = PRESETS["ollama"].base_url
OLLAMA_PROBE_TIMEOUT = 0.4


def make_client(
    config: Config,
    env: Mapping[str, str] | None = None,
    *,
    ollama_url: str = OLLAMA_URL,
) -> LlmClient | None:
    """The client for the configured providers; None means offline (no model set or answering).

    Raises ConfigError when the settings name a model but are unusable (unknown provider,
    no model name), so the user hears about the mistake instead of silently going offline.
    """
    env = os.environ if env is None else env
    if has_model_settings(config, env):
        routes = resolve_routes(config, env)
    elif config.llm.probe_ollama:
        model = probe_ollama(ollama_url)
        if model is None:
            return None
        provider = Provider(
            name="ollama", base_url=ollama_url, default_model=model, preset="ollama"
        )
        routes = {
            t: Route(
                t,
                provider,
                model,
                float(task_config(config, t).temperature),
                max_tokens=task_config(config, t).max_tokens,
            )
            for t in TASKS
        }
    else:
        return None
    from termwise.agent.llm.openai_client import OpenAIClient  # the SDK loads only when needed

    return OpenAIClient(
        routes,
        connect_timeout=config.llm.connect_timeout,
        first_token_timeout=config.llm.first_token_timeout,
        max_retries=config.llm.max_retries,
        answer_deadline=config.llm.answer_deadline,
        structured_output=config.llm.structured_output,
    )


def probe_ollama(base_url: str = OLLAMA_URL, timeout: float = OLLAMA_PROBE_TIMEOUT) -> str | None:
    """The first model a local Ollama lists, when it answers `/v1/models` quickly; else None."""
    url = base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            data = json.loads(resp.read(1_000_000))
    except (OSError, ValueError, urllib.error.URLError) as exc:
        log.debug("no local Ollama at %s: %s", url, exc)
        return None
    models = [m.get("id") for m in data.get("data", []) if isinstance(m, dict)]
    models = [m for m in models if isinstance(m, str) and m]
    if not models:
        log.info("a local Ollama answers but has no models pulled")
        return None
    return models[0]
