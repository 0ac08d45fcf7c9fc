"""DRIFT142: state a consumer subclass sets on `self` before it runs the base `__init__`, which the
target's base `__init__` now sets itself (vLLM 0.10.2's `LinearBase.__init__` took over `tp_rank` /
`tp_size`; vllm-ascend 0.10.1rc1's MLP-parallel linear layers set their own MLP group's rank and
size first, then called `LinearBase.__init__`, which now overwrote them: weights sharded by the
wrong group, silently). What the subclass sets again after the call, or sets only after it, and
what the baseline's base already set, are not this rule's."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/linear.py": """
    def world():
        return 4


    def rank():
        return 1


    class LinearBase:
        def __init__(self, size):
            self.size = size
            self.bias = None
    """}
AFTER = {"gizmo/linear.py": BEFORE["gizmo/linear.py"].replace(
    "            self.size = size\n",
    "            self.size = size\n            self.tp_size = world()\n            self.tp_rank = rank()\n")}
CONSUMER = """
    from gizmo.linear import LinearBase


    def mlp_world():
        return 2


    class Mlp(LinearBase):
        def __init__(self, size):
            self.tp_size = mlp_world()
            self.tp_rank = 0
            self.bias = 1
            self.extra = 1
            LinearBase.__init__(self, size)
            self.tp_rank = 0

        def shard(self):
            return self.size // self.tp_size


    class Mlp2(LinearBase):
        def __init__(self, size):
            self.tp_size = mlp_world()
            super().__init__(size)


    class Late(LinearBase):
        def __init__(self, size):
            super().__init__(size)
            self.tp_size = mlp_world()
    """


def test_state_set_before_the_base_init_that_now_sets_it(tmp_path):
    found = findings_of(tmp_path, Case("over", BEFORE, AFTER, {"app/__init__.py": "", "app/mlp.py": CONSUMER}))
    # `tp_rank` is set again after the call, `bias` was the baseline's base's already, `extra` is
    # the subclass's own, and `Late` sets its value after the base's
    assert_findings(found, [("DRIFT142", line_of(CONSUMER, "LinearBase.__init__(self, size)")),
                            ("DRIFT142", line_of(CONSUMER, "super().__init__(size)"))])
    f = found[0]
    assert f.severity.value == "risky" and "`tp_size`" in f.title and "tp_rank" not in f.title
    assert f.target_evidence[0].line == line_of(AFTER["gizmo/linear.py"], "self.tp_size = world()")
    run = "__import__('app.mlp').mlp.Mlp(8).shard() == 4 or (_ for _ in ()).throw(ValueError('tp_size overwritten'))"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mlp", run) == "ValueError: tp_size overwritten"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mlp", run) is None
