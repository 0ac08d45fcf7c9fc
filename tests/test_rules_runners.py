"""A call that runs another function for the caller is a call of that function: the arguments
given to `asyncio.to_thread(f, ...)`, `loop.run_in_executor(None, f, ...)`,
`ThreadPoolExecutor().submit(f, ...)`, `functools.partial(f, ...)` and `Thread(target=f, args=...,
kwargs=...)` bind to f's parameters, so a keyword f no longer takes (DRIFT010) or a parameter it
now requires (DRIFT011) is reported where the consumer wrote it. A partial leaves the rest of the
arguments to its caller: it can pass a keyword f rejects, never miss one."""

from __future__ import annotations

import asyncio

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/engine.py": """
    class Engine:
        @staticmethod
        def send(iterator, group, packed=False):
            return list(iterator)


    def load(path, strict=True):
        return path
    """}
AFTER = {"gizmo/engine.py": """
    class Engine:
        @staticmethod
        def send(iterator, trainer_args):
            return list(iterator)


    def load(path, mode, strict=True):
        return path
    """}
CONSUMER = {"app/offload.py": """
    import asyncio
    import functools
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from gizmo.engine import Engine, load


    async def threaded():
        return await asyncio.to_thread(
            Engine.send,
            iterator=iter([1]),
            group=None,
        )


    async def in_executor():
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, load, "p")


    def submitted():
        return ThreadPoolExecutor(1).submit(load, "p").result()


    def partly():
        return functools.partial(Engine.send, packed=True)


    def partly_fine():
        return functools.partial(load, strict=False)


    def thread():
        t = threading.Thread(target=load, args=("p",), kwargs={"strict": False})
        t.start()
        t.join()
    """}


def _findings(tmp_path):
    return [f for f in findings_of(tmp_path, Case("runners", BEFORE, AFTER, CONSUMER))
            if f.rule_id in ("DRIFT010", "DRIFT011")]


def test_runners_call_the_function_they_are_given(tmp_path):
    src = CONSUMER["app/offload.py"]
    got = {(f.rule_id, f.consumer_site.line) for f in _findings(tmp_path)}
    expected = {
        ("DRIFT010", line_of(src, "group=None,")),  # to_thread's keywords bind to Engine.send
        ("DRIFT011", line_of(src, "Engine.send,")),  # ... and trainer_args is missing
        ("DRIFT011", line_of(src, "run_in_executor(None, load")),  # load now requires mode
        ("DRIFT011", line_of(src, "submit(load")),
        ("DRIFT010", line_of(src, "partial(Engine.send, packed=True)")),  # a partial can pass a gone keyword
        ("DRIFT011", line_of(src, "threading.Thread(target=load")),
    }
    assert got == expected, sorted(got)


def test_a_partial_never_misses_an_argument(tmp_path):
    src = CONSUMER["app/offload.py"]
    lines = {f.consumer_site.line for f in _findings(tmp_path) if f.rule_id == "DRIFT011"}
    assert line_of(src, "partial(load, strict=False)") not in lines
    assert line_of(src, "partial(Engine.send, packed=True)") not in lines


def test_the_findings_are_breaking_and_python_agrees(tmp_path):
    assert all(f.severity == Severity.BREAKING for f in _findings(tmp_path))
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    run = "__import__('asyncio').run({}())"
    assert raised_by([before, app], "app.offload", run.format("threaded")) is None
    assert raised_by([after, app], "app.offload", run.format("threaded")) == \
        "TypeError: Engine.send() got an unexpected keyword argument 'group'"
    assert raised_by([before, app], "app.offload", run.format("in_executor")) is None
    assert raised_by([after, app], "app.offload", run.format("in_executor")) == \
        "TypeError: load() missing 1 required positional argument: 'mode'"
    assert raised_by([after, app], "app.offload", "submitted()") == \
        "TypeError: load() missing 1 required positional argument: 'mode'"
    assert raised_by([after, app], "app.offload", "partly()(iter([1]), None)") == \
        "TypeError: Engine.send() got an unexpected keyword argument 'packed'"
    assert raised_by([after, app], "app.offload", "partly_fine()('p', 'm')") is None
    assert asyncio  # the consumer's own import, used through the synthetic code
