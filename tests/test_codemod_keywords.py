"""drop_keyword and add_keyword: before/after, idempotence, formatting and comments kept."""

from __future__ import annotations

import textwrap

import pytest

from drift.fixes.kinds import run_codemod


def run(src: str, name: str, line: int, **args):
    return run_codemod(textwrap.dedent(src), name, line=line, args=args)


MULTILINE = """\
cfg = build(  # the builder
    a=1,
    # keep me
    spec=spec,  # old keyword
    b=2,
)
"""


def test_drop_keyword_multiline_keeps_layout_and_comments():
    new, out = run(MULTILINE, "drop_keyword", 1, callee="build", keyword="spec")
    assert out.status == "applied"
    assert new == "cfg = build(  # the builder\n    a=1,\n    # keep me\n    b=2,\n)\n"
    again, out2 = run(new, "drop_keyword", 1, callee="build", keyword="spec")
    assert again == new and out2.status == "already"


@pytest.mark.parametrize(
    "before,after",
    [
        ("x = mod.f(1, spec=s)\n", "x = mod.f(1)\n"),
        ("x = f(spec=s, b=2)\n", "x = f(b=2)\n"),
        ("x = f(spec=s)\n", "x = f()\n"),
        ("x = f(\n    spec=s,\n)\n", "x = f()\n"),
        ("x = f(\n    a,\n    spec=s,\n)\n", "x = f(\n    a,\n)\n"),
        ("x = f(a, spec=s, **kw)\n", "x = f(a, **kw)\n"),
    ],
)
def test_drop_keyword_shapes(before, after):
    new, out = run(before, "drop_keyword", 1, callee="f", keyword="spec")
    assert (new, out.status) == (after, "applied")


def test_drop_keyword_matches_a_line_inside_the_call_span():
    new, out = run(MULTILINE, "drop_keyword", 4, callee="build", keyword="spec")
    assert out.status == "applied" and "spec" not in new


def test_drop_keyword_wrong_site_is_not_found():
    new, out = run(MULTILINE, "drop_keyword", 1, callee="other", keyword="spec")
    assert out.status == "not_found" and "other()" in out.reason and new == MULTILINE
    _, out = run("x = 1\n\ny = build(spec=1)\n", "drop_keyword", 1, callee="build", keyword="spec")
    assert out.status == "not_found"


def test_drop_keyword_picks_the_call_with_the_callee_among_nested_calls():
    src = "x = build(inner=build(spec=1), spec=2)\n"
    new, out = run(src, "drop_keyword", 1, callee="build", keyword="spec")
    assert out.status == "applied"
    assert new == "x = build(inner=build(spec=1))\n"


def test_add_keyword_multiline_trailing_comma():
    src = "s = Scheduler(\n    vllm_config=c,  # main config\n    kv=k,\n)\n"
    new, out = run(src, "add_keyword", 1, callee="Scheduler", keyword="block_size", value="c.cache.block_size")
    assert out.status == "applied"
    assert new == "s = Scheduler(\n    vllm_config=c,  # main config\n    kv=k,\n    block_size=c.cache.block_size,\n)\n"
    again, out2 = run(new, "add_keyword", 1, callee="Scheduler", keyword="block_size", value="c.cache.block_size")
    assert again == new and out2.status == "already"


@pytest.mark.parametrize(
    "before,after",
    [
        ("f()\n", "f(k=1)\n"),
        ("f(a)\n", "f(a, k=1)\n"),
        ("m.f(a, b=2)\n", "m.f(a, b=2, k=1)\n"),
        ("f(a, **kw)\n", "f(a, k=1, **kw)\n"),
        ("f(**kw)\n", "f(k=1, **kw)\n"),
        ("f(\n    a\n)\n", "f(\n    a,\n    k=1\n)\n"),
        ("f(\n    a,\n)\n", "f(\n    a,\n    k=1,\n)\n"),
        ("f(a,\n  b)\n", "f(a,\n  b,\n  k=1)\n"),
        ("f(\n    a,\n    **kw,\n)\n", "f(\n    a,\n    k=1,\n    **kw,\n)\n"),
    ],
)
def test_add_keyword_shapes(before, after):
    new, out = run(before, "add_keyword", 1, callee="f", keyword="k", value="1")
    assert (new, out.status) == (after, "applied")


HELPER = '''
def _hasher(cfg):
    """Added by drift."""
    return make(cfg.block_size, by_name(cfg.algo))
'''

MODULE = '''\
"""Doc."""

import os
from pkg.utils import (
    alpha,
    beta,
)

# Constants
N = 1


def go(cfg):
    return Request(
        a=1,  # first
    )
'''


