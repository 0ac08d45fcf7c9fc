"""DRIFT070 on a replacement `__init__` patched onto a target class, judged against the target's own
subclasses that reach it through `super().__init__(...)` (hqq 0.2.3's `LinearBase.__init__ =
patched_init`, where vLLM 0.8.0's linear layers all pass the new `return_bias=` up): a keyword those
calls now pass and the replacement does not take breaks every construction, not only "where the
target's callers pass it"."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/linear.py": """
    class LinearBase:
        def __init__(self, input_size, output_size, skip_bias_add=False, prefix=""):
            self.input_size = input_size


    class RowLinear(LinearBase):
        def __init__(self, input_size, output_size, prefix=""):
            super().__init__(input_size, output_size, False, prefix=prefix)


    class Other:
        def __init__(self, size, *, return_bias=True):
            self.size = size


    class OtherChild(Other):
        def __init__(self, size):
            super().__init__(size, return_bias=False)
    """}
AFTER = {"gizmo/linear.py": BEFORE["gizmo/linear.py"]
         .replace('skip_bias_add=False, prefix=""):', 'skip_bias_add=False, prefix="", *, return_bias=True):')
         .replace('def __init__(self, input_size, output_size, prefix=""):',
                  'def __init__(self, input_size, output_size, prefix="", *, return_bias=True):')
         .replace("super().__init__(input_size, output_size, False, prefix=prefix)",
                  "super().__init__(input_size, output_size, False, prefix=prefix, return_bias=return_bias)")}
CONSUMER = """
    def install(bits):
        from gizmo import linear

        original_init = linear.LinearBase.__init__

        def patched_init(self, input_size, output_size, skip_bias_add=False, prefix=""):
            original_init(self, input_size, output_size, skip_bias_add, prefix)

        linear.LinearBase.__init__ = patched_init
    """


def test_a_patched_init_the_targets_subclasses_now_call_with_a_new_keyword(tmp_path):
    found = findings_of(tmp_path, Case("init", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert_findings(found, [("DRIFT070", line_of(CONSUMER, "def patched_init"))])
    f = found[0]
    assert f.severity.value == "breaking", f.title
    assert "return_bias" in f.predicted_failure and f.predicted_failure.startswith("TypeError: ")
    assert f.target_evidence[0].line == line_of(AFTER["gizmo/linear.py"], "return_bias=return_bias)")
    run = "(__import__('app.m').m.install(4), __import__('gizmo.linear').linear.RowLinear(2, 3))"
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.m", run)
    assert raised is not None and "unexpected keyword argument 'return_bias'" in raised
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.m", run) is None


def test_a_super_call_in_an_unrelated_class_does_not_reach_it(tmp_path):
    """`OtherChild` passes `return_bias=` up to `Other`, not to `LinearBase`: with no subclass of
    `LinearBase` passing it, the replacement stays risky (callers may pass it)."""
    after = {"gizmo/linear.py": AFTER["gizmo/linear.py"].replace(", return_bias=return_bias)", ")")}
    found = findings_of(tmp_path, Case("other", BEFORE, after, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert [(f.rule_id, f.severity.value) for f in found] == [("DRIFT070", "risky")]


def test_a_keyword_only_a_few_subclasses_pass_is_risky(tmp_path):
    """vLLM 0.18's `FourierRotaryEmbedding` passes `init_cache=` up to `RotaryEmbedding.__init__`,
    which vllm-rbln replaced; its other rotary embeddings do not: only that model's layers fail."""
    after = {"gizmo/linear.py": AFTER["gizmo/linear.py"] + """

    class ColumnLinear(LinearBase):
        def __init__(self, input_size, output_size):
            super().__init__(input_size, output_size, False, "")


    class MergedLinear(LinearBase):
        def __init__(self, input_size, output_size):
            super().__init__(input_size, output_size)
    """}
    found = findings_of(tmp_path, Case("few", BEFORE, after, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert [(f.rule_id, f.severity.value) for f in found] == [("DRIFT070", "risky")]
    assert "1 of the 3 subclasses' calls pass it" in found[0].title
