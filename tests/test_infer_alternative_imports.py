"""A name one branch imports from the consumer's own copy and the other from the target
(functionary: `if args.grammar_sampling: from functionary...async_llm_engine import AsyncLLMEngine`
/ `else: from vllm.engine.async_llm_engine import AsyncLLMEngine`), built through a classmethod
(`AsyncLLMEngine.from_engine_args(args)`) and handed to a helper in another module whose parameter
is annotated `Any`.

The helper's parameter holds the target's engine on the default path, so a call the target no
longer accepts there is a break; a call only the consumer's own engine ever accepted (an extra
keyword the baseline's engine never took either) is the consumer's branch, and stays silent.
Both facts need the solver: the name bound by two imports holds either, and a classmethod's
`cls` is the class it is called on (its other parameters take the call's arguments).
"""

from __future__ import annotations

from drift.consumer.infer import solve
from tests.rule_cases import Case, assert_findings, consumer_of, findings_of, line_of, raised_by, write_tree

ENGINE = """
    class EngineArgs:
        pass


    class Engine:
        @classmethod
        def from_args(cls, args) -> "Engine":
            return cls()

        def generate(self, {params}):
            return {first}
    """
BEFORE = {"gizmo/engine.py": ENGINE.format(params="prompt=None, request_id=None", first="prompt")}
AFTER = {"gizmo/engine.py": ENGINE.format(params="inputs, request_id=None", first="inputs")}
OWN = """
    class Engine:
        @classmethod
        def from_args(cls, args):
            engine = cls(args)
            return engine

        def __init__(self, args):
            self.args = args

        def generate(self, prompt=None, request_id=None, tools=None):
            return prompt
    """
SERVER = """
    import sys

    from app.infer import serve
    from gizmo.engine import EngineArgs

    if __name__ == "__main__":
        if "--grammar" in sys.argv:
            from app.patched import Engine
        else:
            from gizmo.engine import Engine
        engine = Engine.from_args(EngineArgs())
        serve(engine=engine, grammar="--grammar" in sys.argv)
    """
INFER = """
    from typing import Any

    from gizmo.engine import EngineArgs


    def serve(engine: Any, grammar: bool, args: EngineArgs = None):
        if grammar:
            return engine.generate(prompt="x", request_id="1", tools=[])
        return engine.generate(prompt="x", request_id="1")
    """
CONSUMER = {"app/patched.py": OWN, "app/server.py": SERVER, "app/infer.py": INFER}


def test_a_parameter_fed_from_either_import_meets_the_target_on_its_default_path(tmp_path):
    case = Case("alternatives", BEFORE, AFTER, CONSUMER,
                [("DRIFT010", line_of(INFER, 'return engine.generate(prompt="x", request_id="1")')),
                 ("DRIFT011", line_of(INFER, 'return engine.generate(prompt="x", request_id="1")'))])
    assert_findings(findings_of(tmp_path, case), case.expected)
    # what Python raises on the target's path, and that the consumer's own branch runs on both
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    assert raised_by([after, app], "app.infer", "serve(__import__('gizmo.engine').engine.Engine(), False)") \
        == "TypeError: Engine.generate() got an unexpected keyword argument 'prompt'"
    assert raised_by([after, app], "app.infer", "serve(__import__('app.patched').patched.Engine(1), True)") is None


def test_unchanged_target_is_silent(tmp_path):
    case = Case("alternatives-unchanged", BEFORE, BEFORE, CONSUMER, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_the_solver_types_both_imports_and_the_classmethod_receiver(tmp_path):
    app = write_tree(tmp_path / "app", CONSUMER)
    solution = solve(consumer_of(app).usage, ("gizmo",))
    held = sorted(solution.params["app.infer.serve:0"])
    # the consumer's own engine (built by `cls(args)` with `cls` the class) and the target's
    assert held == [("self:app.patched.Engine",), ("sym:gizmo.engine.Engine.from_args", "()")]
    # the classmethod's `args` took the call's first argument, not `cls`'s slot
    assert solution.params["app.patched.Engine.from_args:1"] == [("sym:gizmo.engine.EngineArgs", "()")]
    assert solution.params["app.patched.Engine.from_args:0"] == [("sym:app.patched.Engine",)]
