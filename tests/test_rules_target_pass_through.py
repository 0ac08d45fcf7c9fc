"""A target class whose `__init__(self, *args, **kwargs)` only hands both on to
`super().__init__(*args, **kwargs)` accepts what its base accepts: a consumer's construction is
judged against the base's signature on each side (synthetic before/after packages; the consumer
really run on both). vLLM's serving classes (`ServingEmbedding(PoolingServing)` over
`PoolingServingBase`) are built this way."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BASE = """
    class ServingBase:
        def __init__(self, engine, models, *, logger, chat_template=None):
            self.engine = engine


    class Serving(ServingBase):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)


    class ServingEmbed(Serving):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.kind = "embed"
    """
AFTER = BASE.replace("*, logger, chat_template=None", "*, logger, template_config")
MINE = """
    from gizmo.serving import ServingEmbed


    def build(engine, models):
        return ServingEmbed(engine, models, logger=None, chat_template="t")
    """


def test_a_construction_through_target_pass_throughs_is_judged_against_the_base(tmp_path):
    case = Case("pass", {"gizmo/serving.py": BASE}, {"gizmo/serving.py": AFTER},
                {"app/__init__.py": "", "app/mine.py": MINE})
    findings = findings_of(tmp_path, case)
    line = line_of(MINE, "return ServingEmbed(")
    assert sorted(f.rule_id for f in findings if f.severity.value == "breaking") == ["DRIFT010", "DRIFT011"]
    assert all(f.consumer_site.line == line for f in findings)
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build(1, 2)")
    assert raised is not None and raised.startswith("TypeError")
    assert any(f.predicted_failure == raised for f in findings)
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", "build(1, 2)") is None


def test_a_pass_through_that_takes_its_own_keywords_is_not_skipped(tmp_path):
    """An `__init__` that adds or takes keywords of its own is the signature to judge."""
    own = BASE.replace("""    class ServingEmbed(Serving):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)""", """    class ServingEmbed(Serving):
        def __init__(self, *args, chat_template=None, **kwargs):
            super().__init__(*args, **kwargs)""")
    after = own.replace("*, logger, chat_template=None", "*, logger, template_config=None")
    case = Case("pass", {"gizmo/serving.py": own}, {"gizmo/serving.py": after},
                {"app/__init__.py": "", "app/mine.py": MINE})
    assert_findings(findings_of(tmp_path, case), [])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build(1, 2)") is None
