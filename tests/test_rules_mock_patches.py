"""`unittest.mock.patch` installs a replacement on a target class as assignment does.

`patch("gizmo.quant.Method.process", fn).start()` and `mock.patch.object(Method, "process", fn)`
put `fn` on the target's class exactly as `Method.process = fn`: the target's callers call `fn`,
and `fn`'s `self` is a `Method`. So the replacement is held to how the target now calls the
method (DRIFT070) and its `self.<attr>` reads to what the target's `Method` still sets (DRIFT060),
as for a replacement installed by assignment. The predicted failures are Python's own.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/quant.py": """
    class Method:
        def __init__(self, cfg):
            self.cfg = cfg
            self.use_fast = True

        def process(self, layer):
            layer.scale = 1


    class Layer:
        def __init__(self):
            self.method = Method(None)

        def load(self):
            self.method.process(self)
    """}
AFTER = {"gizmo/quant.py": """
    class Method:
        def __init__(self, cfg):
            self.cfg = cfg

        def process(self, layer, strict):
            layer.scale = 1


    class Layer:
        def __init__(self):
            self.method = Method(None)

        def load(self):
            self.method.process(self, True)
    """}
PATCHES = """
    from unittest import mock
    from unittest.mock import patch

    from gizmo.quant import Layer, Method


    def process(self, layer):
        if self.use_fast:
            layer.scale = 2


    def process_too(self, layer):
        return self.use_fast


    def apply():
        patcher = patch("gizmo.quant.Method.process", process)
        patcher.start()
        with mock.patch.object(Method, "process", process_too):
            return Layer()
    """
# a patch of something else than the target, and a patch with no replacement (a MagicMock): nothing
OTHER = """
    from unittest.mock import patch


    def process(self, layer):
        return self.use_fast


    def apply():
        patch("collections.OrderedDict.process", process).start()
        patch("gizmo.quant.Method.process").start()
    """


def test_a_mock_patch_of_a_target_method_is_checked_as_a_replacement(tmp_path):
    found = findings_of(tmp_path, Case("mock-patch", BEFORE, AFTER, {"app/patches.py": PATCHES}))
    assert_findings(found, [("DRIFT070", line_of(PATCHES, "def process(")), ("DRIFT070", line_of(PATCHES, "def process_too")),
                            ("DRIFT060", line_of(PATCHES, "if self.use_fast")),
                            ("DRIFT060", line_of(PATCHES, "return self.use_fast"))])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.patches", "apply().load()") == \
        "TypeError: process() takes 2 positional arguments but 3 were given"
    assert raised_by(roots, "app.patches", "process(Method(None), Layer())") == \
        "AttributeError: 'Method' object has no attribute 'use_fast'"
    roots = [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(roots, "app.patches", "apply().load()") is None


def test_a_patch_of_no_target_name_or_with_no_replacement_is_no_installation(tmp_path):
    found = findings_of(tmp_path, Case("mock-other", BEFORE, AFTER, {"app/patches.py": OTHER}))
    assert_findings(found, [])


# the target written into a local first, the local reassigned for a second patch below
LOCAL = """
    from unittest.mock import patch


    def process(self, layer):
        return self.use_fast


    def helper(x):
        return x


    def apply():
        target = "gizmo.quant.Method.process"
        patch(target, process).start()
        target = "gizmo.quant.helper"
        patch(target, helper).start()
    """


def test_a_patch_target_held_in_a_local_is_the_literal_last_assigned_above(tmp_path):
    found = findings_of(tmp_path, Case("mock-local", BEFORE, AFTER, {"app/patches.py": LOCAL}))
    assert_findings(found, [("DRIFT070", line_of(LOCAL, "def process(")),
                            ("DRIFT060", line_of(LOCAL, "return self.use_fast"))])
    roots = [tmp_path / "after", tmp_path / "consumer"]
    first = "patch('gizmo.quant.Method.process', process).start() and __import__('gizmo.quant').quant.Layer().load()"
    assert raised_by(roots, "app.patches", first) == "TypeError: process() takes 2 positional arguments but 3 were given"


# the replacement chosen by the vLLM version: a conditional expression, or a local set per branch
JOINED = """
    from unittest.mock import patch

    import gizmo


    def process(self, layer):
        return self.use_fast


    def process_old(self, layer):
        return self.use_fast


    def apply():
        target = "gizmo.quant.Method.process"
        patch(target, process if gizmo.NEW else process_old).start()
    """
BRANCHED = """
    from unittest.mock import patch

    import gizmo


    def process(self, layer):
        return self.use_fast


    def process_old(self, layer):
        return self.use_fast


    def apply():
        if gizmo.NEW:
            chosen = process
        else:
            chosen = process_old
        patch("gizmo.quant.Method.process", chosen).start()
    """


def test_each_replacement_a_patch_may_install_is_bound_over_the_target_method(tmp_path):
    """`patch(t, a if c else b)` and `patch(t, fn)` with fn set in an if/else: either function may
    be the one installed, so each is held to the target's `Method` (its `self.use_fast` is gone)."""
    for name, src in (("ifexp", JOINED), ("branches", BRANCHED)):
        found = findings_of(tmp_path / name, Case("mock-" + name, BEFORE, AFTER, {"app/patches.py": src}))
        assert_findings(found, [("DRIFT070", line_of(src, "def process(")), ("DRIFT070", line_of(src, "def process_old")),
                                ("DRIFT060", line_of(src, "return self.use_fast", 1)),
                                ("DRIFT060", line_of(src, "return self.use_fast", 2))])
    # one function alone, not chosen by a join, stays the only one bound
    alone = JOINED.replace("process if gizmo.NEW else process_old", "process")
    found = findings_of(tmp_path / "alone", Case("mock-alone", BEFORE, AFTER, {"app/patches.py": alone}))
    assert_findings(found, [("DRIFT070", line_of(alone, "def process(")),
                            ("DRIFT060", line_of(alone, "return self.use_fast", 1))])
