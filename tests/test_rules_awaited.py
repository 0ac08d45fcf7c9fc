"""DRIFT033: a call the consumer awaits whose callee the target turned from `async def` into a
plain `def`. The `await` then receives the returned value and raises TypeError; a plain function
whose return annotation is an awaitable still works, and one with no annotation is only risky."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/engine.py": """
    class Tokenizer:
        pass


    class Engine:
        async def get_tokenizer(self) -> Tokenizer:
            return Tokenizer()

        async def reset(self):
            return None

        async def wait(self) -> None:
            return None

        async def stats(self) -> dict:
            return {}
    """}
AFTER = {"gizmo/engine.py": """
    import asyncio
    from typing import Awaitable


    class Tokenizer:
        pass


    class Engine:
        def get_tokenizer(self) -> Tokenizer:
            return Tokenizer()

        def reset(self):
            return None

        def wait(self) -> Awaitable[None]:
            return asyncio.sleep(0)

        async def stats(self) -> dict:
            return {}
    """}
CONSUMER = {"app/run.py": """
    from gizmo.engine import Engine


    class Mine(Engine):
        pass


    async def start(engine: Engine):
        tok = await engine.get_tokenizer()
        await engine.reset()
        await engine.wait()
        await engine.stats()
        return tok


    async def own():
        return await Mine().get_tokenizer()
    """}


def test_an_awaited_call_of_a_function_that_is_no_longer_async(tmp_path):
    src = CONSUMER["app/run.py"]
    found = [f for f in findings_of(tmp_path, Case("awaited", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT033"]
    got = {(f.consumer_site.line, f.severity) for f in found}
    assert {f.predicted_failure for f in found if f.severity == Severity.BREAKING} == \
        {"TypeError: object Tokenizer can't be used in 'await' expression"}
    assert got == {(line_of(src, "tok = await engine.get_tokenizer()"), Severity.BREAKING),
                   (line_of(src, "await engine.reset()"), Severity.RISKY),
                   (line_of(src, "return await Mine().get_tokenizer()"), Severity.BREAKING)}, got


def test_python_raises_where_drift_says_it_breaks(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    run = "__import__('asyncio').run({})"
    engine = "__import__('gizmo.engine').engine.Engine()"
    assert raised_by([before, app], "app.run", run.format(f"start({engine})")) is None
    assert raised_by([after, app], "app.run", run.format(f"start({engine})")) == \
        "TypeError: object Tokenizer can't be used in 'await' expression"
    assert raised_by([after, app], "app.run", run.format("own()")) == \
        "TypeError: object Tokenizer can't be used in 'await' expression"
