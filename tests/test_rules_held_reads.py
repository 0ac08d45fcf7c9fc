"""DRIFT149: an object the consumer hands its target base's constructor, kept there on `self`,
lacks an attribute the target's inherited code now reads on it (paroquant on vLLM 0.19:
`super().__init__(quant_config)` with the plugin's own config class, and vLLM's
`AWQMarlinLinearMethod.__init__` newly reading `self.quant_config.zero_point`).
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by, write_tree

BASE = """
    class QuantizationConfig:
        def get_name(self):
            return "base"


    class MarlinConfig(QuantizationConfig):
        def __init__(self, bits, zero_point):
            self.bits = bits
            self.zero_point = zero_point
    """
BEFORE = {"gizmo/quant.py": BASE + """

    class MarlinMethod:
        def __init__(self, quant_config: MarlinConfig):
            self.quant_config = quant_config
            self.kind = self.quant_config.bits
    """}
AFTER = {"gizmo/quant.py": BASE + """

    class MarlinMethod:
        def __init__(self, quant_config: MarlinConfig):
            self.quant_config = quant_config
            self.kind = self.quant_config.bits
            self.zp = self.quant_config.zero_point
            if hasattr(self.quant_config, "act_order"):
                self.order = self.quant_config.act_order
    """}
MINE = """
    from gizmo.quant import MarlinMethod, QuantizationConfig


    class MyConfig(QuantizationConfig):
        def __init__(self, bits):
            self.bits = bits


    class MyMethod(MarlinMethod):
        def __init__(self, quant_config: MyConfig):
            super().__init__(quant_config)


    class FullConfig(QuantizationConfig):
        def __init__(self, bits):
            self.bits = bits
            self.zero_point = False


    class FullMethod(MarlinMethod):
        def __init__(self, config: FullConfig):
            super().__init__(quant_config=config)
    """


def test_an_object_kept_by_the_base_lacks_what_the_target_now_reads_on_it(tmp_path):
    case = Case("held-reads", BEFORE, AFTER, {"app/mine.py": MINE},
                [("DRIFT149", line_of(MINE, "super().__init__(quant_config)"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)  # FullConfig has zero_point; act_order is read under hasattr
    found = only(findings, "DRIFT149")
    assert "`zero_point`" in found.title and "act_order" not in found.title
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/mine.py": MINE})
    assert raised_by([before, app], "app.mine", "MyMethod(MyConfig(4))") is None
    assert raised_by([after, app], "app.mine", "MyMethod(MyConfig(4))") \
        == "AttributeError: 'MyConfig' object has no attribute 'zero_point'"
    assert raised_by([after, app], "app.mine", "FullMethod(FullConfig(4))") is None


def test_unchanged_target_is_silent(tmp_path):
    case = Case("held-reads-unchanged", BEFORE, BEFORE, {"app/mine.py": MINE}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_a_read_only_another_method_makes_is_risky(tmp_path):
    """vLLM 0.30's spec-decode `RejectionSampler` reads `self.sampler.watermarking` only in
    `_watermarking_kwargs`, after `assert isinstance(self.sampler, GPUWatermarkSampler)`: a path the
    consumer's own sampler may never take. Risky, not breaking."""
    later = {"gizmo/quant.py": BEFORE["gizmo/quant.py"] + """

        def kernel(self):
            return self.quant_config.zero_point
    """}
    case = Case("held-reads-later", BEFORE, later, {"app/mine.py": MINE},
                [("DRIFT149", line_of(MINE, "super().__init__(quant_config)"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    found = only(findings, "DRIFT149")
    assert found.severity.value == "risky" and "`kernel`" in (found.details or "")
