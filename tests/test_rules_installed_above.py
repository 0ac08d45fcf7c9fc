"""A read of a class attribute the consumer itself installed earlier in the same module and scope
(`Runner.backends = property(...)` then `Runner.backends.__doc__`) is not a break, whatever the
target dropped (drift/analysis/rules/reach.py `_installed_above`); the consumer's module runs on
the target to show it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/runner.py": "class Runner:\n    backends = ()\n"}
AFTER = {"gizmo/__init__.py": "", "gizmo/runner.py": "class Runner:\n    size = 2\n"}


INSTALLED_ABOVE = """
    from gizmo.runner import Runner


    def _describe(self):
        return "runner"


    Runner.backends = property(_describe)
    Runner.backends.__doc__  # read right after the consumer installed it: there whatever the target removed
    """


PLAIN = """
    from gizmo.runner import Runner

    Runner.backends.__doc__  # nothing installed it: AttributeError on the target
    """


def test_a_class_attribute_installed_a_line_above_is_there_when_read(tmp_path):
    found = findings_of(tmp_path, Case("installed", BEFORE, AFTER, {"app/inst.py": INSTALLED_ABOVE,
                                                                   "app/plain.py": PLAIN}))
    assert [f.consumer_site.path for f in found if f.rule_id == "DRIFT060"] == ["app/plain.py"]
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.plain", "0").startswith("AttributeError")
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.inst", "Runner.backends") is None
