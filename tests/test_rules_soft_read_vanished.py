"""DRIFT138: `hasattr(obj, "x")` / `getattr(obj, "x", d)` on an object drift cannot type, where the
baseline defines `x` and no module of the target mentions it: the probe is False everywhere on the
target. A name the target still has somewhere, one the baseline never defined (a probe for a newer
release), and a typed receiver (DRIFT065's) stay silent here."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/mapping.py": """
        class Mapper:
            def get_unstacked_mapper(self):
                return self

            def keep(self):
                return self

        def build():
            return Mapper()

        MODELS = []

        def current():
            return MODELS[-1]
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/mapping.py": """
        class Mapper:
            def get_rename_mapper(self):
                return self

            def keep(self):
                return self

        def build():
            return Mapper()

        MODELS = []

        def current():
            return MODELS[-1]
        """,
}
APP = """
    import gizmo.mapping


    def load():
        model = gizmo.mapping.current()  # whatever the target registered: drift cannot type it
        mapper = getattr(model, "hf_mapper", None)
        if mapper is not None and hasattr(mapper, "get_unstacked_mapper"):
            mapper = mapper.get_unstacked_mapper()
        if hasattr(mapper, "keep"):
            mapper = mapper.keep()
        if hasattr(mapper, "get_future_mapper"):
            mapper = mapper.get_future_mapper()
        return mapper


    class Model:
        hf_mapper = gizmo.mapping.build()


    gizmo.mapping.MODELS.append(Model())
    """


def test_a_probe_for_a_name_the_target_dropped_everywhere_is_reported(tmp_path):
    found = findings_of(tmp_path, Case("vanished", BEFORE, AFTER, {"app/load.py": APP}))
    assert_findings(found, [("DRIFT138", line_of(APP, 'hasattr(mapper, "get_unstacked_mapper")'))])
    f = found[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.mapping.Mapper.get_unstacked_mapper"
    # Python agrees: the baseline's object took the branch, the target's does not
    probe = "None if hasattr(load(), 'get_unstacked_mapper') else (_ for _ in ()).throw(AssertionError('gone'))"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.load", probe) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.load", probe) == "AssertionError: gone"