def test_add_keyword_with_imports_and_helper_is_idempotent():
    args = dict(
        callee="Request",
        keyword="block_hasher",
        value="_hasher(cfg)",
        imports=[["pkg.utils", "make"], ["pkg.hashing", "by_name"]],
        helper_name="_hasher",
        helper_src=HELPER,
    )
    new, out = run_codemod(MODULE, "add_keyword", line=14, args=args)
    assert out.status == "applied"
    compile(new, "m.py", "exec")
    assert "    beta,\n    make,\n)" in new
    assert "from pkg.hashing import by_name" in new
    assert new.count("def _hasher(cfg):") == 1
    assert new.index("from pkg.hashing") < new.index("def _hasher") < new.index("# Constants")
    assert "a=1,  # first\n        block_hasher=_hasher(cfg),\n    )" in new
    assert '"""Added by drift."""' in new and "# Constants\nN = 1" in new
    # Re-located after the shift, a second run changes nothing.
    line = next(i for i, t in enumerate(new.splitlines(), 1) if "return Request(" in t)
    again, out2 = run_codemod(new, "add_keyword", line=line, args=args)
    assert again == new and out2.status == "already"


def test_add_keyword_rejects_bad_value_without_raising():
    new, out = run("f(a)\n", "add_keyword", 1, callee="f", keyword="k", value="1 +")
    assert out.status == "not_found" and "bad arguments" in out.reason and new == "f(a)\n"


def test_drop_last_keyword_keeps_the_previous_arguments_comment():
    src = "f(\n    a=1,  # first\n    spec=s,  # gone\n)\n"
    new, out = run(src, "drop_keyword", 1, callee="f", keyword="spec")
    assert new == "f(\n    a=1,  # first\n)\n"


def test_add_keyword_after_a_commented_last_argument():
    src = "f(\n    a=1,  # first\n)\n"
    new, _ = run(src, "add_keyword", 1, callee="f", keyword="k", value="2")
    assert new == "f(\n    a=1,  # first\n    k=2,\n)\n"


@pytest.mark.parametrize(
    "before,after",
    [
        ("f(\n    a,\n    spec=s\n)\n", "f(\n    a\n)\n"),
        ("f(a,\n  spec=s)\n", "f(a)\n"),
    ],
)
def test_drop_last_keyword_without_trailing_comma(before, after):
    new, _ = run(before, "drop_keyword", 1, callee="f", keyword="spec")
    assert new == after


def test_add_keyword_after_commented_last_argument_without_trailing_comma():
    new, _ = run("f(\n    a  # note\n)\n", "add_keyword", 1, callee="f", keyword="k", value="1")
    assert new == "f(\n    a,  # note\n    k=1\n)\n"


GENERATOR = '''\
"""Doc."""

from pkg.utils import make


class Generator:
    def __init__(self, cfg):
        self.cfg = cfg
        self.ready = True

    def step(self):
        return Request(
            a=1,
        )


def loose(cfg):
    return Request(a=1)
'''

CACHED = "def _hasher(cfg):\n    return make(cfg)  # cached\n"
PLAIN = "def _hasher(cfg):\n    return make(cfg)\n"


def _init_args(**extra):
    return dict(callee="Request", keyword="block_hasher", value="_hasher(self.cfg)",
                imports=[["pkg.utils", "make"]], helper_name="_hasher", helper_src=CACHED,
                init_attr="_drift_hasher", init_helper_src=PLAIN, **extra)


def test_add_keyword_builds_a_per_object_value_once_in_init():
    line = next(i for i, t in enumerate(GENERATOR.splitlines(), 1) if "return Request(" in t)
    new, out = run_codemod(GENERATOR, "add_keyword", line=line, args=_init_args())
    assert out.status == "applied"
    compile(new, "m.py", "exec")
    assert "        self.ready = True\n        self._drift_hasher = _hasher(self.cfg)\n" in new
    assert "a=1,\n            block_hasher=self._drift_hasher,\n        )" in new
    assert new.count("def _hasher(cfg):") == 1 and "# cached" not in new  # built once: no cache needed
    again_line = next(i for i, t in enumerate(new.splitlines(), 1) if "return Request(" in t)
    again, out2 = run_codemod(new, "add_keyword", line=again_line, args=_init_args())
    assert again == new and out2.status == "already"


def test_add_keyword_outside_a_class_or_without_the_attribute_keeps_the_cached_helper():
    line = next(i for i, t in enumerate(GENERATOR.splitlines(), 1) if "return Request(a=1)" in t)
    args = _init_args()
    args["value"] = "_hasher(cfg)"
    new, out = run_codemod(GENERATOR, "add_keyword", line=line, args=args)
    assert out.status == "applied" and "Request(a=1, block_hasher=_hasher(cfg))" in new and "# cached" in new
    assert "self._drift_hasher" not in new
    # a method whose class's __init__ never sets what the value reads: passed as given
    line = next(i for i, t in enumerate(GENERATOR.splitlines(), 1) if "return Request(" in t)
    args = _init_args()
    args["value"] = "_hasher(self.other)"
    new, out = run_codemod(GENERATOR, "add_keyword", line=line, args=args)
    assert "block_hasher=_hasher(self.other)," in new and "self._drift_hasher" not in new and "# cached" in new
