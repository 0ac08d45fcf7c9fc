"""DRIFT072 on a method the target keeps but no longer calls: the baseline's `execute` called
`self._prompt_logprobs(h)`, the target's computes them another way and nothing in it calls the
method (nor names it as a string, as a dispatch by name would), so the consumer's override of it,
which adds a temperature scaling, silently never runs. Read as `drift check` reads a release on
disk (sources at hand)."""

from __future__ import annotations

from drift.model.targets import load_facts
from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/runner.py": """
    class Runner:
        def _prompt_logprobs(self, hidden):
            return [h * 2 for h in hidden]

        def execute(self, hidden):
            return self._prompt_logprobs(hidden)
    """}
AFTER = {"gizmo/runner.py": """
    class Runner:
        def _prompt_logprobs(self, hidden):
            return [h * 2 for h in hidden]

        def execute(self, hidden):
            return [h * 2 for h in hidden]
    """}
CONSUMER_SRC = """
    from gizmo.runner import Runner


    class ScaledRunner(Runner):
        def _prompt_logprobs(self, hidden):
            return [h for h in hidden]
    """


def _findings(tmp_path, after, consumer=CONSUMER_SRC, before=None):
    facts = {}
    for side, files in (("before", before or BEFORE), ("after", after)):
        root = write_tree(tmp_path / side, dict(files, **{"gizmo/__init__.py": f"# {tmp_path} {side}\n"}))
        loaded = load_facts(str(root), packages=["gizmo"], demand=True)
        assert loaded.ok, loaded.error
        facts[side] = loaded.facts
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/runner.py": consumer}))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None, outcome.error
    return outcome.report.findings


def test_an_override_the_target_no_longer_calls_is_risky(tmp_path):
    findings = _findings(tmp_path, AFTER)
    assert_findings(findings, [("DRIFT072", line_of(CONSUMER_SRC, "def _prompt_logprobs"))])
    assert findings[0].severity.value == "risky"
    assert "keeps but no longer calls" in findings[0].title


def test_a_method_dispatched_by_name_handed_on_or_still_called_says_nothing(tmp_path):
    by_name = {"gizmo/runner.py": """
        class Runner:
            def _prompt_logprobs(self, hidden):
                return [h * 2 for h in hidden]

            def execute(self, hidden):
                return getattr(self, "_prompt_logprobs")(hidden)
        """}
    assert_findings(_findings(tmp_path / "a", by_name), [])
    # handed on as a bound method (a pool runs it): a call no call site shows
    handed = {"gizmo/runner.py": """
        class Runner:
            def _prompt_logprobs(self, hidden):
                return [h * 2 for h in hidden]

            def execute(self, hidden, pool):
                return pool.submit(self._prompt_logprobs, hidden)
        """}
    assert_findings(_findings(tmp_path / "d", handed), [])
    assert_findings(_findings(tmp_path / "b", BEFORE), [])
    # the consumer calls its override itself: it runs whatever the target does
    calls_itself = CONSUMER_SRC + "\n        def execute(self, hidden):\n            return self._prompt_logprobs(hidden)\n"
    assert_findings(_findings(tmp_path / "c", AFTER, calls_itself), [])


def test_python_runs_the_override_only_on_the_baseline(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", {"app/runner.py": CONSUMER_SRC})
    check_before = "None if ScaledRunner().execute([1]) == [1] else 1/0"
    assert raised_by([before, app], "app.runner", check_before) is None
    assert raised_by([after, app], "app.runner", check_before) == "ZeroDivisionError: division by zero"


SWAP_BEFORE = {"gizmo/ops.py": """
    class Op:
        def forward(self, x):
            return self.forward_native(x)

        def forward_native(self, x):
            return x


    class Plain:
        def forward(self, x):
            return x


    class Layer(Op):
        pass


    class Sibling(Op):
        def forward_native(self, x):
            return super().forward_native(x) + 1
    """}
SWAP_AFTER = {"gizmo/ops.py": SWAP_BEFORE["gizmo/ops.py"].replace("class Layer(Op):", "class Layer(Plain):")}
SWAP_CONSUMER = """
    from gizmo.ops import Layer


    class MyLayer(Layer):
        def forward_native(self, x):
            return x * 2
    """


def test_an_override_whose_base_swapped_is_orphaned_though_a_sibling_hands_on_to_its_own_base(tmp_path):
    """The target's Layer now derives from a base without the dispatch: `self.forward_native` is
    still called in Op, and `super().forward_native` in Sibling, but neither runs on a Layer."""
    findings = _findings(tmp_path, SWAP_AFTER, SWAP_CONSUMER, before=SWAP_BEFORE)
    assert_findings(findings, [("DRIFT072", line_of(SWAP_CONSUMER, "def forward_native"))])
    assert "no longer has" in findings[0].title
