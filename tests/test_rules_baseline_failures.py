"""A call that already lacked a required argument on the baseline never worked: what the target
now also requires is not a new break (DRIFT011 directly, DRIFT016 through a target factory's
`**kwargs` or the consumer's pass-through `__init__`)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/kv.py": """
        class KVManager:
            def __init__(self, spec, pool, enable):
                self.spec = spec

        def get_manager(spec, **kwargs) -> KVManager:
            return KVManager(spec, **kwargs)

        def build(spec, *, pool, enable):
            return spec
        """,
}
AFTER = {
    "gizmo/kv.py": """
        class KVManager:
            def __init__(self, spec, pool, enable, block_size):
                self.spec = spec

        def get_manager(spec, **kwargs) -> KVManager:
            return KVManager(spec, **kwargs)

        def build(spec, *, pool, enable, block_size):
            return spec
        """,
}
USE = """
    from gizmo.kv import KVManager, build, get_manager


    class Mine(KVManager):
        def __init__(self, spec, **kwargs):
            super().__init__(spec, **kwargs)


    def never_worked(spec):
        a = get_manager(spec, pool=1)
        b = build(spec, pool=1)
        return a, b


    def worked(spec):
        a = get_manager(spec, pool=1, enable=True)
        b = build(spec, pool=1, enable=True)
        return a, b


    def through_mine(spec):
        return Mine(spec, pool=1)
    """


def test_only_calls_that_worked_on_the_baseline_are_reported(tmp_path):
    found = findings_of(tmp_path, Case("baseline-fails", BEFORE, AFTER, {"app/use.py": USE}))
    assert_findings(found, [
        ("DRIFT016", line_of(USE, "a = get_manager(spec, pool=1, enable=True)")),
        ("DRIFT011", line_of(USE, "b = build(spec, pool=1, enable=True)")),
    ])


def test_the_skipped_calls_raise_on_the_baseline(tmp_path):
    """What the rules assume: Python raises for these calls on the baseline already."""
    findings_of(tmp_path, Case("baseline-fails", BEFORE, AFTER, {"app/use.py": USE}))
    roots = [tmp_path / "before", tmp_path / "consumer"]
    missing = "missing 1 required {}argument: 'enable'"
    assert raised_by(roots, "app.use", "never_worked(0)") == "TypeError: KVManager.__init__() " + missing.format("positional ")
    assert raised_by(roots, "app.use", "build(0, pool=1)") == "TypeError: build() " + missing.format("keyword-only ")
    assert raised_by(roots, "app.use", "through_mine(0)") == "TypeError: KVManager.__init__() " + missing.format("positional ")
    assert raised_by(roots, "app.use", "worked(0)") is None
