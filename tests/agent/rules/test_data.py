"""The rules' YAML data is well-formed: a typo there would silently disable fixes."""

from __future__ import annotations

from termwise.agent.rules import data
from termwise.agent.rules.install import LANG_MANAGERS, OS_MANAGERS

KEYS = {*OS_MANAGERS, *LANG_MANAGERS, "all", "winget", "extra", "prefer"}


def test_tools_name_known_managers_only() -> None:
    """Every tool entry uses known package-manager keys with string package names."""
    for name, entry in data.tools().items():
        assert set(entry) <= KEYS, (name, set(entry) - KEYS)
        for key, value in entry.items():
            assert isinstance(value, list if key == "extra" else str), (name, key, value)


def test_aliases_point_at_tools() -> None:
    """Every alias names a tool that exists."""
    tools = data.tools()
    assert all(target in tools for target in data.tool_aliases().values())


def test_import_map_is_strings() -> None:
    """Import names map to pip package names (YAML did not turn any into booleans)."""
    imports = data.import_packages()
    assert len(imports) > 300
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in imports.items())
    for module, package in {
        "cv2": "opencv-python",
        "yaml": "pyyaml",
        "PIL": "pillow",
        "sklearn": "scikit-learn",
    }.items():
        assert imports[module] == package


def test_command_lists_are_strings() -> None:
    """Known-command lists hold only strings (`true`, `yes` stay words, not booleans)."""
    for family in ("posix", "powershell", "cmd"):
        names = data.known_commands(family)
        assert names and all(isinstance(n, str) for n in names)
    assert "true" in data.known_commands("posix")


def test_windows_equivalents_cover_both_shells() -> None:
    """Each Unix command has a PowerShell and a cmd equivalent."""
    for name, entry in data.windows_equivalents().items():
        assert set(entry) == {"powershell", "cmd"}, name


def test_messages_are_lower_case_strings() -> None:
    """Permission fragments are compared against lower-cased output, so they must be lower case."""
    for fragment in data.permission_messages():
        assert isinstance(fragment, str) and fragment == fragment.lower()
