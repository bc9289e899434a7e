"""Per-task routing, provider presets and where keys come from."""

from __future__ import annotations

import keyring
import pytest
from termwise.agent.base.config_schema import Config, ProviderConfig, TaskConfig
from termwise.agent.base.errors import ConfigError
from termwise.agent.llm.keys import KeyStoreError, get_key, mask, set_key
from termwise.agent.llm.routing import resolve_route, resolve_routes


def _two_providers() -> Config:
    config = Config(
        providers=[
            ProviderConfig(name="ds", preset="deepseek"),
            ProviderConfig(name="local", preset="ollama", default_model="qwen2.5"),
        ]
    )
    config.tasks.safety = TaskConfig(provider="local", temperature=0.0)
    return config


def test_tasks_pick_provider_model_and_default_temperatures() -> None:
    """Each task uses its provider and temperature; empty provider means the first one."""
    routes = resolve_routes(_two_providers(), env={})
    assert routes["suggest"].provider.name == "ds"
    assert routes["suggest"].model == "deepseek-chat"
    assert routes["suggest"].provider.base_url == "https://api.deepseek.com/v1"
    assert routes["safety"].provider.name == "local" and routes["safety"].model == "qwen2.5"
    temps = {t: r.temperature for t, r in routes.items()}
    assert temps == {"suggest": 0.7, "safety": 0.0, "memory": 0.3, "deploy": 0.2, "chat": 0.7}


def test_env_variables_override_every_task() -> None:
    """TERMWISE_BASE_URL/MODEL/API_KEY replace the configured model of every task."""
    env = {
        "TERMWISE_BASE_URL": "http://127.0.0.1:1/v1",
        "TERMWISE_MODEL": "m",
        "TERMWISE_API_KEY": "k",
    }
    for route in resolve_routes(_two_providers(), env).values():
        assert (route.provider.base_url, route.model, route.api_key) == (
            "http://127.0.0.1:1/v1",
            "m",
            "k",
        )


def test_keys_come_from_env_then_keyring_never_config() -> None:
    """The provider's env var wins; otherwise the keyring entry `termwise`/<provider>."""
    keyring.set_password("termwise", "ds", "sk-from-keyring-123456")
    assert resolve_route(_two_providers(), "suggest", {}).api_key == "sk-from-keyring-123456"
    route = resolve_route(_two_providers(), "suggest", {"DEEPSEEK_API_KEY": "sk-env"})
    assert (route.api_key, route.key_source) == ("sk-env", "env:DEEPSEEK_API_KEY")
    assert get_key("nobody", "", {}) == (None, "")


def test_no_keyring_backend_is_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a keyring backend, storing a key names the env var to use instead."""
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())
    with pytest.raises(KeyStoreError, match="DEEPSEEK_API_KEY"):
        set_key("ds", "sk-x", "DEEPSEEK_API_KEY")
    assert get_key("ds", "", {}) == (None, "")  # reading just finds nothing


def test_bad_routing_config_names_the_problem() -> None:
    """An unknown provider name or preset is reported with what exists."""
    config = _two_providers()
    config.tasks.memory = TaskConfig(provider="nope")
    with pytest.raises(
        ConfigError, match=r"tasks.memory.provider: no provider named 'nope'; configured: ds, local"
    ):
        resolve_route(config, "memory", {})
    with pytest.raises(ConfigError, match="unknown preset"):
        resolve_route(Config(providers=[ProviderConfig(preset="acme")]), "suggest", {})


def test_mask_hides_the_key() -> None:
    """A masked key shows its start and end only."""
    assert mask("sk-abcdefghijklmnop") == "sk-…mnop"
    assert mask("") == "not set"


@pytest.mark.parametrize(
    ("preset", "url", "key_env", "needs_key"),
    [
        ("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", True),
        ("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", True),
        ("ollama", "http://localhost:11434/v1", "", False),
        (
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "GEMINI_API_KEY",
            True,
        ),
        ("lmstudio", "http://localhost:1234/v1", "", False),
    ],
)
def test_presets_fill_in_endpoint_and_key_variable(
    preset: str, url: str, key_env: str, needs_key: bool
) -> None:
    """A provider named only by its preset gets the right endpoint and key variable."""
    from termwise.agent.llm.providers import provider_from_config

    p = provider_from_config(ProviderConfig(preset=preset, default_model="m"))
    assert (p.name, p.base_url, p.key_env, p.needs_key) == (preset, url, key_env, needs_key)


def test_custom_preset_needs_a_base_url() -> None:
    """A custom provider without base_url is a config error naming the provider."""
    from termwise.agent.llm.providers import provider_from_config

    with pytest.raises(
        ConfigError, match=r"providers\[0\] \(mine\): a custom provider needs base_url"
    ):
        provider_from_config(ProviderConfig(name="mine", preset="custom"))
    p = provider_from_config(
        ProviderConfig(name="mine", base_url="http://10.0.0.5:8000/v1", default_model="x")
    )
    assert (p.base_url, p.needs_key) == ("http://10.0.0.5:8000/v1", False)
