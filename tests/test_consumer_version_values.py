"""The consumer's own version values as guards: an enum of supported releases, a module constant
computed from the target's `__version_tuple__`, compared with `==` or `in [...]` (probes/reach.py
`version_values` and `_folded_guard`, drift/consumer/guards.py `folded` and `dead_on`).

Code under a test that picks neither the baseline nor the target (the branch for a third, older
release) never runs and is not reported; the baseline's own branch is the code the consumer runs
today and stays checked."""

from __future__ import annotations

from packaging.version import Version

from drift.consumer.guards import dead_on, folded
from drift.findings import Severity
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, write_tree
from drift.pipeline.run import check

BEFORE = {"gizmo/__init__.py": "__version__ = 'x'\n",
          "gizmo/api.py": "def old():\n    return 1\n\ndef keep():\n    return 2\n"}
AFTER = {"gizmo/__init__.py": "__version__ = 'x'\n", "gizmo/api.py": "def keep():\n    return 2\n"}

CONSTANT = """
    import enum
    import gizmo

    CURRENT_GIZMO_VERSION = None
    if hasattr(gizmo, "__version_tuple__"):
        parts = gizmo.__version_tuple__
        CURRENT_GIZMO_VERSION = ".".join(str(p) for p in parts[:3])
    else:
        CURRENT_GIZMO_VERSION = gizmo.__version__


    class GizmoVersion(str, enum.Enum):
        r_0_1_0 = "0.1.0"
        r_0_2_0 = "0.2.0"
        r_0_3_0 = "0.3.0"


    class Mode(str, enum.Enum):
        FAST = "fast"


    import other
    OTHER_VERSION = other.__version__
    """

MAIN = """
    from gizmo import api
    from app.constant import CURRENT_GIZMO_VERSION, OTHER_VERSION, GizmoVersion, Mode

    def run(mode):
        if CURRENT_GIZMO_VERSION == GizmoVersion.r_0_1_0:
            return api.old()  # third
        elif CURRENT_GIZMO_VERSION in [GizmoVersion.r_0_1_0, GizmoVersion.r_0_2_0]:
            return api.old()  # baseline
        if mode == Mode.FAST:
            return api.old()  # mode
        if CURRENT_GIZMO_VERSION not in (GizmoVersion.r_0_2_0, GizmoVersion.r_0_3_0):
            return api.old()  # neither
        if OTHER_VERSION == GizmoVersion.r_0_1_0:
            return api.old()  # another package's version
        return api.keep()
    """

HOOKS = """
    from app.constant import CURRENT_GIZMO_VERSION, GizmoVersion

    if CURRENT_GIZMO_VERSION == GizmoVersion.r_0_1_0:
        from app.hooks import legacy
    """

LEGACY = """
    from gizmo.api import old

    def patched():
        return old()
    """


def _findings(tmp_path, files, before="0.2.0", after="0.3.0"):
    a = facts_of(write_tree(tmp_path / "after", AFTER))
    a["packages"]["gizmo"]["version"] = after
    b = facts_of(write_tree(tmp_path / "before", BEFORE))
    b["packages"]["gizmo"]["version"] = before
    cons = consumer_of(write_tree(tmp_path / "consumer", files))
    return check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report.findings


def test_branches_for_neither_release_are_not_checked(tmp_path):
    found = _findings(tmp_path, {"app/constant.py": CONSTANT, "app/main.py": MAIN})
    lines = sorted(f.consumer_site.line for f in found if f.severity is Severity.BREAKING)
    # the baseline's branch and the branch on a value that is no version stay; the older release's go
    assert lines == [line_of(MAIN, "# baseline"), line_of(MAIN, "# mode"), line_of(MAIN, "# another package's")], \
        [str(f.consumer_site) for f in found]


def test_without_the_enum_values_nothing_is_folded(tmp_path):
    """The same tests against an enum drift cannot read (defined outside the package): no guard."""
    main = MAIN.replace("from app.constant import CURRENT_GIZMO_VERSION, OTHER_VERSION, GizmoVersion, Mode",
                        "from app.constant import CURRENT_GIZMO_VERSION, OTHER_VERSION, Mode\n"
                        "    from elsewhere import GizmoVersion")
    found = _findings(tmp_path, {"app/constant.py": CONSTANT, "app/main.py": main})
    assert len([f for f in found if f.severity is Severity.BREAKING]) == 5


