"""The fix said concretely in every report a person reads (issue 23 item 7): terminal, Markdown,
GitHub annotations and SARIF name the edit (`import `cdiv` from `gizmo.utils.math_utils``),
never the codemod that makes it; SARIF's `fixes` carry the edit itself as artifactChanges,
with the moved import where the consumer's isort order puts it. Real rules, the real CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

from drift.fixes.kinds import REGISTRY
from tests.test_check_fix import _trees, drift

MOVE = "import `cdiv` from `gizmo.utils.math_utils`"
DROP = "drop `size=2` from the call"


def test_every_format_names_the_edit_not_the_mechanism(tmp_path: Path) -> None:
    consumer, args = _trees(tmp_path)
    out = {fmt: tmp_path / f"report.{fmt}" for fmt in ("terminal", "markdown", "github", "sarif")}
    argv = [a for fmt, path in out.items() for a in ("--format", fmt, "-o", str(path))]
    res = drift("check", str(consumer), *args, *argv)
    assert res.returncode == 1, res.stderr
    texts = {fmt: path.read_text(encoding="utf-8") for fmt, path in out.items()}
    for fmt, text in texts.items():
        assert MOVE in text and DROP in text, (fmt, text)
        named = [kind for kind in REGISTRY if kind in text]
        assert not named, f"{fmt} names the mechanism {named}"

    sarif = json.loads(texts["sarif"])
    fixes = {r["ruleId"]: r["fixes"] for r in sarif["runs"][0]["results"]}
    (move,) = fixes["DRIFT002"]
    assert move["description"]["text"] == f"safe: {MOVE}"
    (change,) = move["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "app/main.py"
    inserted = "".join(r["insertedContent"]["text"] for r in change["replacements"])
    assert inserted == "from gizmo.utils import make\nfrom gizmo.utils.math_utils import cdiv\n"
    (drop,) = fixes["DRIFT010"]
    # the target's `make` gained no parameter that could take `size`: safe in a range consumer's version branch
    assert drop["description"]["text"].startswith(f"unsafe (--unsafe-fixes; safe when version-gated): {DROP}")
    (change,) = drop["artifactChanges"]
    assert [r["insertedContent"]["text"] for r in change["replacements"]] == ["    return make(1)\n"]
