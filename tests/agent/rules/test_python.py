"""Python: missing modules → the right pip package, pip and python missing, venvs."""

from __future__ import annotations

import pytest
from termwise.agent.rules import suggest_fixes
from termwise.agent.rules.python import pip_package

from tests.agent.rules.cases_python import CASES, mnf
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_python_table(case: T) -> None:
    """Each Python failure yields the install or invocation that fixes it."""
    check(case)


def test_submodule_maps_to_top_package() -> None:
    """`No module named 'a.b'` installs the package of `a`, unless `a.b` is mapped itself."""
    assert pip_package("yaml.constructor") == "pyyaml"
    assert pip_package("google.protobuf") == "protobuf"
    assert pip_package("somethingunknown.sub") == "somethingunknown"


def test_explanation_names_the_module() -> None:
    """The one-line explanation says which module the package provides."""
    s = suggest_fixes("python a.py", mnf("cv2"), 1)[0]
    assert "cv2" in s.explanation and s.rule == "py_missing_module"
