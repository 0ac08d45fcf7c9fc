"""DRIFT120: custom ops reached by name, `torch.ops.<ns>.<op>` (probes/torch_ops.py records the
uses, drift/analysis/custom_ops.py finds the function each release registers under the name)."""

from __future__ import annotations

import pytest

from drift.pipeline.run import check
from tests.rule_cases import LIB, Case, assert_findings, consumer_of, facts_of, src, write_tree

REGISTRY = """
    def direct_register_custom_op(op_name, op_func, mutates_args=None, fake_impl=None, target_lib=None):
        pass
    """


def _ops(signature: str, *, name: str = "attn_core", style: str = "keywords") -> str:
    body = f"def {name}({signature}):\n    return None\n\n\n"
    if style == "keywords":
        return "from gizmo.registry import direct_register_custom_op\n\n\n" + body + \
            f'direct_register_custom_op(\n    op_name="{name}",\n    op_func={name},\n    mutates_args=[],\n)\n'
    if style == "positional":
        return "from gizmo.registry import direct_register_custom_op\n\n\n" + body + \
            f'direct_register_custom_op("{name}", {name}, mutates_args=[])\n'
    return f'import torch\n\n\n@torch.library.custom_op("vllm::{name}", mutates_args=())\n' + body


OLD = "q, k, out, layer_name"
NEW = "q, k, out, fast_kernel, layer_name"  # a parameter inserted before the last one
CALLS = """
    import torch


    def forward(q, k, out, prefix):
        torch.ops.vllm.attn_core(q, k, out, prefix)
        return torch.ops.vllm.attn_core.default(q, k, out, layer_name=prefix)
    """


def _case(id_, before, after, consumer=CALLS, expected=()):
    return Case(id_, {"gizmo/registry.py": REGISTRY, "gizmo/ops.py": before},
                {"gizmo/registry.py": REGISTRY, **({"gizmo/ops.py": after} if after is not None else {})},
                {"app/main.py": consumer}, list(expected))


CASES = [
    # the inserted parameter leaves `layer_name` unfilled in the positional call, and `fast_kernel` in both
    _case("parameter-inserted", _ops(OLD), _ops(NEW), expected=[("DRIFT120", 5), ("DRIFT120", 6)]),
    _case("positional-registration", _ops(OLD, style="positional"), _ops(NEW, style="positional"),
          expected=[("DRIFT120", 5), ("DRIFT120", 6)]),
    _case("decorator-registration", _ops(OLD, style="decorator"), _ops(NEW, style="decorator"),
          expected=[("DRIFT120", 5), ("DRIFT120", 6)]),
    _case("unchanged", _ops(OLD), _ops(OLD)),
    # a new parameter with a default: the old calls still fit the schema
    _case("defaulted-parameter-added", _ops(OLD), _ops(OLD + ", fast_kernel=False")),
    # the op is registered nowhere in the target: each use is gone
    _case("op-gone", _ops(OLD), "def other():\n    pass\n", expected=[("DRIFT120", 5), ("DRIFT120", 6)]),
    # still registered, but in a way drift cannot read (the name is built): nothing is claimed
    _case("unreadable-registration", _ops(OLD),
          "from gizmo.registry import direct_register_custom_op\n\nNAME = 'attn_core'\n\n\n"
          "def impl(q, k, out, layer_name):\n    return None\n\n\ndirect_register_custom_op(NAME, impl)\n"),
    # the consumer registers an op of that name itself: the call may be its own op's
    _case("consumer-registers-the-name", _ops(OLD), _ops(NEW),
          consumer=src(CALLS) + "\n\ndef impl(q, k, out, layer_name):\n    return None\n\n\n"
                           "direct_register_custom_op(op_name='attn_core', op_func=impl)\n"),
    # an op of another library, never registered from the baseline's Python: not vLLM's to judge
    _case("c-extension-op", _ops(OLD), _ops(NEW),
          consumer="import torch\n\n\ndef f(x):\n    return torch.ops._C.rms_norm(x)\n"),
]


