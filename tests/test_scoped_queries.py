"""`PackageIndex.query(scoped=True)`: a question answered function by function reads only the
functions whose own text holds the needle's literal, parsed by themselves, and answers exactly
as the parsed modules do."""

from __future__ import annotations

import random
import textwrap

import pytest

from drift.model.demand import package_facts
from drift.model.index import PackageIndex, _names_index, call_of, word
from drift.analysis.rules.handed import _fallback_probes
from drift.analysis.rules.values import _build_ctor_calls
from drift.analysis.rules.vllm.block_hasher import _build_asserts

PLACED = '''
class Manager:
    def allocate(self, request, n):
        assert len(request.block_hashes) >= n
        return n

    def free(self, request):
        return request.num_tokens

    class Inner:
        def deep(self, r):
            return r


def helper(r):
    return r.block_size
'''

LOOSE = '''
NAME = "block_hashes"


def check(request):
    assert request.block_hashes, "needs hashes"


class Other:
    def run(self, request):
        assert request.block_hashes is not None
'''


def _index(root, package: str = "pkg") -> PackageIndex:
    return PackageIndex({"packages": {package: package_facts(str(root), package, cache=None)}})


def _tree(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "placed.py").write_text(textwrap.dedent(PLACED))
    (pkg / "loose.py").write_text(textwrap.dedent(LOOSE))
    return tmp_path


def _unscoped(ix: PackageIndex, build, needle, key):
    names = ix.modules_mentioning(needle)
    return build(ix, names).get(key, [])


def test_placed_literal_reads_the_methods_alone(tmp_path):
    root = _tree(tmp_path)
    ix = _index(root)
    view = ix.modules.scoped("pkg.placed", b"block_hashes")
    assert list(view["classes"]) == ["Manager"] and list(view["classes"]["Manager"]["methods"]) == ["allocate"]
    assert view["functions"] == {} and view["classes"]["Manager"]["nested"] == {}
    got = ix.query("asserts_by_attr", "block_hashes", needle=word("block_hashes"), build=_build_asserts,
                   default=[], scoped=True)
    assert ix.modules.parsed == 0  # both asserts sit in spanned methods, parsed by themselves
    assert ix.modules.alone == 2
    assert sorted(d for _, d, _ in got) == ["pkg.loose.Other.run", "pkg.placed.Manager.allocate"]
    assert got == _unscoped(_index(root), _build_asserts, word("block_hashes"), "block_hashes")


def test_loose_literal_keeps_what_the_spans_cannot_place(tmp_path):
    root = _tree(tmp_path)
    ix = _index(root)
    view = ix.modules.scoped("pkg.loose", b"block_hashes")
    assert set(view["functions"]) == {"check"}  # the module-level string makes the placement loose
    assert list(view["classes"]["Other"]["methods"]) == ["run"]
    placed = ix.modules.scoped("pkg.placed", b"block_size")  # in a top-level function: outside every span
    assert set(placed["functions"]) == {"helper"} and list(placed["classes"]) == ["Manager"]
    assert placed["classes"]["Manager"]["methods"] == {} and set(placed["classes"]["Manager"]["nested"]) == {"Inner"}
    # a builder that reads top-level functions parses such a module, and answers as before
    got = ix.query("fallback_probes", "block_size", needle=word("block_size"), build=_fallback_probes,
                   default=[], scoped=True)
    assert got == _unscoped(_index(root), _fallback_probes, word("block_size"), "block_size")
    assert ix.modules.parsed == 1


def test_facts_that_came_whole_ignore_scoped(tmp_path):
    root = _tree(tmp_path)
    whole = _index(root)
    every = list(whole.modules)
    for name in every:
        whole.modules[name]  # parsed: a parsed module is its own scoped view
    assert whole.modules.scoped("pkg.placed", b"block_hashes") is whole.modules["pkg.placed"]


@pytest.mark.corpus
def test_scoped_answers_equal_the_parsed_ones_on_a_real_release(corpus_src):
    """Every assert attribute and fallback name of vLLM 0.16.0, and 300 constructed callees."""
    root = corpus_src("vllm==0.16.0")
    whole = _index(root, "vllm")
    every = list(whole.modules)
    cases = [(_build_asserts, word, sorted(_build_asserts(whole, every))),
             (_fallback_probes, word, sorted(_fallback_probes(whole, every))),
             (_build_ctor_calls, call_of, random.Random(12).sample(sorted(_build_ctor_calls(whole, every)), 300))]
    for build, make, keys in cases:
        scoped = _index(root, "vllm")
        assert len(keys) > 25
        for key in keys + ["block_hashes", "Request"]:
            needle = make(key)
            assert scoped.query("t", key, needle=needle, build=build, default=[], scoped=True) == \
                _unscoped(whole, build, needle, key), (build.__name__, key)
        assert scoped.modules.alone > 100


def test_definitions_named_reads_outlines(tmp_path):
    """A def or class is found from the outline; an assigned name parses its module only where
    the text can bind it."""
    root = _tree(tmp_path)
    ix = _index(root)
    assert ix.definitions_named("helper") == ["pkg.placed.helper"]
    assert ix.modules.parsed == 0  # `def helper(` cannot bind a name: no parse
    assert ix.definitions_named("NAME") == ["pkg.loose.NAME"]
    assert ix.modules.parsed == 1  # `NAME = ...` may: loose.py parsed, placed.py never
    whole = _index(root)
    for name in ("helper", "Manager", "NAME", "block_hashes", "missing"):
        assert ix.definitions_named(name) == _names_index(whole, whole.modules_mentioning(word(name))).get(name, [])


@pytest.mark.corpus
def test_definitions_named_equal_the_parsed_index_on_a_real_release(corpus_src):
    root = corpus_src("vllm==0.16.0")
    whole = _index(root, "vllm")
    every = _names_index(whole, list(whole.modules))
    demand = _index(root, "vllm")
    for name in random.Random(3).sample(sorted(every), 300) + ["logger", "Request", "__all__"]:
        assert demand.definitions_named(name) == \
            _names_index(whole, whole.modules_mentioning(word(name))).get(name, []), name
    assert demand.modules.outlined > 100
