"""DRIFT061 where an attribute kept its name but changed its kind of container (synthetic pairs):

- `list[Req]` became `dict[str, Req]`: `for r in h.reqs: r.req_id` now iterates the keys, strings;
- `list[int]` became `tuple[list[int], ...]`: `st.block_ids.extend(...)` has no tuple method;
- one `CacheEngine` became `list[CacheEngine]`: `w.cache_engine.gpu_cache` reads a list;
- a `TypedDict` became a dataclass: `pos["offset"]` no longer indexes.

Each is held to what Python itself raises on the target, and each has the use that still works
beside it (`.values()`, a tuple's own `count`, a member the builtin has).
"""

from __future__ import annotations

import textwrap

from tests.rule_cases import Case, findings_of, line_of, raised_by

LIB_BEFORE = """
    from dataclasses import dataclass, field
    from typing import List, TypedDict


    @dataclass
    class Req:
        req_id: str


    class Holder:
        def __init__(self):
            self.reqs: List[Req] = []


    @dataclass
    class ReqState:
        block_ids: list[int]


    class CacheEngine:
        def __init__(self):
            self.gpu_cache = []


    class Worker:
        def __init__(self):
            self.cache_engine: CacheEngine = CacheEngine()


    class PlaceholderRange(TypedDict):
        offset: int
        length: int


    @dataclass
    class MMInput:
        pos: PlaceholderRange
    """
LIB_AFTER = """
    from dataclasses import dataclass, field
    from typing import List


    @dataclass
    class Req:
        req_id: str


    class Holder:
        def __init__(self):
            self.reqs: dict[str, Req] = {}


    @dataclass
    class ReqState:
        block_ids: tuple[list[int], ...]


    class CacheEngine:
        def __init__(self):
            self.gpu_cache = []


    class Worker:
        def __init__(self):
            self.cache_engine: List[CacheEngine] = [CacheEngine()]


    @dataclass(frozen=True)
    class PlaceholderRange:
        offset: int
        length: int


    @dataclass
    class MMInput:
        pos: PlaceholderRange
    """
MINE = """
    from gizmo.lib import Holder, MMInput, ReqState, Worker


    def find(h: Holder, name):
        for r in h.reqs:
            if r.req_id == name:
                return r
        return None


    def find_by_value(h: Holder, name):
        for r in h.reqs.values():
            if r.req_id == name:
                return r
        return None


    def grow(st: ReqState, new):
        st.block_ids.extend(new)


    def count(st: ReqState):
        return st.block_ids.count(1)


    def caches(w: Worker):
        return w.cache_engine.gpu_cache


    def offset(m: MMInput):
        return m.pos["offset"]


    def length(m: MMInput):
        return m.pos.length
    """


