"""Presets for the OpenAI-compatible providers Termwise knows by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from termwise.agent.base.config_schema import ProviderConfig
from termwise.agent.base.errors import ConfigError

# How a provider takes schema-constrained output (`response_format: json_schema`):
#   strict   OpenAI's dialect with "strict": true (every key required, no size limits)
#   bounded  the schema with item and length limits, which local servers compile into a
#            grammar (llama.cpp, Ollama, LM Studio)
#   probe    unknown server: send `bounded`; if it refuses the field, remember and go plain
#   off      not offered (DeepSeek has JSON mode only, which cannot hold our NDJSON)
Structured = Literal["strict", "bounded", "probe", "off"]
# The request field bounding an answer's length: OpenAI's newer models refuse `max_tokens`.
TokenField = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True)
class Preset:
    """What a provider name implies: its endpoint, key variable and a sensible model."""

    base_url: str
    key_env: str
    needs_key: bool
    default_model: str
    structured: Structured = "probe"
    token_field: TokenField = "max_tokens"


PRESETS: dict[str, Preset] = {
    "openai": Preset(
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
        True,
        "gpt-4o-mini",
        "strict",
        "max_completion_tokens",
    ),
    "deepseek": Preset(
        "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", True, "deepseek-chat", "off"
    ),
    "ollama": Preset("http://localhost:11434/v1", "", False, "", "bounded"),
    "gemini": Preset(
        "https://generativelanguage.googleapis.com/v1beta/openai/",
        "GEMINI_API_KEY",
        True,
        "gemini-2.0-flash",
        "strict",
    ),
    "lmstudio": Preset("http://localhost:1234/v1", "", False, "", "bounded"),
    "llamacpp": Preset("http://127.0.0.1:8080/v1", "", False, "", "bounded"),
    "custom": Preset("", "", False, ""),
}


@dataclass(frozen=True)
class Provider:
    """A provider ready to use: name, endpoint, default model and where its key comes from."""

    name: str
    base_url: str
    default_model: str = ""
    key_env: str = ""
    needs_key: bool = False
    preset: str = "custom"

    @property
    def structured(self) -> Structured:
        return PRESETS.get(self.preset, PRESETS["custom"]).structured

    @property
    def token_field(self) -> TokenField:
        return PRESETS.get(self.preset, PRESETS["custom"]).token_field


def provider_from_config(pc: ProviderConfig, index: int = 0) -> Provider:
    """Fill a configured provider in from its preset; raises ConfigError when unusable."""
    preset_name = (pc.preset or "custom").strip().lower()
    preset = PRESETS.get(preset_name)
    where = f"providers[{index}]"
    if preset is None:
        names = ", ".join(PRESETS)
        raise ConfigError(f"{where}.preset: unknown preset {pc.preset!r}; known: {names}")
    name = pc.name or preset_name
    base_url = (pc.base_url or preset.base_url).strip()
    if not base_url:
        raise ConfigError(f"{where} ({name}): a custom provider needs base_url")
    return Provider(
        name=name,
        base_url=base_url,
        default_model=pc.default_model or preset.default_model,
        key_env=pc.key_env or preset.key_env,
        needs_key=preset.needs_key,
        preset=preset_name,
    )
