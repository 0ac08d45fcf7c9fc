"""Objects reached only through a target factory: a classmethod declared `-> Self` builds an
object of the class it is called on (on the target, what an alias now names), and a method call on
a name that is an alias of a class on one side and a class on the other is judged against each
side's own class (`Engine = NewEngine` on the target, `class Engine` on the baseline)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/engine.py": """
    from typing_extensions import Self


    class Engine:
        @classmethod
        def make(cls, args) -> Self:
            return cls(args)

        def __init__(self, args):
            self.args = args

        def get_config(self):
            return 1

        def generate(self, p):
            return p
    """}
AFTER = {"gizmo/engine.py": """
    from typing_extensions import Self


    class NewEngine:
        @classmethod
        def make(cls, args) -> Self:
            return cls(args)

        def __init__(self, args):
            self.args = args

        def generate(self, p, *, n):
            return p


    Engine = NewEngine
    """}
CONSUMER = {"app/serve.py": """
    from gizmo.engine import Engine


    def built(a):
        engine = Engine.make(a)
        return engine.get_config()


    def direct(a):
        engine = Engine(a)
        return engine.generate(1)


    class Server:
        def __init__(self, a):
            self.engine = Engine.make(a)

        def config(self):
            return self.engine.get_config()
    """}


def test_self_factories_and_aliased_receivers_are_judged_on_each_side(tmp_path):
    src = CONSUMER["app/serve.py"]
    findings = findings_of(tmp_path, Case("factory-receivers", BEFORE, AFTER, CONSUMER))
    held = line_of(src, "return self.engine.get_config()")
    # held on self: reported as gone (DRIFT060) or as the field's changed type (DRIFT061, naming both)
    on_self = [f for f in findings if f.consumer_site.line == held]
    assert on_self and all(f.rule_id in ("DRIFT060", "DRIFT061") and "get_config" in f.title for f in on_self)
    assert_findings(tuple(f for f in findings if f.consumer_site.line != held), [
        ("DRIFT060", line_of(src, "return engine.get_config()")),
        ("DRIFT011", line_of(src, "return engine.generate(1)")),
    ])


def test_python_fails_where_the_findings_say(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    for expr in ("built(1)", "direct(1)", "Server(1).config()"):
        assert raised_by([before, app], "app.serve", expr) is None, expr
    assert raised_by([after, app], "app.serve", "built(1)") == \
        "AttributeError: 'NewEngine' object has no attribute 'get_config'"
    assert raised_by([after, app], "app.serve", "Server(1).config()") == \
        "AttributeError: 'NewEngine' object has no attribute 'get_config'"
    assert raised_by([after, app], "app.serve", "direct(1)") == \
        "TypeError: NewEngine.generate() missing 1 required keyword-only argument: 'n'"


CM_BEFORE = {"gizmo/client.py": """
    from contextlib import asynccontextmanager
    from typing import AsyncIterator

    from typing_extensions import Self


    class Client:
        def get_config(self):
            return 1

        def __enter__(self) -> Self:
            return self

        def __exit__(self, *exc):
            return False


    @asynccontextmanager
    async def build_client(args) -> AsyncIterator[Client]:
        yield Client()
    """}
CM_AFTER = {"gizmo/client.py": """
    from contextlib import asynccontextmanager
    from typing import AsyncIterator

    from typing_extensions import Self


    class Client:
        def __enter__(self) -> Self:
            return self

        def __exit__(self, *exc):
            return False


    @asynccontextmanager
    async def build_client(args) -> AsyncIterator[Client]:
        yield Client()
    """}
CM_CONSUMER = {"app/serve.py": """
    import asyncio

    from gizmo.client import Client, build_client


    async def serve(a):
        async with build_client(a) as client:
            return client.get_config()


    def local():
        with Client() as client:
            return client.get_config()


    def run():
        return asyncio.run(serve(1))
    """}


def test_what_a_with_statement_enters_is_the_targets_object(tmp_path):
    src = CM_CONSUMER["app/serve.py"]
    findings = findings_of(tmp_path, Case("entered", CM_BEFORE, CM_AFTER, CM_CONSUMER))
    assert_findings(findings, [
        ("DRIFT060", line_of(src, "return client.get_config()", 1)),
        ("DRIFT060", line_of(src, "return client.get_config()", 2)),
    ])


def test_python_fails_in_the_with_bodies(tmp_path):
    before = write_tree(tmp_path / "before", CM_BEFORE)
    after = write_tree(tmp_path / "after", CM_AFTER)
    app = write_tree(tmp_path / "app", CM_CONSUMER)
    for expr in ("run()", "local()"):
        assert raised_by([before, app], "app.serve", expr) is None, expr
        assert raised_by([after, app], "app.serve", expr) == \
            "AttributeError: 'Client' object has no attribute 'get_config'", expr
