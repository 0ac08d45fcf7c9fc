"""DRIFT075: a dataclass subclass's own `__post_init__` skips the one its target base gained.

A dataclass's generated `__init__` calls only the most derived `__post_init__`. A consumer
subclass that wrote one without `super().__post_init__()` skipped nothing while the baseline's base
had none; when the target's base gains a `__post_init__` that fills in a field (`head_size_v` from
`head_size`), the subclass's objects keep the field's placeholder and the base's own methods fail
on it. Risky, with the method named: what the base's `__post_init__` does is the target's. A
subclass that calls `super().__post_init__()`, or a base that had one already, is silent.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/spec.py": """
    from dataclasses import dataclass


    @dataclass
    class Spec:
        head_size: int

        @property
        def page_size(self):
            return self.head_size * 2
    """}
AFTER = {"gizmo/spec.py": """
    from dataclasses import dataclass


    @dataclass
    class Spec:
        head_size: int
        head_size_v: int = None

        def __post_init__(self):
            if self.head_size_v is None:
                self.head_size_v = self.head_size

        @property
        def page_size(self):
            return self.head_size + self.head_size_v
    """}
SPEC = """
    from dataclasses import dataclass

    from gizmo.spec import Spec


    @dataclass
    class MySpec(Spec):
        blocks: int = 1

        def __post_init__(self):
            self.blocks = max(self.blocks, 1)


    @dataclass
    class Careful(Spec):
        blocks: int = 1

        def __post_init__(self):
            super().__post_init__()
            self.blocks = max(self.blocks, 1)
    """


def test_a_post_init_that_skips_the_bases_new_one_is_risky(tmp_path):
    found = findings_of(tmp_path, Case("post-init", BEFORE, AFTER, {"app/spec.py": SPEC}))
    assert_findings(found, [("DRIFT075", line_of(SPEC, "def __post_init__", 1))])
    assert found[0].severity.value == "risky" and "Spec.__post_init__" in found[0].title
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.spec", "MySpec(4).page_size") == \
        "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'"
    assert raised_by(after, "app.spec", "Careful(4).page_size") is None
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.spec", "MySpec(4).page_size") is None
