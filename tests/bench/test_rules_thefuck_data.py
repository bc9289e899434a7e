"""The vendored thefuck cases are intact: every row usable, the licence beside them."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data" / "thefuck"


def test_cases_are_well_formed_and_licensed() -> None:
    """Each line is a case with a script, an output and at least one expected command; the MIT
    licence that allows vendoring them sits in the same folder."""
    rows = [json.loads(line) for line in (DATA / "cases.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) == 298
    for row in rows:
        assert isinstance(row["script"], str) and row["script"].strip()
        assert isinstance(row["output"], str)
        assert row["expected"] and all(isinstance(e, str) and e for e in row["expected"])
        assert row["rule"] and row["release"] in ("3.29", "3.32")
    assert len({json.dumps([r["script"], r["output"], r["expected"]]) for r in rows}) == len(rows)
    licence = (DATA / "LICENSE").read_text("utf-8")
    assert "MIT License" in licence and "Vladimir Iakovlev" in licence
    excluded = [json.loads(x) for x in (DATA / "excluded.jsonl").read_text("utf-8").splitlines()]
    assert excluded and all(row["needs"] for row in excluded)
