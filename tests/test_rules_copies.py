"""DRIFT118 (synthetic before/after trees): a consumer function that copies a target function's body
lacks a step the target's own version now takes. A verbatim copy, an edited copy, a copy that
differs only cosmetically, a target change that is only cosmetic, and a function that is no copy."""

from __future__ import annotations

import ast
from pathlib import Path

from drift.probes.copies import statement_shape
from tests.rule_cases import Case, assert_findings, findings_of, line_of, only

STATE_BEFORE = """
    _ready = None


    def ready():
        if _ready is None:
            raise RuntimeError("set up first")
        return _ready
    """
STATE = """
    _ready = None


    def prepare(size):
        global _ready
        _ready = size


    def ready():
        if _ready is None:
            raise RuntimeError("prepare() first")
        return _ready
    """
RUNNER_BEFORE = """
    class Runner:
        def setup(self, config):
            self.size = config.size
            self.blocks = config.blocks
            self.cache = [0] * self.size
            self.groups = config.groups
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
RUNNER_AFTER = """
    from gizmo.state import prepare


    class Runner:
        def setup(self, config):
            self.size = config.size
            self.blocks = config.blocks
            self.cache = [0] * self.size
            self.groups = config.groups
            prepare(self.size)
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
COPY = """
    import gizmo.runner


    class MyRunner:
        def setup(self, config):
            self.size = config.size
            self.blocks = config.blocks
            self.cache = [0] * self.size
            self.groups = config.groups
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
EDITED = """
    import gizmo.runner


    class MyRunner:
        def setup(self, config):
            self.size = config.size
            self.blocks = config.blocks
            self.cache = [0] * self.size
            self.groups = config.groups
            self.extra = config.size * 2
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
COSMETIC = """
    import gizmo.runner


    class MyRunner:
        def setup(self, cfg):
            \"\"\"Our copy of the runner's setup.\"\"\"
            self.size = cfg.size
            self.blocks = cfg.blocks
            self.cache = [0] * self.size  # one slot a block
            self.groups = cfg.groups
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
UP_TO_DATE = """
    from gizmo.state import prepare


    class MyRunner:
        def setup(self, config):
            self.size = config.size
            self.blocks = config.blocks
            self.cache = [0] * self.size
            self.groups = config.groups
            prepare(self.size)
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    """
NOT_A_COPY = """
    import gizmo.runner


    class MyRunner:
        def setup(self, config):
            width = config.width
            depth = config.depth
            self.table = {}
            for i in range(width):
                self.table[i] = depth
            return self.table
    """
RUNNER_RENAMED_LOCALS = """
    class Runner:
        def setup(self, cfg):
            self.size = cfg.size
            self.blocks = cfg.blocks
            self.cache = [0] * self.size
            self.groups = cfg.groups
            self.bind(self.cache)
            return self.cache

        def bind(self, cache):
            self.bound = cache
    \"\"\"A note the target added.\"\"\"
    """


def _case(consumer: str, after: str = RUNNER_AFTER, state_before: str = STATE_BEFORE) -> Case:
    return Case("copies", {"gizmo/state.py": state_before, "gizmo/runner.py": RUNNER_BEFORE},
                {"gizmo/state.py": STATE, "gizmo/runner.py": after}, {"app/runner.py": consumer})


def test_a_verbatim_copy_lacking_the_targets_new_initializer_call_is_reported_at_its_def(tmp_path: Path):
    found = findings_of(tmp_path, _case(COPY))
    assert_findings(found, [("DRIFT118", line_of(COPY, "def setup"))])
    f = only(found, "DRIFT118")
    assert "`prepare()`" in f.title and f.severity.value == "risky"
    assert f.target_evidence[0].line == line_of(RUNNER_AFTER, "prepare(self.size)")


def test_an_edited_copy_is_reported_where_the_step_belongs(tmp_path: Path):
    found = findings_of(tmp_path, _case(EDITED))
    # the baseline's statement the new step follows, kept in the copy
    assert_findings(found, [("DRIFT118", line_of(EDITED, "self.groups = config.groups"))])


def test_a_copy_differing_only_cosmetically_is_still_a_copy(tmp_path: Path):
    found = findings_of(tmp_path, _case(COSMETIC))
    assert_findings(found, [("DRIFT118", line_of(COSMETIC, "def setup"))])


def test_a_copy_that_already_takes_the_step_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path, _case(UP_TO_DATE)), [])


def test_a_function_of_the_same_name_that_is_no_copy_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path, _case(NOT_A_COPY)), [])


def test_a_target_change_that_is_only_cosmetic_is_silent(tmp_path: Path):
    assert_findings(findings_of(tmp_path, _case(COPY, after=RUNNER_RENAMED_LOCALS)), [])


def test_the_shape_blanks_locals_and_messages_but_keeps_keys_and_called_names():
    one = ast.parse("def f(a):\n    x = a.get('key')\n    log('one message')\n    return g(x)\n"
                    "    y = 1\n").body[0]
    two = ast.parse("def f(b):\n    z = b.get('key')\n    log('another message')\n    return g(z)\n"
                    "    y = 1\n").body[0]
    other_key = ast.parse("def f(a):\n    x = a.get('other')\n    log('one message')\n    return g(x)\n"
                          "    y = 1\n").body[0]
    assert [r[0] for r in statement_shape(one)] == [r[0] for r in statement_shape(two)]
    assert statement_shape(one)[0][0] != statement_shape(other_key)[0][0]
    assert statement_shape(one)[2][2] == ["g"]
    assert statement_shape(ast.parse("def f():\n    return 1\n").body[0]) is None


def test_an_override_copying_its_base_method_is_a_copy_too(tmp_path: Path):
    override = COPY.replace("import gizmo.runner", "from gizmo.runner import Runner").replace(
        "class MyRunner:", "class MyRunner(Runner):")
    found = findings_of(tmp_path, _case(override))
    assert_findings(found, [("DRIFT118", line_of(override, "def setup"))])


def test_a_new_call_of_a_helper_the_baseline_already_had_is_no_new_step(tmp_path: Path):
    """The target's version now calls `prepare`, but the baseline defined it too: a rewritten
    line calling an old helper (`torch.empty`, `round_up`) is not what a copy must take."""
    assert_findings(findings_of(tmp_path, _case(COPY, state_before=STATE)), [])
