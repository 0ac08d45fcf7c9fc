"""Calls through a class a package's `__getattr__` serves under another name
(`vllm.AsyncLLMEngine`, an alias of `AsyncLLM` the package hands out lazily), and through what its
factory returns, kept on `self`: `self.engine = pkg.Alias.from_engine_args(args)` then
`await self.engine.get_tokenizer()` in another method. No lookup of the dotted name finds such a
class, so each call is judged through its path, step by step, on each side; and the `await` of a
call first seen by the plain call extractor is kept on the merged record (DRIFT033 needs it)."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

INIT = """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from gizmo.engine.alias import AsyncLLMEngine

    MODULE_ATTRS = {"AsyncLLMEngine": ".engine.alias:AsyncLLMEngine"}


    def __getattr__(name):
        import importlib
        mod, _, attr = MODULE_ATTRS[name].partition(":")
        return getattr(importlib.import_module(mod, __name__), attr)
    """
ENGINE = """
    class Tokenizer:
        pass


    class AsyncLLM:
        @classmethod
        def from_engine_args(cls, engine_args, start_loop: bool = True) -> "AsyncLLM":
            return cls()

        async def get_tokenizer(self) -> Tokenizer:
            return Tokenizer()

        async def reset(self) -> None:
            return None
    """


def _tree(engine: str) -> dict[str, str]:
    return {"gizmo/__init__.py": INIT, "gizmo/v1/__init__.py": "", "gizmo/v1/engine.py": engine,
            "gizmo/engine/__init__.py": "",
            "gizmo/engine/alias.py": "from gizmo.v1.engine import AsyncLLM\n\nAsyncLLMEngine = AsyncLLM\n"}


BEFORE = _tree(ENGINE)
AFTER = _tree(ENGINE.replace("async def get_tokenizer", "def get_tokenizer")
              .replace(", start_loop: bool = True", ""))
CONSUMER = {"app/__init__.py": "", "app/model.py": """
    import asyncio

    import gizmo


    class Model:
        def __init__(self, args):
            self.engine = gizmo.AsyncLLMEngine.from_engine_args(args, start_loop=False)

        async def prepare(self):
            self.tokenizer = await self.engine.get_tokenizer()
            await self.engine.reset()
            return self.tokenizer


    def run():
        return asyncio.run(Model(None).prepare())
    """}


def test_calls_through_a_served_alias_and_its_factory_are_judged(tmp_path):
    src = CONSUMER["app/model.py"]
    found = findings_of(tmp_path, Case("served", BEFORE, AFTER, CONSUMER))
    got = {(f.rule_id, f.consumer_site.line) for f in found}
    assert got == {("DRIFT010", line_of(src, "from_engine_args(args")),
                   ("DRIFT033", line_of(src, "await self.engine.get_tokenizer()"))}, got
    awaited = next(f for f in found if f.rule_id == "DRIFT033")
    keyword = next(f for f in found if f.rule_id == "DRIFT010")
    app = write_tree(tmp_path / "run_app", CONSUMER)
    after = write_tree(tmp_path / "run_after", {k: v for k, v in AFTER.items()})
    failure = raised_by([after, app], "app.model", "run()")
    assert failure is not None and failure.startswith("TypeError") and "start_loop" in failure
    assert "start_loop" in keyword.title
    only_await = {**AFTER, "gizmo/v1/engine.py": ENGINE.replace("async def get_tokenizer", "def get_tokenizer")}
    failure = raised_by([write_tree(tmp_path / "run_await", only_await), app], "app.model", "run()")
    assert failure == awaited.predicted_failure, (failure, awaited.predicted_failure)
    assert raised_by([write_tree(tmp_path / "run_before", BEFORE), app], "app.model", "run()") is None


def test_nothing_when_the_served_class_did_not_change(tmp_path):
    assert findings_of(tmp_path, Case("same", BEFORE, BEFORE, CONSUMER)) == ()


HELPER = {"app/__init__.py": "", "app/engine.py": """
    from gizmo import AsyncLLMEngine


    class Engine:
        def __init__(self, engine=None):
            self.args = None
            self.llm = self._initialize() if engine is None else engine.llm

        def _initialize(self):
            try:
                llm = AsyncLLMEngine.from_engine_args(self.args)
                return llm
            except Exception as e:
                raise e


    class OpenAIEngine(Engine):
        def __init__(self, engine):
            super().__init__(engine)

        async def prepare(self):
            return await self.llm.get_tokenizer()
    """, "app/handler.py": """
    from app.engine import Engine, OpenAIEngine

    engine = Engine()
    OpenAIEngine = OpenAIEngine(engine)
    """}


def test_a_factory_result_through_a_helper_and_a_conditional_is_the_served_class(tmp_path):
    """`self.llm = self._initialize() if engine is None else engine.llm`: the helper returns a
    local holding `AsyncLLMEngine.from_engine_args(...)` (the solver names it as one dotted
    name, read step by step as Python does), the other branch hands on another Engine's own
    field: the field may hold the served `AsyncLLM` only, and a subclass's call of a method the
    target dropped from it is found."""
    gone = _tree(ENGINE.replace("        async def get_tokenizer(self) -> Tokenizer:\n"
                                "            return Tokenizer()\n", ""))
    src = HELPER["app/engine.py"]
    found = findings_of(tmp_path, Case("served-helper", BEFORE, gone, HELPER))
    assert [(f.rule_id, f.consumer_site.line) for f in found] == \
        [("DRIFT060", line_of(src, "await self.llm.get_tokenizer()"))], found
    app = write_tree(tmp_path / "run_app", HELPER)
    failure = raised_by([write_tree(tmp_path / "run_after", gone), app], "app.handler",
                        "__import__('asyncio').run(OpenAIEngine.prepare())")
    assert failure == found[0].predicted_failure, (failure, found[0].predicted_failure)
