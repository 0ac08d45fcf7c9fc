"""A classmethod that returns an object of the class that declares it (`def from_cli_args(cls,
args) -> "EngineArgs": return cls(...)`), read off a subclass (`AsyncEngineArgs.from_cli_args(args)`),
builds the subclass: the alternative-constructor idiom, as `-> Self` says. vLLM 0.4.2 annotated
`EngineArgs.from_cli_args` so; drift took `AsyncEngineArgs.from_cli_args(args)` for an `EngineArgs`
and read `engine_use_ray` (an `AsyncEngineArgs` field) as missing on the baseline, so Llumnix's read
of it, gone in vLLM 0.6, went unreported.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

ARGS = """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str = ""

        @classmethod
        def from_cli_args(cls, args) -> "EngineArgs":
            return cls(model=args.model)


    @dataclass
    class AsyncEngineArgs(EngineArgs):
        engine_use_ray: bool = False
    """
BEFORE = {"gizmo/args.py": ARGS}
AFTER = {"gizmo/args.py": ARGS.replace("        engine_use_ray: bool = False\n", "        disable_log_requests: bool = False\n")}

CONSUMER = """
    from gizmo.args import AsyncEngineArgs


    def check(cli):
        engine_args = AsyncEngineArgs.from_cli_args(cli)
        return engine_args.engine_use_ray
    """


def test_a_classmethod_constructor_read_off_a_subclass_builds_the_subclass(tmp_path):
    case = Case("classmethod-ctor", BEFORE, AFTER, {"app/__init__.py": "", "app/check.py": CONSUMER})
    (f,) = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT060"]
    assert f.severity.value == "breaking"
    assert f.consumer_site.line == line_of(src(CONSUMER), "engine_args.engine_use_ray")
    assert f.symbol == "gizmo.args.AsyncEngineArgs.engine_use_ray"
