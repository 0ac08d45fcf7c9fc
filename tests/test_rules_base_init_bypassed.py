"""A subclass `__init__` that bypasses its target base's: `super(Base, self).__init__(...)` names a
class above the one it skips, `nn.Module.__init__(self)` runs none of the target's. What the
target's skipped `__init__` newly sets and an inherited method now reads is DRIFT075, as for an
`__init__` with no super call at all."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import Case, assert_findings, consumer_of, facts_of, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/gate.py": """
    import torch.nn as nn


    class Linear(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def forward(self, x):
            return x


    class Gate(Linear):
        def __init__(self, n):
            super().__init__(n)
            self.flag = True

        def forward(self, x):
            return x * self.n
    """}
AFTER = {"gizmo/gate.py": """
    import torch.nn as nn


    class Linear(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def forward(self, x):
            return x


    class Gate(Linear):
        def __init__(self, n):
            super().__init__(n)
            self.flag = True
            self.allow_fp32 = False

        def forward(self, x):
            if self.allow_fp32:
                return x
            return x * self.n
    """}
CONSUMER = {"app/gate.py": """
    import torch.nn as nn
    from gizmo.gate import Gate


    class SkipsGate(Gate):
        def __init__(self, n):
            super(Gate, self).__init__(n)
            self.flag = False


    class SkipsAll(Gate):
        def __init__(self, n):
            nn.Module.__init__(self)
            self.n = n
            self.flag = False


    class RunsGate(Gate):
        def __init__(self, n):
            super(RunsGate, self).__init__(n)
            self.flag = False
    """}


def test_an_init_that_bypasses_the_base_meets_its_new_state(tmp_path):
    src = CONSUMER["app/gate.py"]
    findings = findings_of(tmp_path, Case("bypassed-init", BEFORE, AFTER, CONSUMER))
    # each at the call that steps past Gate's `__init__`: the statement to change
    assert_findings(findings, [
        ("DRIFT075", line_of(src, "super(Gate, self).__init__(n)")),  # SkipsGate: super(Gate, self) starts after Gate
        ("DRIFT075", line_of(src, "nn.Module.__init__(self)")),  # SkipsAll: only nn.Module's runs
    ])  # RunsGate's super(RunsGate, self) runs Gate's: silent
    assert all("allow_fp32" in f.title for f in findings)
    severity = {f.consumer_site.line: f.severity.value for f in findings}
    assert severity == {line_of(src, "super(Gate, self).__init__(n)"): "risky",  # bypasses Gate's set-up on purpose
                        line_of(src, "nn.Module.__init__(self)"): "risky"}  # rebuilds the object on purpose
    assert all("bypasses the base's `__init__` by name" in f.details for f in findings)


FAKE_TORCH = {"torch/__init__.py": "from torch import nn\n", "torch/nn.py": """
    class Module:
        def __init__(self):
            pass
    """}


def test_python_raises_what_drift_predicts(tmp_path):
    torch = write_tree(tmp_path / "torch", FAKE_TORCH)
    after = write_tree(tmp_path / "after", AFTER)
    before = write_tree(tmp_path / "before", BEFORE)
    app = write_tree(tmp_path / "app", CONSUMER)
    packages = ("gizmo", "app", "torch")
    for cls in ("SkipsGate", "SkipsAll", "RunsGate"):
        assert raised_by([before, app, torch], "app.gate", f"{cls}(2).forward(1)", packages=packages) is None
    for cls in ("SkipsGate", "SkipsAll"):
        assert raised_by([after, app, torch], "app.gate", f"{cls}(2).forward(1)", packages=packages) == \
            f"AttributeError: '{cls}' object has no attribute 'allow_fp32'"
    assert raised_by([after, app, torch], "app.gate", "RunsGate(2).forward(1)", packages=packages) is None


IMPL_BEFORE = {"gizmo/attn.py": """
    import torch.nn as nn


    class CommonImpl(nn.Module):
        def __init__(self, heads):
            super().__init__()
            self.heads = heads

        def _concat(self, x):
            return x

        def _context(self, x):
            return self._concat(x)
    """, "gizmo/models/other.py": """
    class OtherLayer:
        def __init__(self, impl):
            self.impl = impl

        def run(self, x):
            return self.impl._context(x)
    """}
IMPL_AFTER = {"gizmo/attn.py": """
    import torch.nn as nn


    class CommonImpl(nn.Module):
        def __init__(self, heads):
            super().__init__()
            self.heads = heads
            self.fused_concat = False

        def _concat(self, x):
            if self.fused_concat:
                return x
            return x * 2

        def _context(self, x):
            return self._concat(x)
    """, "gizmo/models/other.py": IMPL_BEFORE["gizmo/models/other.py"]}
IMPL_CONSUMER = {"app/attn.py": """
    import torch.nn as nn
    from gizmo.attn import CommonImpl


    class DeviceImpl(CommonImpl):
        def __init__(self, heads):
            nn.Module.__init__(self)
            self.heads = heads
    """}


def test_a_reader_reached_only_through_a_generic_receiver_is_risky(tmp_path):
    """The only target call that reaches the inherited reader is `self.impl._context(...)`, on a
    receiver named with `CommonImpl`'s last word alone, in another model's layer: the object there
    may be another implementation, so the finding is likely, not certain."""
    src = IMPL_CONSUMER["app/attn.py"]
    findings = _with_sources(tmp_path, IMPL_BEFORE, IMPL_AFTER, IMPL_CONSUMER)
    assert_findings(findings, [("DRIFT075", line_of(src, "nn.Module.__init__(self)"))])
    assert findings[0].severity.value == "risky"
    assert "`impl`" in findings[0].details


def _with_sources(tmp_path, before, after, consumer):
    """Findings over target facts whose source text is at hand (as for a release read on this
    machine), so the rule can search the target's own calls of the inherited methods."""
    facts = {}
    for side, files in (("before", before), ("after", after)):
        root = write_tree(tmp_path / side, files)
        facts[side] = facts_of(root)
        facts[side]["target"] = {"root": str(root)}
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer))
    outcome = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"], target_package="gizmo")
    assert outcome.error is None and outcome.report is not None and not outcome.report.incomplete
    return outcome.report.findings
