"""Data files shipped with Termwise: icons, default config, prompts, rules, shell scripts."""
