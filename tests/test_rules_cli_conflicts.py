"""DRIFT131: a long option the consumer adds to a parser it also hands to the target's builder
(`AsyncEngineArgs.add_cli_args(parser)`), which the target's builder now registers too: argparse
raises `conflicting option string` when the parser is built (the synthetic consumer really run
on both sides). Silent for an option the builder registered on the baseline too, for one added
under a condition, and for a parser built with `conflict_handler="resolve"`."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

ARGS = """
    class EngineArgs:
        @staticmethod
        def add_cli_args(parser):
            parser.add_argument("--model", default="m")
            parser.add_argument("--keep", type=int, default=1)
            return parser
    """
BEFORE = {"gizmo/__init__.py": "", "gizmo/args.py": ARGS}
AFTER = {"gizmo/__init__.py": "", "gizmo/args.py": ARGS.replace(
    '            return parser', '            parser.add_argument("--reasoning", action="store_true")\n'
                                 '            parser.add_argument("--guarded", action="store_true")\n'
                                 '            parser.add_argument("--resolved", action="store_true")\n'
                                 '            return parser')}
MINE = """
    import argparse

    from gizmo.args import EngineArgs


    def get_parser():
        parser = argparse.ArgumentParser()
        parser.add_argument("--reasoning", action="store_true")
        parser.add_argument("--own-port", type=int, default=1)
        if not hasattr(EngineArgs, "guarded"):
            parser.add_argument("--guarded", action="store_true")
        parser = EngineArgs.add_cli_args(parser)
        return parser


    def get_resolving_parser():
        parser = argparse.ArgumentParser(conflict_handler="resolve")
        parser.add_argument("--resolved", action="store_true")
        return EngineArgs.add_cli_args(parser)
    """
CONSUMER = {"app/__init__.py": "", "app/mine.py": MINE}


def test_an_own_option_the_target_builder_now_registers_conflicts(tmp_path):
    found = [f for f in findings_of(tmp_path, Case("conflicts", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT131"]
    assert [f.consumer_site.line for f in found] == [line_of(MINE, 'parser.add_argument("--reasoning"')], \
        [f.title for f in found]
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    assert found[0].predicted_failure == raised_by(after, "app.mine", "get_parser()")
    assert raised_by(before, "app.mine", "get_parser(), get_resolving_parser()") is None
    assert raised_by(after, "app.mine", "get_resolving_parser()") is None


MAIN = """
    from gizmo.utils import FlexibleArgumentParser

    from app.helpers import add_engine_options

    parser = FlexibleArgumentParser()
    parser.add_argument("--reasoning", action="store_true")
    parser.add_argument("--own-port", type=int, default=1)
    parser = add_engine_options(parser)
    """
HELPERS = """
    from gizmo.args import EngineArgs


    def add_engine_options(parser):
        return EngineArgs.add_cli_args(parser)
    """


def test_a_parser_handed_to_the_package_s_own_helper_that_calls_the_builder(tmp_path):
    """KServe's shape: the module builds the parser at import time, adds `--task`, and hands it to
    a helper of another module (`maybe_add_vllm_cli_parser(parser)`) that calls vLLM's builder."""
    consumer = {"app/__init__.py": "", "app/main.py": MAIN, "app/helpers.py": HELPERS}
    utils = {"gizmo/utils.py": "import argparse\n\n\nclass FlexibleArgumentParser(argparse.ArgumentParser):\n    pass\n"}
    case = Case("via", {**BEFORE, **utils}, {**AFTER, **utils}, consumer)
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT131"]
    assert [(f.consumer_site.path, f.consumer_site.line) for f in found] == [
        ("app/main.py", line_of(MAIN, 'parser.add_argument("--reasoning"'))]
    got = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "None")
    assert got == found[0].predicted_failure
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.main", "None") is None


SCRIPT = """
    import argparse

    from gizmo.args import EngineArgs


    if __name__ == "__main__":
        parser = argparse.ArgumentParser()
        parser.add_argument("--reasoning", action="store_true")
        parser = EngineArgs.add_cli_args(parser)
        args = parser.parse_args([])
    """


def test_a_script_s_main_block_adds_its_options_unconditionally(tmp_path):
    """functionary's `server_vllm.py`: the parser is built under `if __name__ == "__main__":`,
    which is the script's own body, not a condition on the target (vLLM 0.5.0 added
    `--served-model-name`)."""
    consumer = {"app/__init__.py": "", "app/server.py": SCRIPT}
    found = [f for f in findings_of(tmp_path, Case("main", BEFORE, AFTER, consumer)) if f.rule_id == "DRIFT131"]
    assert [f.consumer_site.line for f in found] == [line_of(SCRIPT, 'parser.add_argument("--reasoning"')]
    import runpy
    import sys
    sys.path[:0] = [str(tmp_path / "after"), str(tmp_path / "consumer")]
    try:
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]
        try:
            runpy.run_module("app.server", run_name="__main__")
            raised = None
        except Exception as exc:  # noqa: BLE001 - the point is to see it
            raised = f"argparse.{type(exc).__qualname__}: {exc}"
    finally:
        del sys.path[:2]
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]
    assert raised == found[0].predicted_failure