def findings_of(tmp_path, case):
    """As tests.rule_cases.findings_of, with each release's tree on disk named in its facts: a
    registration is read from the release's text, as a check of an installed or fetched release does."""
    facts = {}
    for side, files in (("before", case.before), ("after", case.after)):
        root = write_tree(tmp_path / side, files)
        facts[side] = dict(facts_of(root), target={"root": str(root)})
    cons = consumer_of(write_tree(tmp_path / "consumer", case.consumer))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package=LIB)
    assert outcome.error is None and not outcome.report.incomplete, (outcome.error, outcome.report.incomplete)
    return outcome.report.findings


def test_without_the_releases_text_nothing_is_claimed(tmp_path):
    from tests.rule_cases import findings_of as without_sources

    assert not [f for f in without_sources(tmp_path, CASES[0]) if f.rule_id == "DRIFT120"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_custom_ops(tmp_path, case):
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_schema_finding_says_what_is_missing(tmp_path):
    found = [f for f in findings_of(tmp_path, CASES[0]) if f.rule_id == "DRIFT120"]
    first = min(found, key=lambda f: f.consumer_site.line)
    assert first.title == ("`torch.ops.vllm.attn_core(...)` no longer fits the op's schema: "
                           "missing required argument 'layer_name'")
    assert first.predicted_failure.startswith("RuntimeError: vllm::attn_core()")
    assert "gizmo.ops.attn_core(q, k, out, fast_kernel, layer_name)" in first.details


def test_gone_op_names_the_baseline_function(tmp_path):
    f = min(findings_of(tmp_path, CASES[5]), key=lambda f: f.consumer_site.line)
    assert f.predicted_failure == "AttributeError: '_OpNamespace' 'vllm' object has no attribute 'attn_core'"
    assert [e.symbol for e in f.baseline_evidence] == ["gizmo.ops.attn_core"]


MASKED = """
    import torch

    from gizmo.layer import Layer


    class Mine(Layer):
        def forward(self, q, k, out, prefix):
            if self.flag:
                torch.ops.vllm.attn_core(q, k, out, prefix)
            return out
    """


def test_an_op_under_a_test_that_already_fails_is_risky(tmp_path):
    """The gone op's call runs only once the failing test above it is fixed: risky, naming the test."""
    layer_before = "class Layer:\n    def __init__(self):\n        self.flag = False\n"
    layer_after = "class Layer:\n    def __init__(self):\n        pass\n"
    case = Case("masked", {"gizmo/registry.py": REGISTRY, "gizmo/ops.py": _ops(OLD), "gizmo/layer.py": layer_before},
                {"gizmo/registry.py": REGISTRY, "gizmo/other.py": "X = 1\n", "gizmo/layer.py": layer_after},
                {"app/main.py": MASKED}, [("DRIFT060", 8), ("DRIFT120", 9)])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    op = next(f for f in found if f.rule_id == "DRIFT120")
    assert op.severity.value == "risky" and "under the test at line 8" in op.title


def test_an_op_below_a_failing_import_is_risky(tmp_path):
    consumer = "import torch\n\nfrom gizmo.gone import Thing\n\n\ndef f(q, k, out, prefix):\n" \
               "    return torch.ops.vllm.attn_core(q, k, out, prefix)\n"
    case = Case("below-import", {"gizmo/registry.py": REGISTRY, "gizmo/ops.py": _ops(OLD), "gizmo/gone.py": "Thing = 1\n"},
                {"gizmo/registry.py": REGISTRY, "gizmo/ops.py": _ops(NEW)}, {"app/main.py": consumer},
                [("DRIFT001", 3), ("DRIFT120", 7)])
    found = findings_of(tmp_path, case)
    assert_findings(found, case.expected)
    op = next(f for f in found if f.rule_id == "DRIFT120")
    assert op.severity.value == "risky" and "the import at line 3 fails first" in op.title
