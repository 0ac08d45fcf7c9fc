"""DRIFT070 where the target's caller tests the override's signature before passing a new
parameter (terratorch's IO processors on vLLM 0.17: `IOProcessor.__init__` gained a required
`renderer`, but the loader calls `cls(vllm_config)` when `"renderer" not in inspect.signature(
cls.__init__).parameters`). The override lacking it is not a certain TypeError: risky, not breaking.
Read with the target's sources at hand (the test is a search of its text, as for a release).
"""

from __future__ import annotations

from drift.findings import Severity
from drift.model.targets import load_facts
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, line_of, raised_by, write_tree

INTERFACE_BEFORE = """
    class IOProcessor:
        def __init__(self, vllm_config):
            self.vllm_config = vllm_config
    """
INTERFACE_AFTER = """
    class IOProcessor:
        def __init__(self, vllm_config, renderer):
            self.vllm_config = vllm_config
            self.renderer = renderer
    """
LOADER = """
    import inspect


    def get_io_processor(cls, vllm_config, renderer):
        if "renderer" not in inspect.signature(cls.__init__).parameters:
            return cls(vllm_config)
        return cls(vllm_config, renderer)
    """
MINE = """
    from gizmo.interface import IOProcessor


    class Segmentation(IOProcessor):
        def __init__(self, vllm_config):
            self.config = vllm_config
    """


def _findings(tmp_path, loader: str | None):
    facts = {}
    for side, interface in (("before", INTERFACE_BEFORE), ("after", INTERFACE_AFTER)):
        files = {"gizmo/__init__.py": f"# {tmp_path} {side}\n", "gizmo/interface.py": interface}
        if loader is not None:
            files["gizmo/loader.py"] = loader
        loaded = load_facts(str(write_tree(tmp_path / side, files)), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/mine.py": MINE}))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None, outcome.error
    return [f for f in outcome.report.findings if f.rule_id == "DRIFT070"]


def test_a_caller_that_tests_the_signature_makes_the_missing_parameter_risky(tmp_path):
    found = _findings(tmp_path / "tested", LOADER)
    assert [(f.consumer_site.line, f.severity) for f in found] == [(line_of(MINE, "def __init__"), Severity.RISKY)]
    assert "tests a callee's signature" in found[0].title
    after = write_tree(tmp_path / "run", {"gizmo/interface.py": INTERFACE_AFTER, "gizmo/loader.py": LOADER})
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([after, app], "app.mine",
                     "__import__('gizmo.loader').loader.get_io_processor(Segmentation, 1, 2)") is None


def test_without_such_a_test_it_stays_breaking(tmp_path):
    found = _findings(tmp_path / "untested", LOADER.replace('"renderer" not in inspect.signature(cls.__init__)'
                                                            '.parameters', "renderer is None"))
    assert [(f.consumer_site.line, f.severity) for f in found] == [(line_of(MINE, "def __init__"), Severity.BREAKING)]
