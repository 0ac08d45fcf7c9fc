"""An object typed as a target class may be the consumer's own subclass of it: an attribute the
target removed but that subclass sets itself is read without error when the object is one, so
DRIFT060 says risky there (breaking where no consumer subclass sets the name)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/config.py": """
    class Config:
        def __init__(self):
            self.enabled = True
            self.mode = "a"
    """}
AFTER = {"gizmo/config.py": """
    class Config:
        def __init__(self):
            self.size = 1
    """}
CONSUMER = {"app/main.py": """
    from gizmo.config import Config


    class MyConfig(Config):
        def __init__(self):
            super().__init__()
            self.enabled = False


    def use(c: Config):
        return c.enabled, c.mode
    """}


def test_attribute_a_consumer_subclass_sets_is_risky(tmp_path):
    main = CONSUMER["app/main.py"]
    findings = findings_of(tmp_path, Case("subclass-sets", BEFORE, AFTER, CONSUMER))
    assert_findings(findings, [("DRIFT060", "`Config.enabled` no longer exists"),
                               ("DRIFT060", "`Config.mode` no longer exists")])
    by_name = {f.symbol.rsplit(".", 1)[-1]: f for f in findings}
    assert by_name["enabled"].severity.value == "risky" and "MyConfig" in by_name["enabled"].details
    assert by_name["mode"].severity.value == "breaking"
    assert {f.consumer_site.line for f in findings} == {line_of(main, "return c.enabled, c.mode")}


def test_python_reads_it_on_the_subclass_only(tmp_path):
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([after, app], "app.main", "use(MyConfig())") == "AttributeError: 'MyConfig' object has no attribute 'mode'"
    assert raised_by([after, app], "app.main", "use(Config())") == "AttributeError: 'Config' object has no attribute 'enabled'"
