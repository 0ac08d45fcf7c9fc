"""DRIFT040: a method that duck-typed consumer code calls on `self`, gone from a class family."""

from __future__ import annotations

import pytest

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only


def models(renamed: set[str], names=("Alpha", "Beta", "Gamma", "Delta"), *, new: str = "embed_ids") -> str:
    """A family of model classes; those in `renamed` define `new` instead of `get_embeds`."""
    out = []
    for i, name in enumerate(names):
        method = f"{new}{i if new.startswith('_') else ''}" if name in renamed else "get_embeds"
        out.append(f"""
    class {name}:
        def {method}(self, ids):
            return ids

        def forward(self, ids):
            return self.{method}(ids)
""")
    return "".join(out)


BEFORE = {"gizmo/models.py": models(set())}
MOST_RENAMED = {"gizmo/models.py": models({"Alpha", "Beta", "Gamma"})}
FEW_RENAMED = {"gizmo/models.py": models({"Alpha"})}
# each class renamed it differently (_impl0, _impl1, ...): nothing in common to rename to
ALL_DROPPED = {"gizmo/models.py": models({"Alpha", "Beta", "Gamma", "Delta"}, new="_impl")}

BINDS = """
    import types

    from gizmo.models import Alpha


    def patched_forward(self, ids):
        embeds = self.get_embeds(ids)
        return embeds


    def install(model: Alpha):
        model.forward = types.MethodType(patched_forward, model)
        return model
    """
CALL_LINE = line_of(BINDS, "self.get_embeds(ids)")

CASES = [
    Case("renamed-in-most", BEFORE, MOST_RENAMED, {"app/main.py": BINDS}, [("DRIFT040", CALL_LINE)]),
    Case("renamed-in-few", BEFORE, FEW_RENAMED, {"app/main.py": BINDS}, []),
    Case("unchanged", BEFORE, BEFORE, {"app/main.py": BINDS}, []),
    Case("gone-without-a-common-replacement", BEFORE, ALL_DROPPED, {"app/main.py": BINDS}, [("DRIFT040", CALL_LINE)]),
    Case("family-too-small", {"gizmo/models.py": models(set(), names=("Alpha", "Beta"))},
         {"gizmo/models.py": models({"Alpha", "Beta"}, names=("Alpha", "Beta"))}, {"app/main.py": BINDS}, []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_method_vanished(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_rename_fix_and_evidence(tmp_path):
    f = only(findings_of(tmp_path, CASES[0]), "DRIFT040")
    assert f.title == "`self.get_embeds()` in `patched_forward` is gone from 3 of 4 target classes; renamed to `embed_ids`"
    assert (f.fix.codemod, f.fix.args) == ("rename_method", {"old": "get_embeds", "new": "embed_ids"})
    assert f.predicted_failure.endswith("object has no attribute 'get_embeds'")
    assert any(e.symbol and e.symbol.endswith(".embed_ids") for e in f.target_evidence)
    assert [e.symbol for e in f.baseline_evidence][0].endswith(".get_embeds")
    assert f"line {line_of(BINDS, 'types.MethodType')}" in f.details


def test_no_common_replacement_is_manual(tmp_path):
    f = only(findings_of(tmp_path, CASES[3]), "DRIFT040")
    assert "renamed" not in f.title
    assert f.fix.codemod is None and f.fix.manual_reason