def _findings(tmp_path):
    case = Case("kinds", {"gizmo/lib.py": LIB_BEFORE}, {"gizmo/lib.py": LIB_AFTER},
                {"app/__init__.py": "", "app/mine.py": MINE})
    return [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT061"]


def _raised(tmp_path, expr, module="app.mine"):
    return raised_by([tmp_path / "after", tmp_path / "consumer"], module, expr)


def test_each_changed_kind_is_reported_where_python_raises(tmp_path):
    found = {f.consumer_site.line: f for f in _findings(tmp_path)}
    expected = {
        line_of(MINE, "if r.req_id == name", 1): (
            "find(__import__('gizmo.lib', fromlist=['x']).Holder() or _seed(), 'a')", "'str' object has no attribute 'req_id'"),
        line_of(MINE, "st.block_ids.extend"): (
            "grow(__import__('gizmo.lib', fromlist=['x']).ReqState(([1],)), [2])", "'tuple' object has no attribute 'extend'"),
        line_of(MINE, "w.cache_engine.gpu_cache"): (
            "caches(__import__('gizmo.lib', fromlist=['x']).Worker())", "'list' object has no attribute 'gpu_cache'"),
        line_of(MINE, 'm.pos["offset"]'): (
            "offset(__import__('gizmo.lib', fromlist=['x']).MMInput(__import__('gizmo.lib', fromlist=['x']).PlaceholderRange(1, 2)))",
            "'PlaceholderRange' object is not subscriptable"),
    }
    assert sorted(found) == sorted(expected)
    for line, (expr, message) in expected.items():
        f = found[line]
        assert f.severity.value == "breaking"
        assert message in f.predicted_failure, f.predicted_failure
        if "_seed" in expr:  # a holder with one request in it, as the running server has
            expr = ("find((lambda h: (h.reqs.__setitem__('a', __import__('gizmo.lib', fromlist=['x']).Req('a')), h)[1])"
                    "(__import__('gizmo.lib', fromlist=['x']).Holder()), 'a')")
        got = _raised(tmp_path, expr)
        assert got is not None and message in got, got


def test_what_still_works_on_the_new_kind_is_not_reported(tmp_path):
    lines = {f.consumer_site.line for f in _findings(tmp_path)}
    for needle in ("for r in h.reqs.values()", "if r.req_id == name", "st.block_ids.count", "m.pos.length"):
        nth = 2 if needle == "if r.req_id == name" else 1
        assert line_of(MINE, needle, nth) not in lines
    assert _raised(tmp_path, "count(__import__('gizmo.lib', fromlist=['x']).ReqState(([1],)))") is None


def test_a_member_the_builtin_has_is_no_break(tmp_path):
    """A class that became a `str` keeps the consumer's `.upper()`-like reads working only when
    the builtin has them: nothing is said for those."""
    before = LIB_BEFORE + textwrap.indent("\n\nclass Name:\n    def upper(self):\n        return 'X'\n\n\n"
                                          "class Tag:\n    def __init__(self):\n        self.name: Name = Name()\n", "    ")
    after = LIB_AFTER + textwrap.indent("\n\nclass Tag:\n    def __init__(self):\n        self.name: str = 'x'\n", "    ")
    mine = "from gizmo.lib import Tag\n\n\ndef shout(t: Tag):\n    return t.name.upper()\n"
    case = Case("builtin", {"gizmo/lib.py": before}, {"gizmo/lib.py": after}, {"app/__init__.py": "", "app/mine.py": mine})
    assert [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT061"] == []


def test_an_item_that_was_a_typed_dict_no_longer_indexes(tmp_path):
    """`ranges[i]["offset"]` where `list[PlaceholderRange]` held TypedDicts and now holds frozen
    dataclasses (vLLM 0.9's multimodal positions)."""
    before = LIB_BEFORE + textwrap.indent("\n\n@dataclass\nclass Request:\n    mm_positions: list[PlaceholderRange]\n", "    ")
    after = LIB_AFTER + textwrap.indent("\n\n@dataclass\nclass Request:\n    mm_positions: list[PlaceholderRange]\n", "    ")
    mine = ("from gizmo.lib import Request\n\n\ndef start(r: Request, i):\n    pos = r.mm_positions[i]\n"
            "    return pos[\"offset\"]\n")
    case = Case("item", {"gizmo/lib.py": before}, {"gizmo/lib.py": after}, {"app/__init__.py": "", "app/mine.py": mine})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT061"]
    assert [(f.consumer_site.line, f.predicted_failure) for f in found] == [
        (6, "TypeError: 'PlaceholderRange' object is not subscriptable")]
    assert found[0].title.startswith("An item of `mm_positions` is now one `PlaceholderRange`")
    got = _raised(tmp_path, "start(Request([__import__('gizmo.lib', fromlist=['x']).PlaceholderRange(1, 2)]), 0)")
    assert got == "TypeError: 'PlaceholderRange' object is not subscriptable"


ENGINE_BEFORE = """
    class Scheduler:
        def schedule(self):
            return []


    class LLMEngine:
        def __init__(self):
            self.scheduler = Scheduler()

        def step(self):
            return self.scheduler.schedule()
    """
ENGINE_AFTER = """
    class Scheduler:
        def schedule(self):
            return []


    class LLMEngine:
        def __init__(self, pipeline_parallel_size=1):
            self.scheduler = [Scheduler() for _ in range(pipeline_parallel_size)]

        def step(self, virtual_engine=0):
            return self.scheduler[virtual_engine].schedule()
    """
BACKEND = """
    from gizmo.engine import LLMEngine, Scheduler


    class MyScheduler(Scheduler):
        pass


    class Backend:
        def __init__(self):
            self.engine: LLMEngine = LLMEngine()
            self.engine.scheduler = MyScheduler()
    """


def test_storing_one_object_where_the_target_now_keeps_a_list(tmp_path):
    """Llumnix replaced `engine.scheduler` with its own scheduler; vLLM 0.6 keeps one per pipeline
    stage in a list and indexes it: the engine's next step fails."""
    case = Case("stored", {"gizmo/engine.py": ENGINE_BEFORE}, {"gizmo/engine.py": ENGINE_AFTER},
                {"app/__init__.py": "", "app/backend.py": BACKEND})
    found = [f for f in findings_of(tmp_path, case) if f.rule_id == "DRIFT061"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [
        (line_of(BACKEND, "self.engine.scheduler = MyScheduler()"), "breaking")]
    assert "keeps a `list` in `scheduler`, not one `Scheduler`" in found[0].title
    got = _raised(tmp_path, "(lambda b: b.engine.step())(Backend())", "app.backend")
    assert got == "TypeError: 'MyScheduler' object is not subscriptable"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.backend",
                     "(lambda b: b.engine.step())(Backend())") is None


def test_an_item_of_a_list_the_target_builds_by_comprehension_is_typed(tmp_path):
    """vLLM 0.6.3 keeps `self.scheduler = [Scheduler(...) for v in range(pp)]`; a subclass of the
    engine unpacking `self.scheduler[ve].schedule()` into two is held to `Scheduler.schedule`'s
    declared return, which grew a third value (functionary's copied engine step)."""
    before = ENGINE_AFTER.replace("            return []\n", "            return [], None\n", 1).replace(
        "        def schedule(self):\n", "        def schedule(self) -> tuple[list, object]:\n", 1)
    after = ENGINE_AFTER.replace("            return []\n", "            return [], None, False\n", 1).replace(
        "        def schedule(self):\n", "        def schedule(self) -> tuple[list, object, bool]:\n", 1)
    mine = """
        from gizmo.engine import LLMEngine


        class AsyncEngine(LLMEngine):
            def step_async(self, virtual_engine=0):
                seq_groups, outputs = self.scheduler[virtual_engine].schedule()
                return seq_groups
        """
    case = Case("comp", {"gizmo/engine.py": before}, {"gizmo/engine.py": after},
                {"app/__init__.py": "", "app/engine.py": mine})
    found = [f for f in findings_of(tmp_path, case) if f.consumer_site.line == line_of(mine, "self.scheduler[virtual_engine]")]
    assert found and all(f.severity.value == "breaking" for f in found), [(f.rule_id, f.title) for f in found]
    got = _raised(tmp_path, "AsyncEngine().step_async()", "app.engine")
    assert got == "ValueError: too many values to unpack (expected 2)"
