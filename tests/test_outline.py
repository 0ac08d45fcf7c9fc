"""drift.model.outline reads classes, bases, direct methods, functions and imports from text; it must
say exactly what `module_facts` says, or nothing (then the module is parsed)."""

from __future__ import annotations

import os
import re
import textwrap

import pytest

from drift.model.demand import package_facts
from drift.model.index import PackageIndex, call_of, def_of, word
from drift.model.outline import bindable, masked, may_bind, method_alone, outline
from drift.probes.ast_facts import function_facts, module_facts
from drift.probes.locate import module_name, walk_tree


def _reduced_class(c: dict) -> dict:
    return {"name": c["name"], "line": c["line"], "bases": c["bases"],
            "methods": {k: {"name": k, "line": v["line"]} for k, v in c["methods"].items()},
            "nested": {k: _reduced_class(v) for k, v in c["nested"].items()}}


def _reduced(facts: dict) -> dict:
    return {"classes": {k: _reduced_class(v) for k, v in facts["classes"].items()},
            "functions": {k: {"name": k, "line": v["line"]} for k, v in facts["functions"].items()},
            "imports": facts["imports"]}


def _same(src: str, module: str = "pkg.mod", path: str = "pkg/mod.py"):
    data = textwrap.dedent(src).encode()
    got = outline(data, module=module, path=path)
    if got is not None:
        assert got == _reduced(module_facts(data, module=module, path=path))
    return got


def test_structure_read_as_the_parser_reads_it():
    got = _same('''
        """class NotAClass: def not_a_method(self): ..."""
        import os.path, sys as system
        from . import sibling
        from ..up import (a as b,  # comment with ) and "quote
                          c,)
        from .star import *
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from x.y import Z
        else:
            from x.y import W
        try:
            import fast
        except ImportError:
            fast = None
        for i in range(3):
            class InLoop: ...
        else:
            from loop import gone
        s = 'class Fake:'; import late

        @decorate(
            "x")
        class A(Base, mod.Other[int, "s"], *more, metaclass=Meta, **kw):
            x = f"{1 + 2} {'q'}"
            def m(self): return 1
            @property
            def p(self): ...
            @p.setter
            def p(self, v): ...
            async def am(self):
                def inner(): ...
            if True:
                def not_direct(self): ...
            class Inner(A.B,
                        C):  # trailing
                def im(self): ...

        class B: pass
        def top(x, y=(1, 2)): ...
        async def atop(): ...
        class Multi(
            Generic[
                T,  # inner comment
                U],
        ): ...
        def f(): \\
            return 1
    ''')
    assert got is not None
    assert set(got["classes"]) == {"A", "B", "Multi"}
    assert set(got["classes"]["A"]["methods"]) == {"m", "p", "am"}
    assert got["classes"]["A"]["nested"]["Inner"]["bases"] == ["A.B", "C"]
    assert got["imports"]["Z"].get("type_checking") and not got["imports"]["W"].get("type_checking")
    assert "gone" not in got["imports"] and "late" in got["imports"]


def test_long_def_headers_are_skipped_with_their_body():
    """A def header that goes on past its first line is not walked line by line: its lines
    (one at the def's own indent) are skipped with the body, bracket depth carried over."""
    data = textwrap.dedent('''
        class P(Protocol):
            def __call__(
                self,
                x: int,
            ) -> int: ...

            async def run(self, a,
        b) -> None:
                y = (1,
        2)
                return None
            def after(self): ...
        def top(a: dict[
            str, int]) -> list[
            int]:
            return [a]
        class Q(P):
            def g(self): ...
    ''').encode()
    spans: dict = {}
    got = _same(data.decode(), module="pkg.mod", path="pkg/mod.py")
    assert got is not None and set(got["classes"]["P"]["methods"]) == {"__call__", "run", "after"}
    outline(data, module="pkg.mod", path="pkg/mod.py", spans=spans)
    facts = module_facts(data, module="pkg.mod", path="pkg/mod.py")
    for meth in ("__call__", "run", "after"):
        assert _alone(data, spans[("P", meth)], "P") == facts["classes"]["P"]["methods"][meth], meth


@pytest.mark.parametrize("src", [
    'x = f"{d["k"]}"\n',  # PEP 701: the regex would cut the string inside the field
    "class A[T]: ...\n",  # PEP 695
    "if x: import y\n",  # a one-line body at module level
    "class A((B)): ...\n",  # a parenthesised base
    "x = 'unterminated\n",
    "def f():\n\tpass\n",  # tabs
    "# -*- coding: latin-1 -*-\nclass A: ...\n",
    "x = (1,\n",
    "class Ä: ...\n",  # an NFKC identifier
])
def test_what_only_the_parser_can_answer_is_left_to_it(src):
    assert outline(src.encode(), module="pkg.mod", path="pkg/mod.py") is None


def test_may_bind_is_a_superset_of_assigned_names():
    text = masked(b"from torch import nn\nclass M(nn.Module): ...\na, (b, c) = 1, (2, 3)\nd: int = 4\ne = f = 5\n")
    for name in "abcdef":
        assert may_bind(text, name)
    assert not may_bind(text, "nn") and not may_bind(text, "M")


