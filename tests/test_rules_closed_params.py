"""DRIFT011 through a function's own `**kwargs`, closed over the consumer's call graph: when a
plain function is only ever called (never handed on as a value) and every call writes its
keywords or passes dicts themselves closed, its `**kwargs` holds those keys and nothing else, so
a parameter the target now requires (here a plain value, `sock`) is shown missing at the call
that splats it. Silent where a caller passes the key, where a caller's own `**` stays unknown,
where the function escapes as a value, and where nothing in the consumer calls it."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/launcher.py": """
    async def serve(app, **server_kwargs):
        return app
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/launcher.py": """
    async def serve(app, sock, ssl_refresh=False, **server_kwargs):
        return app
    """}
CONSUMER = {"app/__init__.py": "", "app/launch.py": """
    import asyncio
    from gizmo.launcher import serve


    def main(**options):
        asyncio.run(start("args", **options))


    async def start(args, **options):
        await serve(args, host="h", **options)


    async def given(args, **options):
        await serve(args, **options)


    async def passed_on(args, **options):
        await serve(args, **options)


    async def never_called(args, **options):
        await serve(args, **options)


    def outer(extra):
        asyncio.run(passed_on("args", **extra))
        asyncio.run(given("args", sock=None))


    HANDLERS = {"escaped": passed_on}


    if __name__ == "__main__":
        main()
    """}


def test_a_required_parameter_missing_past_a_closed_kwargs_chain(tmp_path):
    src = CONSUMER["app/launch.py"]
    found = [f for f in findings_of(tmp_path, Case("closed", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT011"]
    assert sorted((f.consumer_site.path, f.consumer_site.line) for f in found) == \
        [("app/launch.py", line_of(src, 'await serve(args, host="h", **options)'))], [f.title for f in found]
    assert "sock" in found[0].title


def test_the_chain_opens_when_the_entry_is_handed_on(tmp_path):
    consumer = {"app/__init__.py": "", "app/launch.py": CONSUMER["app/launch.py"] + """
    RUNNERS = [main]
    """}
    found = [f for f in findings_of(tmp_path, Case("escaped", BEFORE, AFTER, consumer)) if f.rule_id == "DRIFT011"]
    assert found == [], [f.title for f in found]
