"""DRIFT091: a module-level assert on the target package's version, held on the baseline and
failed on the target: the module no longer imports."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree



def _release(version: str) -> dict[str, str]:
    """An installed release: the package and its dist-info, which is where drift reads the version."""
    parts = ", ".join(version.split("."))
    return {"gizmo/__init__.py": f"__version__ = '{version}'\n",
            "gizmo/version.py": f"__version_tuple__ = ({parts})\n__version__ = '{version}'\n",
            f"gizmo-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: gizmo\nVersion: {version}\n"}


LIB_BEFORE = _release("0.24.0")
LIB_AFTER = _release("0.30.0")
PATCH = """
    from gizmo.version import __version_tuple__ as LIB_VERSION
    from gizmo import __version__

    # the backport below is redundant from 0.25 on
    assert LIB_VERSION < (0, 25), "delete this backport"
    assert LIB_VERSION >= (0, 20)
    assert __version__ != "0.1.0"


    def patched_load():
        return 1
    """


def test_a_version_assert_the_target_fails_is_reported_at_the_assert(tmp_path):
    case = Case("assert", before=LIB_BEFORE, after=LIB_AFTER, consumer={"app/patch.py": PATCH})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT091"]
    assert [f.consumer_site.line for f in found] == [line_of(PATCH, "assert LIB_VERSION < (0, 25)")]
    assert found[0].severity.value == "breaking"
    assert "0.24.0" in found[0].title and "0.30.0" in found[0].title
    # and Python agrees: the module imports on the baseline, not on the target
    app = write_tree(tmp_path / "run_app", {"app/patch.py": PATCH})
    before = write_tree(tmp_path / "run_before", LIB_BEFORE)
    after = write_tree(tmp_path / "run_after", LIB_AFTER)
    assert raised_by([before, app], "app.patch", "patched_load()") is None
    assert raised_by([after, app], "app.patch", "patched_load()") == "AssertionError: delete this backport"


def test_an_assert_both_releases_pass_or_fail_is_silent(tmp_path):
    same = Case("same", before=LIB_AFTER, after=LIB_AFTER, consumer={"app/patch.py": PATCH})
    assert not [f for f in findings_of(tmp_path, same) if f.rule_id == "DRIFT091"]