def test_a_module_imported_only_for_another_release_is_not_breaking(tmp_path):
    files = {"app/__init__.py": "from app import hooks\n", "app/constant.py": CONSTANT,
             "app/hooks/__init__.py": HOOKS, "app/hooks/legacy.py": LEGACY}
    found = _findings(tmp_path, files)
    assert found and all(f.severity is not Severity.BREAKING for f in found), [f.title for f in found]
    # the same module on the release it was written for, as the baseline: checked, and breaking
    again = _findings(tmp_path / "again", files, before="0.1.0")
    assert_findings(tuple(f for f in again if f.severity is Severity.BREAKING),
                    [("DRIFT001", line_of(LEGACY, "import old"))])


def test_folded_comparisons():
    values = {"c.CUR": {"running": True}, "c.R.a": {"value": "0.8.5"}, "c.R.b": {"value": "0.6.3"}}
    cur, a, b = {"ref": "c.CUR"}, {"ref": "c.R.a"}, {"ref": "c.R.b"}
    assert folded({"op": "==", "sides": [cur, b]}, Version("0.6.3"), values) is True
    assert folded({"op": "==", "sides": [b, cur]}, Version("0.8.5"), values) is False
    # the consumer may cut the suffix off (__version_tuple__[:3]): not decided
    assert folded({"op": "==", "sides": [cur, a]}, Version("0.8.5.post1"), values) is None
    assert folded({"op": "<", "sides": [a, cur]}, Version("0.9.0"), values) is True  # 0.8.5 < running
    assert folded({"op": "in", "sides": [cur, [a, b]]}, Version("0.7.0"), values) is False
    assert folded({"op": "in", "sides": [cur, [a, {"ref": "c.unknown"}]]}, Version("0.7.0"), values) is None
    assert folded({"op": "in-text", "sides": [{"named": True}, {"version": "0.4.1"}]}, Version("0.6.3"), values) is False
    assert folded({"op": "==", "sides": [{"ref": "c.R.a"}, b]}, Version("0.6.3"), values) is None  # no running side


def test_dead_on_keeps_the_baselines_branch():
    values = {"c.CUR": {"running": True}, "c.R.old": {"value": "0.5.1"}, "c.R.base": {"value": "0.6.3"}}
    cur = {"ref": "c.CUR"}
    in_both = {"op": "in", "sides": [cur, [{"ref": "c.R.old"}, {"ref": "c.R.base"}]]}
    not_base = {"op": "==", "sides": [cur, {"ref": "c.R.base"}], "negated": True}
    target, baseline = Version("0.6.6"), Version("0.6.3")
    assert dead_on([in_both], target, values, baseline) is False  # the baseline runs it
    assert dead_on([in_both, not_base], target, values, baseline) is True  # the 0.5.1-only arm
    assert dead_on([in_both], target, values, None) is True
    literal = {"op": "==", "version": "0.6.3"}  # a plain version branch keeps its target-only reading
    assert dead_on([literal], target, values, baseline) is True


FACTORY = """
    from gizmo import api

    def make_forward(version, table):
        def forward_old():
            return api.old()  # old impl

        def forward_kept():
            return api.old()  # kept impl

        def forward_new():
            return api.keep()

        table.append(forward_kept)
        if version in "0.1.0":
            return forward_old
        elif version >= "0.2.0":
            return forward_new
        return forward_kept
    """


def test_a_nested_def_returned_only_for_another_release_is_not_checked(tmp_path):
    """A factory that returns one nested implementation per release: the one it returns only on a
    release that is neither side never runs; one it also hands elsewhere stays checked."""
    found = _findings(tmp_path, {"app/factory.py": FACTORY})
    assert sorted(f.consumer_site.line for f in found if f.severity is Severity.BREAKING) == [
        line_of(FACTORY, "# kept impl")], [str(f.consumer_site) for f in found]
