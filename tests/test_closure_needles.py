"""The host's closure asks drift's searches by the same patterns as drift.index.

drift looks a host's answer up by the needle's pattern text (drift/host_modules.py), so a
pattern the probe writes differently from drift.index is a prediction wasted: the search is
asked again in a later exchange. And the names it predicts are the ones the rules search for:
the consumer's package (DRIFT074), the classes it patches (DRIFT076), the methods of classes
linked to the target through its own classes (DRIFT070), dunders and missing-name parts too.
"""

from __future__ import annotations

import pytest

from drift.index import call_of, def_of, word
from drift.probes import closure

NAMES = ["forward", "__init__", "__post_init__", "get_kv_cache_shape", "x1", "ModelConfig", "_sample"]


@pytest.mark.parametrize("name", NAMES)
def test_closure_patterns_are_drift_index_patterns(name):
    for ours, theirs in ((closure.word, word), (closure.call_of, call_of), (closure.def_of, def_of)):
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
