"""A name a target module imports only under `if TYPE_CHECKING:` is no attribute of that module
at run time (synthetic before/after pairs).

The baseline defined `Manager` in `gizmo.utils`; the target moved it to `gizmo.engine.utils` and
kept only a type-checking import in `gizmo.utils`. Importing it from, or patching it through,
the old module raises on the target; drift must not follow the type-checking import there.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

UTILS_BEFORE = """
    class Manager:
        def __init__(self, n):
            self.n = n
    """
UTILS_AFTER = """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from gizmo.engine.utils import Manager


    def describe(m: "Manager") -> str:
        return str(m)
    """
ENGINE_UTILS = """
    class Manager:
        def __init__(self, n):
            self.n = n
    """


def _case(mine):
    before = {"gizmo/__init__.py": "", "gizmo/utils.py": UTILS_BEFORE}
    after = {"gizmo/__init__.py": "", "gizmo/utils.py": UTILS_AFTER, "gizmo/engine/__init__.py": "",
             "gizmo/engine/utils.py": ENGINE_UTILS}
    return Case("tc", before, after, {"app/__init__.py": "", "app/mine.py": mine})


def test_an_import_from_the_old_module_breaks(tmp_path):
    mine = """
        from gizmo.utils import Manager


        def make():
            return Manager(2)
        """
    findings = findings_of(tmp_path, _case(mine))
    imports = [f for f in findings if f.consumer_site.line == line_of(mine, "from gizmo.utils import Manager")]
    assert imports and imports[0].severity.value == "breaking"
    assert "gizmo.engine.utils" in imports[0].title  # where it lives now
    assert "cannot import name 'Manager'" in raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "1")


def test_a_patch_through_the_old_module_breaks(tmp_path):
    mine = """
        import gizmo.utils


        def my_init(self, n):
            self.n = n


        gizmo.utils.Manager.__init__ = my_init
        """
    findings = findings_of(tmp_path, _case(mine))
    assert_findings(findings, [("DRIFT080", line_of(mine, "gizmo.utils.Manager.__init__ ="))])
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "1")


def test_a_module_getattr_serves_type_checking_names_lazily(tmp_path):
    """`if TYPE_CHECKING: from x import Manager` beside a module `__getattr__` that imports it on
    first use (how vllm/__init__.py exports its API): the name is there at run time."""
    lazy = UTILS_AFTER + """

    def __getattr__(name):
        if name == "Manager":
            from gizmo.engine.utils import Manager
            return Manager
        raise AttributeError(name)
    """
    mine = """
        from gizmo.utils import Manager


        def make():
            return Manager(2)
        """
    case = _case(mine)
    case.after["gizmo/utils.py"] = lazy
    assert findings_of(tmp_path, case) == ()
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "make()") is None
