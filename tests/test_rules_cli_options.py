"""`args.<option>` read off the Namespace of a parser the target's builders filled
(`make_arg_parser(parser)`, `EngineArgs.add_cli_args(parser)`): an option the baseline registered
and the target no longer does is never set, so the read raises AttributeError (synthetic
before/after pairs, the consumer really run on both). Options come from literal `add_argument`
dests, from a loop over a dataclass's fields and from the builders a parser is handed on to; the
consumer's own options are its own."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

ARGS = """
    from dataclasses import dataclass, fields


    @dataclass
    class EngineArgs:
        model: str = "m"
        old_flag: bool = False
        keep: int = 1

        @staticmethod
        def add_cli_args(parser):
            for f in fields(EngineArgs):
                parser.add_argument("--" + f.name.replace("_", "-"), dest=None or f.name, default=f.default)
            parser.add_argument("--legacy-opt", type=int, default=0)
            return parser


    class AsyncEngineArgs(EngineArgs):
        @staticmethod
        def add_cli_args(parser):
            parser = EngineArgs.add_cli_args(parser)
            group = parser.add_argument_group("async")
            group.add_argument("--disable-log", action="store_true")
            return parser
    """
CLI = """
    from gizmo.args import AsyncEngineArgs


    def make_arg_parser(parser):
        parser.add_argument("--host", type=str, default="h")
        return AsyncEngineArgs.add_cli_args(parser)
    """
BEFORE = {"gizmo/args.py": ARGS, "gizmo/cli.py": CLI}
AFTER = {"gizmo/args.py": ARGS.replace("old_flag", "new_flag").replace("--legacy-opt", "--modern-opt")
         .replace("--disable-log", "--enable-log"), "gizmo/cli.py": CLI}

MINE = """
    import argparse

    from gizmo.cli import make_arg_parser


    def main(argv):
        parser = argparse.ArgumentParser(conflict_handler="resolve")
        parser.add_argument("--legacy-opt", type=int, default=3)
        parser = make_arg_parser(parser)
        args = parser.parse_args(argv)
        return args.host, args.keep, args.legacy_opt, run(args)


    def run(args: argparse.Namespace):
        return args.model, args.disable_log


    def flags(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args, _ = parser.parse_known_args(argv)
        legacy = getattr(args, "legacy_opt")
        return args.old_flag, legacy


    def seeded(argv, preset):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv, namespace=preset)
        return args.disable_log


    def filled(argv, extra):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        for key, value in extra.items():
            setattr(args, key, value)
        return args.disable_log, getattr(args, "legacy_opt", None)
    """


def _case(mine=MINE):
    return Case("cli", BEFORE, AFTER, {"app/__init__.py": "", "app/mine.py": mine})


def test_an_option_the_target_no_longer_registers_breaks_where_it_is_read(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT009", line_of(MINE, "args.disable_log")),
                               ("DRIFT009", line_of(MINE, "return args.old_flag, legacy")),
                               ("DRIFT009", line_of(MINE, 'getattr(args, "legacy_opt")'))])
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    by_line = {f.consumer_site.line: f for f in findings}
    assert by_line[line_of(MINE, "args.disable_log")].predicted_failure == raised_by(after, "app.mine", "main([])")
    assert by_line[line_of(MINE, 'getattr(args, "legacy_opt")')].predicted_failure == \
        raised_by(after, "app.mine", "flags([])")
    assert by_line[line_of(MINE, "return args.old_flag, legacy")].predicted_failure == \
        "AttributeError: 'Namespace' object has no attribute 'old_flag'"
    assert raised_by(before, "app.mine", "main([]), flags([])") is None
    # the consumer's own Namespace, or one it fills by computed names, may hold what the parser does not set
    preset = "__import__('argparse').Namespace(disable_log=True)"
    assert raised_by(after, "app.mine", f"seeded([], {preset}), filled([], {{'disable_log': 1}})") is None


def test_a_parser_the_target_never_filled_is_the_consumers_own(tmp_path):
    mine = MINE.replace("parser = make_arg_parser(parser)", "pass").replace("make_arg_parser(parser)\n", "\n")
    assert_findings(findings_of(tmp_path, _case(mine)), [])


SERVE = """
    import argparse


    def run_server(args: argparse.Namespace, *, extra=None):
        return args.host, args.disable_log


    def unrelated(args):
        return args.disable_log
    """
ENTRY = """
    import argparse

    from gizmo.cli import make_arg_parser

    from app.serve import run_server


    def main(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        return run_server(args)
    """


def test_a_namespace_handed_to_another_module_is_read_there(tmp_path):
    case = Case("cli", BEFORE, AFTER, {"app/__init__.py": "", "app/serve.py": SERVE, "app/entry.py": ENTRY})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT009", line_of(SERVE, "return args.host, args.disable_log"))])
    assert findings[0].consumer_site.path.endswith("app/serve.py")
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.entry", "main([])")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.entry", "main([])") is None


def test_options_moved_into_a_fields_table_held_in_a_local_are_still_registered(tmp_path):
    """The target moves `--host` from a literal `add_argument` into a dataclass whose fields a loop
    over a local `kwargs = get_kwargs(FrontendArgs)` registers (vLLM 0.11's FrontendArgs): the option
    is still there, and the read stays silent; `--old-flag`, really gone, is still reported."""
    frontend = """
        from dataclasses import dataclass, fields


        def get_kwargs(cls):
            return {f.name: {"default": f.default} for f in fields(cls)}


        @dataclass
        class FrontendArgs:
            host: str = "h"

            @staticmethod
            def add_cli_args(parser):
                frontend_kwargs = get_kwargs(FrontendArgs)
                group = parser.add_argument_group("frontend")
                for key, value in frontend_kwargs.items():
                    group.add_argument(f"--{key.replace('_', '-')}", **value)
                return parser
        """
    cli = CLI.replace('parser.add_argument("--host", type=str, default="h")',
                      "parser = FrontendArgs.add_cli_args(parser)") \
        .replace("from gizmo.args import AsyncEngineArgs", "from gizmo.args import AsyncEngineArgs\n"
                 "    from gizmo.frontend import FrontendArgs")
    after = dict(AFTER, **{"gizmo/frontend.py": frontend, "gizmo/cli.py": cli})
    mine = """
    import argparse

    from gizmo.cli import make_arg_parser


    def main(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        return args.host, args.old_flag
    """
    case = Case("cli", BEFORE, after, {"app/__init__.py": "", "app/mine.py": mine})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT009", line_of(mine, "return args.host, args.old_flag"))])
    assert "old_flag" in findings[0].title
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "main([])")


def test_a_target_builder_that_computes_its_flags_proves_no_option_gone(tmp_path):
    """A target builder registering options from a table drift cannot read (`add_argument(*flags)`)
    may register any option: nothing read off its Namespace is reported."""
    extra = """
        TABLE = {"--disable-log": {"action": "store_true"}}


        def add_table(parser):
            for flag, kw in TABLE.items():
                parser.add_argument(flag, **kw)
            return parser
        """
    cli = CLI.replace("return AsyncEngineArgs.add_cli_args(parser)",
                      "add_table(parser)\n        return AsyncEngineArgs.add_cli_args(parser)") \
        .replace("from gizmo.args import AsyncEngineArgs", "from gizmo.args import AsyncEngineArgs\n"
                 "    from gizmo.table import add_table")
    after = dict(AFTER, **{"gizmo/table.py": extra, "gizmo/cli.py": cli})
    mine = """
    import argparse

    from gizmo.cli import make_arg_parser


    def main(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        return args.disable_log
    """
    case = Case("cli", BEFORE, after, {"app/__init__.py": "", "app/mine.py": mine})
    assert_findings(findings_of(tmp_path, case), [])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "main([])") is None


def test_flags_added_by_a_loop_over_a_literal_list_are_registered(tmp_path):
    """`for arg, type in [("--disable-log", bool)]: group.add_argument(arg, type=type)` (vLLM 0.11's
    deprecated guided-decoding options) registers those flags: reading one stays silent."""
    args = AFTER["gizmo/args.py"].replace(
        'group.add_argument("--enable-log", action="store_true")',
        'for arg, kind in [("--disable-log", bool), ("--enable-log", bool)]:\n'
        '                group.add_argument(arg, type=kind, default=False)')
    mine = """
    import argparse

    from gizmo.cli import make_arg_parser


    def main(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        return args.disable_log, args.old_flag
    """
    case = Case("cli", BEFORE, dict(AFTER, **{"gizmo/args.py": args}), {"app/__init__.py": "", "app/mine.py": mine})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT009", line_of(mine, "return args.disable_log, args.old_flag"))])
    assert "old_flag" in findings[0].title
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "main([])")


HELPERS = """
    from gizmo.cli import make_arg_parser


    def add_engine_options(parser):
        return make_arg_parser(parser)
    """
SERVER = """
    from argparse import Namespace


    class Server:
        args: Namespace = None

        def __init__(self, name, args: Namespace):
            self.name = name
            self.args = args

        def start(self):
            if hasattr(self.args, "old_flag"):
                return self.args.old_flag
            return self.args.host, self.args.disable_log
    """
MAIN = """
    import argparse

    from app.helpers import add_engine_options

    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="n")
    parser = add_engine_options(parser)
    args, _ = parser.parse_known_args([])


    def serve():
        from app.server import Server

        args.extra = 1
        return Server(args.name, args).start()
    """


def test_a_namespace_stored_on_self_is_read_in_every_method_of_the_class(tmp_path):
    """The parser is filled by the target through a helper of another module of the package
    (`parser = add_engine_options(parser)`, which calls `make_arg_parser(parser)`), parsed at module
    level, read as a global by a function that builds a class of another module with it, and that
    class's `__init__` stores it on `self`: a read of `self.args.<gone option>` in another method is
    the same AttributeError; a read `hasattr` tests first is not."""
    case = Case("cli", BEFORE, AFTER, {"app/__init__.py": "", "app/helpers.py": HELPERS,
                                       "app/server.py": SERVER, "app/main.py": MAIN})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT009", line_of(SERVER, "return self.args.host, self.args.disable_log"))])
    assert findings[0].consumer_site.path.endswith("app/server.py")
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "serve()")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.main", "serve()") is None
    # without the helper handing the parser to the target's builder, the Namespace is the consumer's own
    own = dict(case.consumer, **{"app/helpers.py": "def add_engine_options(parser):\n    return parser\n"})
    assert_findings(findings_of(tmp_path / "own", Case("cli", BEFORE, AFTER, own)), [])


def test_an_inherited_classmethod_builder_registers_the_fields_of_the_class_it_is_called_on(tmp_path):
    """`FrontendArgs.add_cli_args(parser)` runs a base's classmethod whose loop is over `fields(cls)`:
    the options are FrontendArgs's fields, so one the target drops from it is reported."""
    frontend = """
        from dataclasses import dataclass, fields


        class BaseArgs:
            @classmethod
            def add_cli_args(cls, parser):
                for f in fields(cls):
                    parser.add_argument("--" + f.name.replace("_", "-"), default=f.default)
                return parser


        @dataclass
        class FrontendArgs(BaseArgs):
            port: int = 1
            multiproc_off: bool = False
        """
    cli = """
        from gizmo.frontend import FrontendArgs


        def make_arg_parser(parser):
            return FrontendArgs.add_cli_args(parser)
        """
    before = {"gizmo/frontend.py": frontend, "gizmo/cli.py": cli}
    after = {"gizmo/frontend.py": frontend.replace("            multiproc_off: bool = False\n", ""), "gizmo/cli.py": cli}
    mine = """
    import argparse

    from gizmo.cli import make_arg_parser


    def main(argv):
        parser = argparse.ArgumentParser()
        make_arg_parser(parser)
        args = parser.parse_args(argv)
        return args.port, args.multiproc_off
    """
    case = Case("cli", before, after, {"app/__init__.py": "", "app/mine.py": mine})
    findings = findings_of(tmp_path, case)
    assert_findings(findings, [("DRIFT009", line_of(mine, "return args.port, args.multiproc_off"))])
    assert "multiproc_off" in findings[0].title
    assert findings[0].predicted_failure == raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "main([])")
