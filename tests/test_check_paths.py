"""The path evaluator (drift/analysis/paths.py) memoises members, annotations and target bases, and
the context memoises call bindings: a memoised answer must be the one a fresh evaluator gives,
whatever was asked before, and a cycle of `self.a = other.b` assignments must still end."""

from __future__ import annotations

from drift.analysis.context import CheckContext, _callable
from drift.analysis.paths import ConsumerModel, PathEvaluator, Value
from drift.consumer.usage import collect_usage
from drift.model.index import PackageIndex
from tests.rule_cases import facts_of, write_tree

TARGET = {
    "gizmo/core.py": """
        from typing import Optional

        class Config:
            size: int = 4

        class Left:
            def __init__(self, right: "Right", cfg: Config):
                self.right = right
                self.cfg = cfg
                self.mirror = right.mirror      # Right.mirror is Left.mirror: a cycle
                self.size = cfg.size

        class Right:
            def __init__(self, left: Left):
                self.left = left
                self.mirror = left.mirror

        class Runner:
            def __init__(self, cfg: Optional[Config]):
                self.cfg = cfg

            def build(self, n: int, *, fast: bool = False) -> Left:
                ...

            @classmethod
            def create(cls, cfg: Config) -> "Runner":
                ...
        """,
}
CONSUMER = {
    "app/main.py": """
        from gizmo.core import Left, Runner

        class Mine(Runner):
            def go(self):
                return self.cfg.size

        class Deeper(Mine):
            pass

        def use(r: Runner):
            r.build(1, fast=True)
            return Runner.create(None)
        """,
}


def _evaluator(tmp_path, name: str = "t") -> tuple[PackageIndex, PathEvaluator, list]:
    index = PackageIndex(facts_of(write_tree(tmp_path / name, TARGET)))
    usage = collect_usage(write_tree(tmp_path / f"{name}-app", CONSUMER), ["app"], ["gizmo"])
    return index, PathEvaluator(index, ConsumerModel(usage), target_prefixes=("gizmo",)), usage


QUESTIONS = [("gizmo.core.Left", "mirror"), ("gizmo.core.Right", "mirror"), ("gizmo.core.Left", "size"),
             ("gizmo.core.Left", "right"), ("gizmo.core.Runner", "cfg"), ("gizmo.core.Runner", "build"),
             ("gizmo.core.Runner", "gone"), ("gizmo.core.Config", "size")]


def _answers(ev: PathEvaluator, index: PackageIndex, questions) -> dict:
    return {(c, n): ev._member(index.lookup(c), n, on_class=False) for c, n in questions}


def test_memoised_members_are_what_a_fresh_evaluator_answers_in_any_order(tmp_path):
    index, ev, _ = _evaluator(tmp_path)
    forward = _answers(ev, index, QUESTIONS)
    again = _answers(ev, index, QUESTIONS)  # from the memo now
    _, ev2, _ = _evaluator(tmp_path, "t2")
    backward = _answers(ev2, ev2.index, list(reversed(QUESTIONS)))
    fresh = {q: _answers(_evaluator(tmp_path, f"f{i}")[1], ev.index, [q])[q] for i, q in enumerate(QUESTIONS)}
    assert forward == again == fresh
    assert {q: (v.kind, v.via) for q, v in backward.items()} == {q: (v.kind, v.via) for q, v in forward.items()}
    # the answers themselves: a typed attribute, a cycle that ends as "exists, type unknown", a missing name
    assert (forward[("gizmo.core.Left", "size")].kind, forward[("gizmo.core.Left", "size")].via) == ("external", "instance")
    assert forward[("gizmo.core.Left", "right")].kind == "instance"
    assert forward[("gizmo.core.Left", "right")].cls.dotted == "gizmo.core.Right"
    assert forward[("gizmo.core.Left", "mirror")].kind == "external"  # the cycle was cut, the name exists
    assert forward[("gizmo.core.Runner", "cfg")].cls.dotted == "gizmo.core.Config"  # Optional[Config]
    assert forward[("gizmo.core.Runner", "build")].kind == "method"
    assert forward[("gizmo.core.Runner", "gone")].kind == "missing"


def test_a_cut_cycle_is_not_memoised_inside_it(tmp_path):
    index, ev, _ = _evaluator(tmp_path)
    ev._member(index.lookup("gizmo.core.Left"), "mirror", on_class=False)
    assert ev._cutoffs > 0  # the depth guard ended the Left.mirror <-> Right.mirror cycle
    kept = {(c, n) for c, n, _on_class in ev._members}
    assert ("gizmo.core.Left", "mirror") not in kept and ("gizmo.core.Right", "mirror") not in kept
    assert ("gizmo.core.Left", "right") not in kept  # never asked: nothing is memoised ahead


def test_target_bases_hand_each_caller_its_own_list(tmp_path):
    _, ev, _ = _evaluator(tmp_path)
    first = ev.target_bases("app.main.Deeper")
    assert [s.dotted for s in first] == ["gizmo.core.Runner"]
    first.clear()
    assert [s.dotted for s in ev.target_bases("app.main.Deeper")] == ["gizmo.core.Runner"]


def test_call_bindings_are_memoised_per_symbol_and_handed_out_as_copies(tmp_path):
    index, _, usage = _evaluator(tmp_path)
    build = index.lookup("gizmo.core.Runner.build")
    create = index.lookup("gizmo.core.Runner.create")
    sym, params, at, ctor = _callable(index, Value("method", sym=build))
    assert (sym, at, ctor) == (build, build, False)
    assert [p.name for p in params] == ["n", "fast"]  # bound: self is supplied
    params.clear()
    assert [p.name for p in _callable(index, Value("method", sym=build))[1]] == ["n", "fast"]
    assert [p.name for p in _callable(index, Value("unbound", sym=build))[1]] == ["self", "n", "fast"]
    assert [p.name for p in _callable(index, Value("function", sym=create))[1]] == ["cfg"]  # a classmethod
    cls = index.lookup("gizmo.core.Runner")
    sym, params, at, ctor = _callable(index, Value("class", sym=cls))
    assert ctor and at.dotted == "gizmo.core.Runner.__init__" and [p.name for p in params] == ["cfg"]
    assert _callable(index, Value("external", sym=cls)) == (None, None, None, False)
    # and the context resolves the consumer's calls with them
    ctx = CheckContext(target=index, baseline=None, usage=usage, target_package="gizmo")
    calls = {rc.dotted: rc for rc in ctx.calls}
    assert [p.name for p in calls["gizmo.core.Runner.build"].target_params] == ["n", "fast"]
    assert [p.name for p in calls["gizmo.core.Runner.create"].target_params] == ["cfg"]