def test_outline_index_answers_as_the_parsed_index(tmp_path):
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("from .base import Base\nfrom .models import *\n")
    (root / "pkg" / "base.py").write_text("class Base:\n    def embed(self): ...\n")
    (root / "pkg" / "models.py").write_text(textwrap.dedent("""
        from pkg import Base
        Alias = Base
        class One(Base):
            def embed(self): ...
        class Two(One):
            def other(self): ...
    """))
    pkg = package_facts(str(root), "pkg", cache=None)
    ix = PackageIndex({"packages": {"pkg": pkg}})
    out = ix.outline
    assert out is not ix and out.outline is out
    two = out.lookup("pkg.Two")
    assert [c.dotted for c in out.mro(two)] == ["pkg.models.Two", "pkg.models.One", "pkg.base.Base"]
    assert pkg["modules"].parsed == 0 and pkg["modules"].outlined == 3
    assert out.lookup("pkg.models.Alias").kind == "name"  # names are read from the parse, when asked
    assert two.facts["methods"]["other"]["params"][0]["name"] == "self"  # so is any other key
    whole = PackageIndex({"packages": {"pkg": package_facts(str(root), "pkg", cache=None)}})
    for dotted in ("pkg.Two", "pkg.models.One.embed", "pkg.Base", "pkg.models.Alias"):
        a, b = out.lookup(dotted), whole.lookup(dotted)
        assert (a.dotted, a.kind, a.line) == (b.dotted, b.kind, b.line)


def _alone(data: bytes, span, cls: str) -> dict | None:
    got = method_alone(data, span)
    if got is None:
        return None
    node, text = got
    return {**function_facts(node, text=text, qualprefix=cls + ".", method=True), "overloads": []}


def test_method_spans_parse_alone_as_in_the_module():
    data = textwrap.dedent('''
        import functools
        class A(Base):
            x = 1

            @functools.cache
            @property
            def p(self) -> int:
                """doc

        at column 0"""
                return self._p  # comment
        # a comment at column 0
            def q(self, a, *, b=None): return None
            def twice(self): ...
            @twice.setter
            def twice(self, v): ...
            @overload
            def o(self, a: int) -> int: ...
            def o(self, a): return a
            class Inner:
                def hidden(self): ...
        if True:
            class B:
                async def run(self):
                    self.state = 1
                    return None
        def top(): ...
    ''').encode()
    spans: dict = {}
    got = outline(data, module="pkg.mod", path="pkg/mod.py", spans=spans)
    assert got is not None
    assert set(spans) == {("A", "p"), ("A", "q"), ("A", "twice"), ("A", "o"), ("B", "run")}
    assert spans[("A", "twice")] is None and spans[("A", "o")] is None  # their facts depend on the other def
    facts = module_facts(data, module="pkg.mod", path="pkg/mod.py")
    for cls, meth in [("A", "p"), ("A", "q"), ("B", "run")]:
        alone = _alone(data, spans[(cls, meth)], cls)
        assert alone == facts["classes"][cls]["methods"][meth], meth
    assert _alone(data, spans[("B", "run")], "B")["behaviour"]["tail_return_none"] == 27


def test_fast_needles_match_as_the_patterns_do():
    texts = [b"def  get_x(self)", b"xdef get_x", b"a.get_x (\n", b"get_xy(", b"_get_x(", b"# get_x\n(",
             b"def \\\n get_x():", b"get_x", b"class A:\n    def get_x(self): ..."]
    for make in (word, call_of, def_of):
        n = make("get_x")
        for t in texts:
            assert n.search(t) == (n.literal in t and n.pattern.search(t) is not None), (make.__name__, t)


@pytest.mark.corpus
@pytest.mark.parametrize("spec", ["vllm==0.16.0", "vllm==0.11.0", "speculators==0.3.0"])
def test_outline_equals_the_parse_on_real_releases(spec, corpus_src):
    """Every outline equals the parse, and so does every method parsed alone from its span."""
    root = corpus_src(spec)
    checked = methods = 0
    for pkg in sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.endswith("-info")):
        entries, _ = walk_tree(str(root), pkg)
        for rel, path, _size, _mtime, error in entries:
            if error:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
            name = module_name(rel)
            spans: dict = {}
            got = outline(data, module=name, path=rel, spans=spans)
            if got is None:
                continue
            facts = module_facts(data, module=name, path=rel)
            assert not facts.get("error"), (rel, facts["error"])
            assert got == _reduced(facts), rel
            text = masked(data)
            binds = bindable(text)  # `may_bind` of every name at once: the assigned names, and as may_bind says
            assert set(facts["names"]) <= binds, rel
            words = sorted(set(re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", text)))[::7][:40]
            assert all((w.decode() in binds) == may_bind(text, w.decode()) for w in words), rel
            checked += 1
            for (cls, meth), span in spans.items():
                if span is not None:
                    assert _alone(data, span, cls) == facts["classes"][cls]["methods"][meth], (rel, cls, meth)
                    methods += 1
    assert checked > 20 if spec.startswith("speculators") else checked > 900
    assert methods > 100 if spec.startswith("speculators") else methods > 10000
