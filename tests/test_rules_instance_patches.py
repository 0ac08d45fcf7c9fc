"""A function bound to one object and stored on it replaces that object's method.

`m.forward = fn.__get__(m, Block)`, `m.forward = types.MethodType(fn, m)` and
`m.forward = functools.partial(fn, m)` make the target's own `m.forward(...)` calls call `fn`, with
`m` as its first argument, exactly as `Block.forward = fn` does for every object. So `fn` is held to
how the target now calls the method (DRIFT070), and its `self.<attr>` reads to what the target's
class still sets (DRIFT060). The class is `__get__`'s own argument, or the object's type from an
`isinstance` narrowing. A function bound to another object than the one it is stored on, or a store
on an object of no target class, is no patch.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/blocks.py": """
    class Block:
        def __init__(self):
            self.scale = 2

        def forward(self, x, cache):
            return x * self.scale


    class Stack:
        def __init__(self):
            self.blocks = [Block(), Block()]

        def run(self, x):
            for b in self.blocks:
                x = b.forward(x, None)
            return x
    """}
AFTER = {"gizmo/blocks.py": """
    class Block:
        def __init__(self):
            self.factor = 2

        def forward(self, x):
            return x * self.factor


    class Stack:
        def __init__(self):
            self.blocks = [Block(), Block()]

        def run(self, x):
            for b in self.blocks:
                x = b.forward(x)
            return x
    """}
BOUND = """
    import functools
    import types

    from gizmo.blocks import Block, Stack


    def fast_forward(self, x, cache):
        return x * self.scale


    def typed_forward(self, x, cache):
        return x + self.scale


    def part_forward(self, x, cache):
        return x - self.scale


    def install(stack):
        for m in stack.blocks:
            if isinstance(m, Block):
                m.forward = fast_forward.__get__(m, Block)
        return stack


    def install_typed(stack):
        for m in stack.blocks:
            if isinstance(m, Block):
                m.forward = types.MethodType(typed_forward, m)


    def install_partial(block):
        if isinstance(block, Block):
            setattr(block, "forward", functools.partial(part_forward, block))
    """
# bound to another object than the one it is stored on; stored on an object of no target class
NOT_PATCHES = """
    import types

    from gizmo.blocks import Block


    def fast_forward(self, x, cache):
        return x * self.scale


    class Mine:
        pass


    def install(first, second):
        if isinstance(first, Block) and isinstance(second, Block):
            first.forward = fast_forward.__get__(second, Block)


    def install_own(obj):
        if isinstance(obj, Mine):
            obj.forward = types.MethodType(fast_forward, obj)
    """


def test_a_function_bound_to_a_target_object_is_checked_as_a_replacement(tmp_path):
    found = findings_of(tmp_path, Case("instance-patch", BEFORE, AFTER, {"app/patches.py": BOUND}))
    assert_findings(found, [("DRIFT070", line_of(BOUND, "def fast_forward")),
                            ("DRIFT070", line_of(BOUND, "def typed_forward")),
                            ("DRIFT070", line_of(BOUND, "def part_forward")),
                            ("DRIFT060", line_of(BOUND, "return x * self.scale")),
                            ("DRIFT060", line_of(BOUND, "return x + self.scale")),
                            ("DRIFT060", line_of(BOUND, "return x - self.scale"))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.patches", "install(Stack()).run(1)") == \
        "TypeError: fast_forward() missing 1 required positional argument: 'cache'"
    before = [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(before, "app.patches", "install(Stack()).run(1)") is None


def test_a_function_bound_to_another_object_or_a_non_target_object_is_no_patch(tmp_path):
    found = findings_of(tmp_path, Case("instance-other", BEFORE, AFTER, {"app/patches.py": NOT_PATCHES}))
    assert [f for f in found if f.rule_id == "DRIFT070"] == []
    # `fast_forward.__get__(second, Block)` still makes the function a method of a Block (whichever
    # object holds it): its `self.scale` is a Block's, which the target's no longer has
    assert [(f.rule_id, f.consumer_site.line) for f in found if f.rule_id == "DRIFT060"] == [
        ("DRIFT060", line_of(NOT_PATCHES, "return x * self.scale"))]
