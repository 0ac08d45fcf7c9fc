"""A name read through a module object (`vllm_ctm.X`) that moved to another module of the target:
DRIFT060 offers `import_moved_member`, tiered as a moved `from` import would be.

vLLM 0.20 split `compressed_tensors_moe` into a package whose `__init__` no longer exports the
per-scheme classes; vLLM-MetaX read them as `vllm_ctm.CompressedTensorsWNA16MoEMethod` and named its
own subclasses the same. Real rules over synthetic before/after trees of that shape, then the real
planner on the consumer's file, the patched file re-checked.
"""

from __future__ import annotations

from drift.findings import SAFE, UNSAFE
from drift.fixes import plan
from drift.fixes.kinds import run_codemod
from tests.rule_cases import Case, findings_of, line_of, src
from tests.test_fix_style_ruff import _formatted, _project

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/quant/__init__.py": "",
    "gizmo/quant/ct_moe.py": """
        import logging

        logger = logging.getLogger(__name__)

        class MoEMethod:
            def apply(self, layer, x):
                return x

        class WNA16MoEMethod(MoEMethod):
            def __init__(self, weight_quant, input_quant):
                self.weight_quant = weight_quant

        class Int8MoEMethod(MoEMethod):
            def __init__(self, weight_quant, input_quant):
                self.weight_quant = weight_quant
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/quant/__init__.py": "",
    "gizmo/quant/ct_moe/__init__.py": """
        from gizmo.quant.ct_moe.base import MoEMethod

        __all__ = ["MoEMethod"]
        """,
    "gizmo/quant/ct_moe/base.py": """
        import logging

        logger = logging.getLogger(__name__)

        class MoEMethod:
            def apply(self, layer, x):
                return x
        """,
    "gizmo/quant/ct_moe/wna16.py": """
        from gizmo.quant.ct_moe.base import MoEMethod

        class WNA16MoEMethod(MoEMethod):
            def __init__(self, weight_quant, input_quant):
                self.weight_quant = weight_quant
        """,
    "gizmo/quant/ct_moe/int8.py": """
        from gizmo.quant.ct_moe.base import MoEMethod

        class Int8MoEMethod(MoEMethod):
            def __init__(self, weight_quant, input_quant, moe_config):
                self.weight_quant = weight_quant
        """,
}

CONSUMER = """
    from gizmo.quant import ct_moe as vllm_ctm


    def pick(method):
        return isinstance(method, vllm_ctm.WNA16MoEMethod)


    class WNA16MoEMethod(vllm_ctm.WNA16MoEMethod):
        pass
    """


def _case(consumer: str) -> Case:
    return Case("moved-member", BEFORE, AFTER, {"app/__init__.py": "", "app/quant.py": consumer})


def _moved(findings, line):
    return [f for f in findings if f.rule_id == "DRIFT060" and f.consumer_site.line == line]


def test_a_class_read_through_the_old_module_is_read_through_its_new_one(tmp_path):
    findings = findings_of(tmp_path, _case(CONSUMER))
    text = src(CONSUMER)
    for needle in ("isinstance(method", "class WNA16MoEMethod("):
        (f,) = _moved(findings, line_of(text, needle))
        assert f.severity.value == "breaking"
        assert "it lives in `gizmo.quant.ct_moe.wna16`" in f.title
        assert f.fix.codemod == "import_moved_member" and f.fix.tier == SAFE
    result = plan({"app/quant.py": text.encode()}, findings)
    after = result.changes[0].after.decode()
    # read through the new module, as the consumer read it through the old one: the consumer's own
    # subclass keeps its name, and the import the edits orphaned goes
    assert after == (
        "from gizmo.quant.ct_moe import wna16\n\n\n"
        "def pick(method):\n    return isinstance(method, wna16.WNA16MoEMethod)\n\n\n"
        "class WNA16MoEMethod(wna16.WNA16MoEMethod):\n    pass\n")
    again = findings_of(tmp_path / "again", _case(after))
    assert not [g for g in again if g.severity.value == "breaking"]
    assert plan({"app/quant.py": after.encode()}, findings).empty


def test_a_class_whose_api_changed_as_it_moved_is_an_unsafe_edit(tmp_path):
    consumer = """
        from gizmo.quant import ct_moe as vllm_ctm


        def build(wq, iq):
            return vllm_ctm.Int8MoEMethod(wq, iq)
        """
    findings = findings_of(tmp_path, _case(consumer))
    (f,) = _moved(findings, line_of(src(consumer), "vllm_ctm.Int8MoEMethod"))
    assert f.fix.codemod == "import_moved_member" and f.fix.tier == UNSAFE
    files = {"app/quant.py": src(consumer).encode()}
    assert plan(files, findings).empty
    assert b"from gizmo.quant.ct_moe import int8\n" in plan(files, findings, unsafe_fixes=True).changes[0].after


def test_a_module_level_value_of_the_same_name_elsewhere_stays_manual(tmp_path):
    consumer = """
        from gizmo.quant import ct_moe as vllm_ctm


        def warn(text):
            vllm_ctm.logger.warning(text)
        """
    findings = findings_of(tmp_path, _case(consumer))
    (f,) = [g for g in _moved(findings, line_of(src(consumer), "vllm_ctm.logger")) if g.symbol.endswith(".logger")]
    assert f.fix.codemod is None and "not a definition" in f.fix.manual_reason


ARGS = dict(module="gizmo.quant.ct_moe", name="WNA16MoEMethod", new_module="gizmo.quant.ct_moe.wna16")


def test_where_the_module_name_is_taken_the_bare_name_is_imported():
    source = "from gizmo.quant import ct_moe\n\nwna16 = 16\n\n\ndef pick(m):\n    return isinstance(m, ct_moe.WNA16MoEMethod)\n"
    new, outcome = run_codemod(source, "import_moved_member", line=7, args=ARGS)
    assert outcome.status == "applied", outcome.reason
    assert "from gizmo.quant.ct_moe.wna16 import WNA16MoEMethod\n" in new
    assert "return isinstance(m, WNA16MoEMethod)\n" in new
    assert run_codemod(new, "import_moved_member", line=7, args=ARGS)[1].status == "already"


def test_where_both_names_are_taken_nothing_is_written_and_the_reason_says_why():
    source = ("from gizmo.quant import ct_moe\n\nwna16 = 16\n\n\n"
              "class WNA16MoEMethod(ct_moe.WNA16MoEMethod):\n    pass\n")
    new, outcome = run_codemod(source, "import_moved_member", line=6, args=ARGS)
    assert new == source and outcome.status == "not_found"
    assert "`WNA16MoEMethod` and `wna16` already name something else" in outcome.reason


def test_a_read_through_a_dotted_module_import_is_found_by_what_the_import_binds():
    source = "import gizmo.quant.ct_moe\n\nX = gizmo.quant.ct_moe.WNA16MoEMethod\n"
    new, outcome = run_codemod(source, "import_moved_member", line=3, args=ARGS)
    assert outcome.status == "applied" and "X = wna16.WNA16MoEMethod\n" in new
    # a second run over the module-object form it wrote is told it was done already
    assert run_codemod(new, "import_moved_member", line=new.splitlines().index("X = wna16.WNA16MoEMethod") + 1,
                       args=ARGS)[1].status == "already"


def test_a_long_new_import_is_wrapped_as_ruff_format_would(tmp_path):
    long_args = dict(module="vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors_moe",
                     name="CompressedTensorsWNA16MoEMethod",
                     new_module="vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors_moe."
                                "compressed_tensors_moe_wna16")
    source = ("from vllm.model_executor.layers.quantization.compressed_tensors import compressed_tensors_moe\n\n"
              "wna16 = compressed_tensors_moe.CompressedTensorsWNA16MoEMethod\n")
    from drift.findings import Finding, Fix, Location, RuleKind, Severity
    finding = Finding(rule_id="DRIFT060", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING, title="t",
                      consumer_site=Location("acme/m.py", 3), symbol="x",
                      fix=Fix("import it", codemod="import_moved_member", args=long_args, tier=SAFE))
    after = plan({"acme/m.py": source.encode()}, [finding], line_length=88).changes[0].after.decode()
    assert after.startswith(
        "from vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors_moe import (\n"
        "    compressed_tensors_moe_wna16,\n)\n")
    assert _formatted(_project(tmp_path / "p", "acme/m.py", after), "acme/m.py"), after
