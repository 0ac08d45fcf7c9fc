"""DRIFT062 where a setting is applied only when `hasattr` finds it and the consumer raises when it
does not: the consumer's own `raise` runs on the target, so the finding is breaking, at the raise.

Dynamo (ai-dynamo 0.7.1 / 0.8.1) sets vLLM engine-argument defaults by name:
`for key, value in defaults.items(): if hasattr(config.engine_args, key): setattr(...) else: raise
ValueError(f"{key} not found in AsyncEngineArgs from vLLM.")`; vLLM 0.12 dropped
`disable_log_requests` and 0.13 dropped `task`, and the worker stopped at start-up on that raise.
Without the raise the setting is skipped: risky, as before.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, src

BEFORE = {"gizmo/args.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str = ""
        task: str = "auto"
        seed: int = 0
    """}
AFTER = {"gizmo/args.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str = ""
        seed: int = 0
    """}

RAISING = """
    from gizmo.args import EngineArgs


    def overwrite(args: EngineArgs):
        defaults = {
            "task": "generate",
            "seed": 1,
        }
        for key, value in defaults.items():
            if hasattr(args, key):
                setattr(args, key, value)
            else:
                raise ValueError(f"{key} not found in EngineArgs")
    """


def _case(consumer: str) -> Case:
    return Case("settings", BEFORE, AFTER, {"app/__init__.py": "", "app/args.py": consumer})


def _drift062(findings):
    return [f for f in findings if f.rule_id == "DRIFT062"]


def test_a_setting_applied_under_hasattr_with_an_else_raise_fails_at_the_raise(tmp_path):
    (f,) = _drift062(findings_of(tmp_path, _case(RAISING)))
    text = src(RAISING)
    assert f.severity.value == "breaking"
    assert f.consumer_site.line == line_of(text, "raise ValueError")
    assert f.consumer_site.use_line == line_of(text, '"task": "generate"')
    assert f.symbol == "gizmo.args.EngineArgs.task"
    assert "raise` at line" in f.title


def test_without_a_raise_the_setting_is_skipped_and_stays_risky(tmp_path):
    consumer = RAISING.replace("""
            else:
                raise ValueError(f"{key} not found in EngineArgs")""", "")
    (f,) = _drift062(findings_of(tmp_path, _case(consumer)))
    assert f.severity.value == "risky" and f.consumer_site.line == line_of(src(consumer), '"task": "generate"')


def test_a_raise_under_a_test_of_another_attribute_is_not_this_settings(tmp_path):
    consumer = """
        from gizmo.args import EngineArgs


        def overwrite(args: EngineArgs):
            if hasattr(args, "seed"):
                args.task = "generate"
            else:
                raise ValueError("no seed")
        """
    (f,) = _drift062(findings_of(tmp_path, _case(consumer)))
    assert f.severity.value == "risky"
