"""An import of a name the target dropped from a module, which the consumer installs into that module
itself, is risky with the assignment named, not breaking.

A platform plugin's package `__init__` runs first whenever any of its modules is imported, and it
assigns `gizmo.config.current_platform = ...`; its later `from gizmo.config import current_platform`
then works on the target, although the target's `gizmo.config` no longer defines the name. The same
import with nothing installing the name is still breaking.
"""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, only, raised_by

BEFORE = {"gizmo/platforms.py": "current_platform = 'cuda'\n",
          "gizmo/config.py": "from gizmo.platforms import current_platform\n"}
AFTER = {"gizmo/platforms.py": "current_platform = 'cuda'\n",
         "gizmo/config.py": "SIZE = 1\n"}
INIT = """
    import gizmo.config

    gizmo.config.current_platform = "npu"
    """
USER = """
    from gizmo.config import current_platform


    def platform():
        return current_platform
    """


def test_a_name_the_consumer_installs_into_the_module_first_is_risky(tmp_path):
    case = Case("installed", BEFORE, AFTER, {"app/__init__.py": INIT, "app/ops.py": USER})
    f = only(findings_of(tmp_path, case), "DRIFT002")
    assert f.consumer_site.path == "app/ops.py" and f.consumer_site.line == line_of(USER, "import current_platform")
    assert f.severity is Severity.RISKY
    assigned = line_of(INIT, "gizmo.config.current_platform =")
    assert f"the consumer assigns `gizmo.config.current_platform` itself at app/__init__.py:{assigned}" in f.title
    # what Python does: importing the plugin's module runs its package `__init__` first
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.ops", "platform()") is None


def test_the_same_import_with_nothing_installing_the_name_is_breaking(tmp_path):
    case = Case("not-installed", BEFORE, AFTER, {"app/__init__.py": "", "app/ops.py": USER})
    f = only(findings_of(tmp_path, case), "DRIFT002")
    assert f.severity is Severity.BREAKING
    assert "assigns" not in f.title
    roots = [tmp_path / "after", tmp_path / "consumer"]
    raised = raised_by(roots, "app.ops", "platform()")
    assert raised is not None and raised.startswith(f.predicted_failure)  # Python adds the module's file


def test_an_import_in_the_module_whose_value_is_installed_stays_breaking(tmp_path):
    user = """
        from gizmo.config import current_platform


        class NpuPlatform:
            name = "npu"
        """
    early = """
        import gizmo.config

        from app.ops import NpuPlatform

        gizmo.config.current_platform = NpuPlatform()
        """
    case = Case("installed-late", BEFORE, AFTER, {"app/__init__.py": early, "app/ops.py": user})
    f = only(findings_of(tmp_path, case), "DRIFT002")
    assert f.severity is Severity.BREAKING
    assert "assigns" not in f.title
    # Python: the package `__init__` imports app.ops (and its failing import) for the value it installs
    roots = [tmp_path / "after", tmp_path / "consumer"]
    raised = raised_by(roots, "app.ops", "NpuPlatform.name")
    assert raised is not None and raised.startswith(f.predicted_failure)
