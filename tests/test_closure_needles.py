"""The host's closure asks drift's searches by the same patterns as drift.model.index.

drift looks a host's answer up by the needle's pattern text (drift/model/host_modules.py), so a
pattern the probe writes differently from drift.model.index is a prediction wasted: the search is
asked again in a later exchange. And the names it predicts are the ones the rules search for:
the consumer's package (DRIFT074), the classes it patches (DRIFT076), the methods of classes
linked to the target through its own classes (DRIFT070), dunders and missing-name parts too.
"""

from __future__ import annotations

import pytest

from drift.model.index import call_of, def_of, defines, word
from drift.probes import closure

NAMES = ["forward", "__init__", "__post_init__", "get_kv_cache_shape", "x1", "ModelConfig", "_sample"]


@pytest.mark.parametrize("name", NAMES)
def test_closure_patterns_are_drift_index_patterns(name):
    for ours, theirs in ((closure.word, word), (closure.call_of, call_of), (closure.def_of, def_of),
                         (closure.defines, defines)):
        literal, pattern = ours(name)
        needle = theirs(name)
        assert literal.encode() == needle.literal
        assert pattern == needle.pattern.pattern.decode()


def _usage():
    return [{
        "module": "app.patches",
        "classes": {
            "Base": {"bases": [["sym:vllm.engine.EngineCore"]], "methods": {"step": {}}},
            "Mine": {"bases": [["sym:app.patches.Base"]], "methods": {"run_busy_loop": {}}},
            "Patch": {"bases": [["sym:app.patching.ArcticPatch"]], "generic": [["sym:vllm.config.ModelConfig"]],
                      "methods": {"__post_init__": {}}},
            "Free": {"bases": [["sym:object"]], "methods": {"unrelated": {}}},
        },
        "patches": [{"path": ["sym:vllm.v1.engine.async_llm", ".StatLoggerManager"], "name": "__init__"}],
    }]


def test_closure_predicts_the_rules_words():
    _dotted, names = closure.usage_names(_usage(), ["vllm"])
    needles = closure.needles_for(names)
    words = {lit for lit, pat in needles.values() if pat == closure.word(lit)[1]}
    assert {"app", "ModelConfig", "StatLoggerManager", "EngineCore"} <= words
    assert {"step", "run_busy_loop", "__post_init__", "__init__"} <= words  # through Base, generic, patch
    assert "unrelated" not in words
    defs = {lit for lit, pat in needles.values() if pat == closure.def_of(lit)[1]}
    assert "__post_init__" in defs


def _answers(texts, order, needles, tokens):
    holding = {}
    return {k: closure.answer(n, texts, order, holding, tokens) for k, n in sorted(needles.items())}


def test_the_identifier_index_gives_the_scans_answers_on_tricky_text():
    texts = {
        "m.a": b"x = 1abc\nyabc = 2\nabc_ = 3\n",  # the literal inside other identifiers only
        "m.b": b"def  abc(self):\n    pass\n",
        "m.c": b"obj.abc (1)  # abc\n",
        "m.d": "caf\u00e9 = abc\n".encode(),  # non-ASCII beside the name
        "m.e": b"async def\\\n abc(): ...\n",
        "m.f": b"s = 'abc'\n",
        "m.g": b"block_pool.abc\nfoo.abc = 1\n",
        "m.h": b"undef abc\nxdef  abc\ndef\n\nabcd = 0\n",  # `def` inside a word, or before another name
    }
    order = sorted(texts)
    texts = {n: closure.search_text(t) for n, t in texts.items()}
    needles = {}
    for name in ("abc", "yabc", "abc_", "def", "block_pool", "caf", "pass"):
        for kind in (closure.word, closure.call_of, closure.def_of):
            lit, pat = kind(name)
            needles[pat] = (lit, pat)
    # a needle drift built otherwise (DRIFT075's receiver reads): scanned, never from the index
    rx = r"(?<![A-Za-z0-9_])(?:block_pool)\.abc(?![A-Za-z0-9_])(?!\s*=[^=])"
    needles[rx] = ("abc", rx)
    needles["ab"] = ("ab", "ab")  # a literal that is no whole identifier anywhere
    tokens = closure.token_index(texts, order)
    with_index = _answers(texts, order, needles, tokens)
    assert with_index == _answers(texts, order, needles, None)
    # the index the probe builds: only the literals of its bounded needles
    asked = closure.token_index(texts, order, closure.bounded_literals(needles.values()))
    assert sorted(asked.only) == sorted({lit.encode() for lit, pat in needles.values() if pat != rx and lit != "ab"})
    assert _answers(texts, order, needles, asked) == with_index
    assert with_index[closure.word("abc")[1]] == ["m.b", "m.c", "m.d", "m.e", "m.f", "m.g", "m.h"]
    assert with_index[closure.def_of("abc")[1]] == ["m.b", "m.e"]
    assert with_index[rx] == ["m.g"] and with_index["ab"] == order


@pytest.mark.corpus
def test_the_identifier_index_gives_the_scans_answers_over_a_release(corpus_src):
    """Every needle of a few hundred names of vLLM 0.16.0, both ways: the same modules."""
    from drift.probes import hostdemand

    tree = hostdemand._Tree(str(corpus_src("vllm==0.16.0")), "vllm", None, 8 << 20)
    texts, order = tree.texts(), list(tree.rows)
    tokens = closure.token_index(texts, order)
    names = sorted({t.decode() for t in tokens if len(t) > 1})[::120] + ["__init__", "forward", "self"]
    needles = {}
    for name in names:
        for kind in (closure.word, closure.call_of, closure.def_of):
            lit, pat = kind(name)
            needles[pat] = (lit, pat)
    assert len(needles) > 1000
    scanned = _answers(texts, order, needles, None)
    assert _answers(texts, order, needles, tokens) == scanned
    some = dict(list(needles.items())[::7])  # an index of some literals: the others are scanned
    asked = closure.token_index(texts, order, closure.bounded_literals(some.values()))
    assert _answers(texts, order, needles, asked) == scanned


def _reach(sources: dict[str, str]) -> closure.Reach:
    from drift.probes.ast_facts import module_facts

    def parse(names):
        return {n: module_facts(sources[n].encode(), module=n, sha256=None,
                                path=n.replace(".", "/") + ("/__init__.py" if n == "pkg" else ".py"))
                for n in names if n in sources}

    return closure.Reach("pkg", set(sources), parse)


def test_a_star_route_that_misses_is_no_miss_when_another_route_defines_the_name():
    """`pkg` star-imports `a` and `b`; `f` is defined in `a` only, `g` nowhere. drift's lookup
    finds `pkg.f` through `a` (so never searches for a move of `f`), and misses `pkg.g` on
    every route (so it may search for `g` and the parts of the routes it tried)."""
    reach = _reach({"pkg": "from .a import *\nfrom .b import *\n", "pkg.a": "def f():\n    pass\n",
                    "pkg.b": "def h():\n    pass\n"})
    reach.run({"pkg.f", "pkg.g"})
    assert reach.unresolved == {"pkg.a.g", "pkg.b.g"}
    # a name missing behind a plain import is a miss whatever else the module has
    reach = _reach({"pkg": "from .a import f\nfrom .b import *\n", "pkg.a": "x = 1\n", "pkg.b": "def f():\n    pass\n"})
    reach.run({"pkg.f"})
    assert reach.unresolved == {"pkg.a.f"}
