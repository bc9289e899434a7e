"""The declarative config schema: every key with its type, default and description.

Each section is a dataclass; a field's `doc` metadata is its description, which also
becomes the comment above it in the generated `config.yaml`. Add a key here and it
appears in new files and merges into old ones with its default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def doc(text: str, default: Any = None, factory: Any = None) -> Any:
    """A dataclass field carrying its description."""
    if factory is not None:
        return field(default_factory=factory, metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


@dataclass
class ProviderConfig:
    name: str = doc("Name used by the tasks below to pick this provider.", "")
    preset: str = doc(
        "openai | deepseek | ollama | gemini | lmstudio | llamacpp | custom (fills in the base "
        "URL).",
        "custom",
    )
    base_url: str = doc("OpenAI-compatible endpoint, e.g. https://api.openai.com/v1.", "")
    default_model: str = doc("Model used when a task names none.", "")
    key_env: str = doc(
        "Environment variable holding the API key (the key itself lives in the system "
        "keyring: `termwise config set-key NAME`).",
        "",
    )


@dataclass
class TaskConfig:
    provider: str = doc("Provider name from `providers` (empty: the first one).", "")
    model: str = doc("Model name (empty: the provider's default model).", "")
    temperature: float = doc("Sampling temperature.", 0.7)
    max_tokens: int = doc("Most tokens one answer may take (0: the provider's limit).", 1000)


@dataclass
class TasksConfig:
    suggest: TaskConfig = doc(
        "Command suggestions.", factory=lambda: TaskConfig(temperature=0.7, max_tokens=1000)
    )
    safety: TaskConfig = doc(
        "Second-step risk explanations.",
        factory=lambda: TaskConfig(temperature=0.0, max_tokens=300),
    )
    memory: TaskConfig = doc(
        "Summaries and profile updates.",
        factory=lambda: TaskConfig(temperature=0.3, max_tokens=1500),
    )
    deploy: TaskConfig = doc(
        "Deployment plans and fixes.", factory=lambda: TaskConfig(temperature=0.2, max_tokens=4000)
    )
    chat: TaskConfig = doc(
        "`termwise chat`.", factory=lambda: TaskConfig(temperature=0.7, max_tokens=4000)
    )


@dataclass
class LlmConfig:
    connect_timeout: float = doc("Seconds to wait for the connection.", 10.0)
    first_token_timeout: float = doc(
        "Seconds to wait for the first streamed token (and for the next byte after that).", 45.0
    )
    answer_deadline: float = doc(
        "Seconds one whole answer may take, retries included (0: no limit).", 60.0
    )
    structured_output: bool = doc(
        "Ask for schema-constrained (JSON) answers where the provider offers it.", True
    )
    max_retries: int = doc("Retries on 429 and 5xx answers (with backoff).", 3)
    max_prompt_tokens: int = doc("Budget for one-shot prompts.", 4000)
    probe_ollama: bool = doc("Use a local Ollama that answers when no provider is set.", True)


@dataclass
class HotkeyConfig:
    combo: str = doc("Global hotkey that shows the overlay.", "ctrl+alt+space")
    enabled: bool = doc("Listen for the hotkey.", True)


@dataclass
class TerminalConfig:
    default_shell: str = doc(
        "Shell for new sessions: pwsh | powershell | cmd | bash | zsh | wsl (empty: the "
        "platform's usual one).",
        "",
    )
    command: str = doc(
        "Command template opening a terminal window; {attach} is replaced by the attach "
        "command (empty: detect Windows Terminal, x-terminal-emulator, gnome-terminal, "
        "konsole, xterm).",
        "",
    )


@dataclass
class SessionConfig:
    ring_bytes: int = doc("Raw output kept per session, in bytes.", 4 * 1024 * 1024)
    max_blocks: int = doc("Command blocks kept per session.", 200)
    budget_bytes: int = doc(
        "Output kept by all sessions together (raw rings and command blocks), in bytes; "
        "over it, ended sessions go first, then rings shrink and the oldest blocks go.",
        64 * 1024 * 1024,
    )
    rows: int = doc("Initial terminal rows.", 24)
    cols: int = doc("Initial terminal columns.", 80)


@dataclass
class PrivacyConfig:
    redact: bool = doc("Replace secrets with markers before text leaves the machine.", True)
    max_output_lines: int = doc("Output lines of a block that may be sent to a model.", 80)
    patterns: list[str] = doc("Extra regular expressions to redact (kind: user).", factory=list)


@dataclass
class UiConfig:
    language: str = doc("auto | en | zh_CN", "auto")
    theme: str = doc("auto | light | dark", "auto")
    failure_nudge: bool = doc("Notify when a command fails in any session.", True)
    start_at_login: bool = doc("Start Termwise when you log in.", False)


@dataclass
class MemoryConfig:
    enabled: bool = doc("Learn from sessions and remember preferences.", True)
    short_term: int = doc("Recent commands kept per session.", 20)
    summary_every: int = doc("Summarise a session every N commands.", 10)
    top_n: int = doc("Memories retrieved into a prompt.", 3)
    chat_turns: int = doc("Past exchanges `termwise chat` sends with each question.", 10)


@dataclass
class EmailConfig:
    host: str = doc("SMTP host (empty: the email skill is off).", "")
    port: int = doc("SMTP port.", 587)
    username: str = doc("SMTP user name (password in the keyring: smtp).", "")
    sender: str = doc("From address.", "")
    starttls: bool = doc("Use STARTTLS.", True)


@dataclass
class SkillsConfig:
    allowed_folders: list[str] = doc("Folders the file skills may read.", factory=lambda: ["~"])
    max_file_bytes: int = doc("Largest file the file_read skill returns.", 65536)
    readonly_timeout: float = doc("Seconds a run_readonly command may take.", 10.0)
    weather_url: str = doc(
        "HTTP weather service; {location} is replaced (empty: the weather skill is off).", ""
    )
    email: EmailConfig = doc("The email skill.", factory=EmailConfig)


@dataclass
class DeployConfig:
    github_api: str = doc(
        "GitHub REST API base (change it for GitHub Enterprise).", "https://api.github.com"
    )
    max_repairs: int = doc("Automatic repair attempts per failed step.", 3)
    step_timeout: float = doc("Seconds a deploy step may run before it counts as stuck.", 900.0)


@dataclass
class Config:
    providers: list[ProviderConfig] = doc(
        "Model providers (any OpenAI-compatible endpoint).", factory=list
    )
    tasks: TasksConfig = doc(
        "Which provider, model and temperature each task uses.", factory=TasksConfig
    )
    llm: LlmConfig = doc("Model client behaviour.", factory=LlmConfig)
    hotkey: HotkeyConfig = doc("Global hotkey.", factory=HotkeyConfig)
    terminal: TerminalConfig = doc("Shells and terminal windows.", factory=TerminalConfig)
    session: SessionConfig = doc("Session buffers.", factory=SessionConfig)
    privacy: PrivacyConfig = doc("What may leave the machine.", factory=PrivacyConfig)
    ui: UiConfig = doc("Looks and behaviour.", factory=UiConfig)
    memory: MemoryConfig = doc("Memory of the user.", factory=MemoryConfig)
    skills: SkillsConfig = doc("Tools the model may call in `termwise chat`.", factory=SkillsConfig)
    deploy: DeployConfig = doc("Deploying repositories.", factory=DeployConfig)
