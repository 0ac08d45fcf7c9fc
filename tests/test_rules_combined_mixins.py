"""A consumer mixin combined with a target class is checked as part of that class.

`class Chat(MyMixin, ChatServing)` (at module level, or made inside a function beside the mixin)
puts the mixin ahead of the target class in the MRO: the mixin's methods override the target's,
and `super().m(...)` inside the mixin reaches the target's `m`. So the target's new calls of the
hook hold the mixin's override to their contract (DRIFT070), and the mixin's `super()` calls are
checked against the target's method (DRIFT012 arity, DRIFT010 keywords), exactly as for a method
written in a subclass. Each predicted failure is compared with what Python raises.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/serving.py": """
    class Serving:
        async def _preprocess(self, request, messages, template, add_prompt=True):
            return request, [messages], [template]

        async def create(self, request):
            return await self._preprocess(request, request, None)


    class ChatServing(Serving):
        def __init__(self, models):
            self.models = models
    """}
AFTER = {"gizmo/serving.py": """
    class Serving:
        async def _preprocess(self, request, messages, *, default_template=None):
            return [messages], [request]

        async def create(self, request):
            return await self._preprocess(request, request, default_template="x")


    class ChatServing(Serving):
        def __init__(self, models):
            self.models = models
    """}
SERVER = """
    from gizmo.serving import ChatServing


    class TopMixin:
        async def _preprocess(self, request, messages, template, add_prompt=True):
            res = await super()._preprocess(request, messages, template, add_prompt)
            return res


    class TopChat(TopMixin, ChatServing):
        pass


    def build(models):
        class LocalMixin:
            async def _preprocess(self, request, messages, template, add_prompt=True):
                return await super()._preprocess(request, messages, template, add_prompt=add_prompt)

        class LocalChat(LocalMixin, ChatServing):
            pass

        return LocalChat(models), TopChat(models)
    """
# the mixin after the target class: the target's method comes first in the MRO, no override
BEHIND = """
    from gizmo.serving import ChatServing


    class Helper:
        async def _preprocess(self, request, messages, template, add_prompt=True):
            return None


    class Chat(ChatServing, Helper):
        pass
    """


def _run(module: str, expr: str, roots) -> str | None:
    return raised_by(roots, module, f"__import__('asyncio').run({expr})")


def test_a_mixin_combined_with_a_target_class_is_held_to_its_contract(tmp_path):
    found = findings_of(tmp_path, Case("mixins", BEFORE, AFTER, {"app/server.py": SERVER}))
    top_def = line_of(SERVER, "async def _preprocess", 1)
    local_def = line_of(SERVER, "async def _preprocess", 2)
    top_super = line_of(SERVER, "super()._preprocess", 1)
    local_super = line_of(SERVER, "super()._preprocess", 2)
    assert_findings(found, [("DRIFT070", top_def), ("DRIFT070", local_def), ("DRIFT012", top_super),
                            ("DRIFT012", local_super), ("DRIFT010", local_super)])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    # the target's own call of the hook, on the combined class: the mixin's override is what runs
    raised = _run("app.server", "build(1)[1].create('r')", roots)
    assert raised == "TypeError: TopMixin._preprocess() got an unexpected keyword argument 'default_template'"
    raised = _run("app.server", "build(1)[0]._preprocess('r', 'm', 't')", roots)
    assert raised == "TypeError: Serving._preprocess() got an unexpected keyword argument 'add_prompt'"
    raised = _run("app.server", "build(1)[1]._preprocess('r', 'm', 't')", roots)
    assert raised == "TypeError: Serving._preprocess() takes 3 positional arguments but 5 were given"
    roots = [tmp_path / "before", tmp_path / "consumer"]
    assert _run("app.server", "build(1)[1].create('r')", roots) is None


def test_a_mixin_listed_after_the_target_class_overrides_nothing(tmp_path):
    found = findings_of(tmp_path, Case("behind", BEFORE, AFTER, {"app/server.py": BEHIND}))
    assert_findings(found, [])


# a consumer class with a base of its own that this side cannot resolve (a target class gone from
# it) is no mixin: that base may define what its methods override
GONE_BASE = """
    from gizmo.serving import ChatServing
    from gizmo.legacy import LegacyServing


    class Bridge(LegacyServing):
        async def _preprocess(self, request, messages, template, add_prompt=True):
            return None


    class Chat(Bridge, ChatServing):
        pass
    """


def test_a_class_with_a_base_of_its_own_is_no_mixin(tmp_path):
    before = {**BEFORE, "gizmo/legacy.py": """
        class LegacyServing:
            async def _preprocess(self, request, messages, template, add_prompt=True):
                return None
        """}
    found = findings_of(tmp_path, Case("gone-base", before, AFTER, {"app/server.py": GONE_BASE}))
    # the import of the gone module is the break; the class is not judged against ChatServing
    assert [f.rule_id for f in found if f.rule_id == "DRIFT070"] == []
    assert any(f.rule_id == "DRIFT001" for f in found)
