"""Names reached through a module alias where Python evaluates them when a `def` or `class` runs:
`-> mk.Experts` (an annotation through `from pkg import mk` or `import pkg.mk as mk`) fails with
AttributeError at import once the target drops `Experts` from the module, and a base written as
a dotted chain through a function-local `import pkg.proto` fails there once that import alone is
fixed (risky: the import fails first). Postponed annotations are never evaluated: silent."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/mk.py": """
    class Experts:
        pass


    class Other:
        pass
    """, "gizmo/proto.py": """
    class Request:
        pass
    """}
AFTER = {"gizmo/mk.py": """
    class ExpertsModular:
        pass


    class Other:
        pass
    """, "gizmo/serve/proto.py": """
    class Request:
        pass
    """}
CONSUMER = {"app/quant.py": """
    from gizmo import mk
    import gizmo.mk as kernels


    class Method:
        def select(self, x: kernels.Other) -> mk.Experts:
            raise NotImplementedError

        def other(self) -> mk.Other:
            return mk.Other()


    def patch():
        import gizmo.proto

        class Request(gizmo.proto.Request):
            pass

        return Request
    """, "app/later.py": """
    from __future__ import annotations

    from gizmo import mk


    def select(x) -> mk.Experts:
        raise NotImplementedError
    """}


def test_evaluated_chains_through_module_aliases(tmp_path):
    src = CONSUMER["app/quant.py"]
    findings = findings_of(tmp_path, Case("module-chains", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(src, "-> mk.Experts")),
        ("DRIFT001", line_of(src, "import gizmo.proto")),
        ("DRIFT060", line_of(src, "class Request(gizmo.proto.Request)")),
    ])
    by_line = {f.consumer_site.line: f for f in findings}
    assert by_line[line_of(src, "-> mk.Experts")].severity.value == "breaking"
    base = by_line[line_of(src, "class Request(gizmo.proto.Request)")]
    assert base.severity.value == "risky"
    assert f"import at line {line_of(src, 'import gizmo.proto')}" in base.predicted_failure


def test_python_raises_what_drift_predicts(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([before, app], "app.quant", "patch()") is None
    assert raised_by([after, app], "app.later", "select") is None
    assert raised_by([after, app], "app.quant", "Method") == \
        "AttributeError: module 'gizmo.mk' has no attribute 'Experts'"
