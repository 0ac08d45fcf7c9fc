"""drift/model/facts.py is the one facts model: every key the probe writes is a typed attribute of its
view, views read what the record holds (and the empty value when it holds nothing), and the
resolver hands out symbols whose `node` is the right view."""

from __future__ import annotations

import textwrap

import pytest

from drift.model.demand import ModuleCache, package_facts
from drift.model.facts import (Behaviour, Choice, ClassFacts, EnvDefault, FieldFacts, FunctionFacts, ImportFacts,
                         InstanceAttr, KwargsForward, ModuleFacts, NameFacts, Overload, ParamFacts, Record)
from drift.model.index import PackageIndex
from drift.probes.ast_facts import module_facts

SRC = textwrap.dedent('''
    """doc"""
    import os.path
    from typing import TYPE_CHECKING, ClassVar, overload
    from dataclasses import dataclass, field, InitVar
    from .sib import *
    if TYPE_CHECKING:
        from x.y import Z
    __all__ = ["Cfg", "Runner", "helper"]
    LIMIT = 16

    @dataclass(kw_only=True)
    class Cfg:
        size: int = 16
        names: list = field(default_factory=list)
        hidden: int = field(default=0, init=False)
        seed: InitVar[int] = 0
        shared: ClassVar[int] = 1
        mode = "fast"

    class Runner(Base, metaclass=Meta, extra="forbid"):
        KIND = "gpu"
        def __init__(self, cfg: Cfg, *args, device=None, **kw):
            self.cfg = cfg
            self.state = None
            self.engine = Engine(block_size=cfg.size)
            assert cfg.size > 0
        @property
        def size(self) -> int:
            return self.cfg.size
        @size.setter
        def size(self, v):
            self.cfg.size = v
        @overload
        def get(self, k: int) -> int: ...
        @overload
        def get(self, k: str) -> str: ...
        def get(self, k):
            if self.state is None:
                raise RuntimeError("call start() first")
            return self.state[k]
        async def run(self):
            self.state = {}
            self.state = None
            return None
        class Inner:
            pass

    def helper(a, /, b, *, c=1):
        kwargs = {}
        kwargs["flag"] = False
        return Cfg(**kwargs)
''')


def _records(mod: dict):
    """(view class, record) for every record of a module, nested ones included."""
    yield ModuleFacts, mod
    for imp in (mod.get("imports") or {}).values():
        for one in imp if isinstance(imp, list) else [imp]:
            yield ImportFacts, one
    for n in (mod.get("names") or {}).values():
        yield NameFacts, n
    for e in (mod.get("env_defaults") or {}).values():
        yield EnvDefault, e
    for e in (mod.get("env_exprs") or {}).values():
        yield EnvDefault, e
    for fn in (mod.get("functions") or {}).values():
        yield from _function(fn)
    for c in (mod.get("classes") or {}).values():
        yield from _class(c)


def _function(fn: dict):
    yield FunctionFacts, fn
    yield Behaviour, fn.get("behaviour") or {}
    for p in fn.get("params") or ():
        yield ParamFacts, p
    for o in fn.get("overloads") or ():
        yield Overload, o
    for f in (fn.get("behaviour") or {}).get("kwargs_into") or ():
        yield KwargsForward, f
    for c in (fn.get("behaviour") or {}).get("choices") or ():
        yield Choice, c


def _class(c: dict):
    yield ClassFacts, c
    for f in c.get("fields") or ():
        yield FieldFacts, f
    for a in (c.get("attrs") or {}).values():
        yield NameFacts, a
    for a in (c.get("instance_attrs") or {}).values():
        yield InstanceAttr, a
    for m in (c.get("methods") or {}).values():
        yield from _function(m)
    for n in (c.get("nested") or {}).values():
        yield from _class(n)


def _undeclared(mod: dict) -> set[tuple[str, str]]:
    return {(view.__name__, key) for view, rec in _records(mod) for key in rec if key not in view.KEYS}


def test_every_key_of_a_rich_module_is_declared():
    mod = module_facts(SRC.encode(), module="pkg.mod", path="pkg/mod.py")
    assert not mod.get("error")
    assert _undeclared(mod) == set()


def test_views_read_the_record_and_its_empty_values():
    raw = module_facts(SRC.encode(), module="pkg.mod", path="pkg/mod.py")
    mod = ModuleFacts(raw)
    assert mod.path == "pkg/mod.py" and mod.all == ["Cfg", "Runner", "helper"] and mod.error is None
    assert "*" not in mod.imports and [s.target for s in mod.star_imports] == ["pkg.sib"]
    assert mod.imports["Z"].type_checking and not mod.imports["os"].type_checking
    assert mod.imports["Z"].target == "x.y.Z" and mod.names["LIMIT"].value == "16"

    cfg = mod.classes["Cfg"]
    assert cfg.kind == "dataclass" and cfg.decorators == ["dataclass"]
    fields = {f.name: f for f in cfg.fields}
    assert fields["size"].kw_only and fields["size"].has_default and fields["size"].default == "16"
    assert not fields["hidden"].init and fields["seed"].initvar and fields["shared"].classvar
    assert cfg.field("names").has_default and cfg.field("nope") is None
    assert cfg.attrs["mode"].value == '"fast"'

    runner = mod.classes["Runner"]
    assert runner.bases == ["Base"] and 'extra="forbid"' in runner.options
    assert "Inner" in runner.nested and runner.nested["Inner"].methods == {}
    init = runner.methods["__init__"]
    assert [(p.name, p.kind, p.required) for p in init.params] == [
        ("self", "POSITIONAL_OR_KEYWORD", True), ("cfg", "POSITIONAL_OR_KEYWORD", True),
        ("args", "VAR_POSITIONAL", False), ("device", "KEYWORD_ONLY", False), ("kw", "VAR_KEYWORD", False)]
    assert init.takes_self and init.param_facts[1].annotation == "Cfg"
    assert init.behaviour.asserts[0].subject == "cfg" and init.behaviour.asserts[0].attr == "size"
    assert init.behaviour.ctor_calls[0].callee == "Engine"
    assert init.behaviour.ctor_calls[0].keywords == {"block_size": "cfg.size"}
    assert runner.instance_attrs["cfg"].method == "__init__" and runner.instance_attrs["state"].line == init.line + 2
    assert runner.methods["size"].is_property and runner.methods["size"].setter
    assert runner.methods["size"].returns == "int"
    get = runner.methods["get"]
    assert [o.returns for o in get.overloads] == ["int", "str"]
    assert get.behaviour.raises[0].message == "call start() first"
    assert get.behaviour.raises[0].guard == "self.state is None"
    assert get.behaviour.self_reads["state"]
    run = runner.methods["run"]
    assert run.is_async and run.behaviour.tail_return_none == run.line + 3
    assert run.behaviour.self_sets == {"state": [run.line + 1]}
    assert run.behaviour.self_resets == {"state": [run.line + 2]}

    helper = mod.functions["helper"]
    assert [p.kind for p in helper.params] == ["POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"]
    assert helper.behaviour.kwarg_defaults["flag"]["value"] == "False"
    assert [p.required for p in helper.param_facts] == [True, True, False]
    assert [p.required for p in init.param_facts] == [p.required for p in init.params]
    assert helper.same_params(FunctionFacts(dict(helper.raw))) and not helper.same_params(init)
    assert run.behaviour.knows_value_returns and run.behaviour.value_returns == []

    # absent keys read as the empty value of their type, never None or KeyError
    empty = FunctionFacts({"name": "f", "line": 3})
    assert empty.params == [] and empty.decorators == () and empty.behaviour.raises == []
    assert empty.behaviour.self_sets == {} and empty.returns is None and not empty.is_async
    assert not empty.behaviour.knows_value_returns  # an older probe's record: no path is proved valueless
    assert ClassFacts({}).methods.get("x") is None and len(ClassFacts({}).methods) == 0
    assert ModuleFacts({"imports": {"*": [{"target": "a", "line": 1}]}}).imports == {}


SETTINGS_SRC = textwrap.dedent('''
    import os
    environment_variables = {
        "USE_V2": lambda: bool(int(os.getenv("USE_V2", "0"))),
    }

    def make(spec, **kwargs) -> "Engine":
        kwargs.pop("old", None)
        return Engine(spec, *extra, block=1, **kwargs)

    def pick(model, flag):
        if flag:
            runner = RunnerV2()
        else:
            runner = Runner()
        embed = getattr(model, "embed_input_ids", None)
        if embed is None:
            embed = getattr(model, "get_input_embeddings", None)
        return runner
''')


def test_sub_records_read_as_views():
    """The records inside a behaviour or a settings module (a **kwargs forward, a class choice,
    an env default, a probe's fallback) read as views too, so rules never read them raw."""
    mod = ModuleFacts(module_facts(SETTINGS_SRC.encode(), module="pkg.envs", path="pkg/envs.py"))
    env = mod.env_defaults["USE_V2"]
    assert env.expr == 'bool(int(os.getenv("USE_V2", "0")))' and env.read == 'os.getenv("USE_V2", "0")'
    assert env.default == '"0"' and env.line == 4
    fwd, = mod.functions["make"].behaviour.kwargs_into
    assert fwd.callee == "Engine" and fwd.positional == 1 and fwd.star_args and fwd.returned
    assert list(fwd.keywords) == ["block"] and list(fwd.drops) == ["old"] and list(fwd.adds) == []
    pick = mod.functions["pick"].behaviour
    choice, = pick.choices
    assert choice.test == "flag" and [e[0] for e in choice.then] == ["RunnerV2"]
    assert [e[0] for e in choice.orelse] == ["Runner"]
    assert pick.probes["model"]["get_input_embeddings"][1] == "embed_input_ids"
    empty = Behaviour({})
    assert empty.probes == {} and empty.kwargs_into == [] and empty.choices == [] and ModuleFacts({}).env_defaults == {}


def test_views_are_equal_when_they_hold_the_same_record():
    raw = {"name": "f", "line": 1}
    assert FunctionFacts(raw) == FunctionFacts(raw) and hash(FunctionFacts(raw)) == hash(FunctionFacts(raw))
    assert FunctionFacts(raw) != FunctionFacts(dict(raw)) and FunctionFacts(raw) != ClassFacts(raw)


def test_the_resolver_hands_out_the_right_view(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .mod import Runner as PublicRunner\n")
    (pkg / "mod.py").write_text(SRC)
    (pkg / "sib.py").write_text("X = 1\n")
    index = PackageIndex({"packages": {"pkg": package_facts(str(tmp_path), "pkg", cache=None)}})
    kinds = {
        "pkg": ModuleFacts, "pkg.PublicRunner": ClassFacts, "pkg.mod.Runner.get": FunctionFacts,
        "pkg.mod.helper": FunctionFacts, "pkg.mod.LIMIT": NameFacts, "pkg.mod.Runner.Inner": ClassFacts,
    }
    for dotted, view in kinds.items():
        sym = index.lookup(dotted)
        assert sym is not None and type(sym.node) is view, dotted
    runner = index.lookup("pkg.PublicRunner")
    assert runner.dotted == "pkg.mod.Runner" and runner.as_class.methods["run"].is_async
    assert type(index.class_member(runner, "KIND").node) is NameFacts
    params, source = index.constructor(index.lookup("pkg.mod.Cfg"))
    assert [p.name for p in params] == ["size", "names", "seed"] and source.dotted == "pkg.mod.Cfg"
    assert all(p.kind == "KEYWORD_ONLY" for p in params)
    assert isinstance(index.instance_attrs(runner)["engine"][1], InstanceAttr)


@pytest.mark.corpus
@pytest.mark.parametrize("spec", ["vllm==0.16.0"])
def test_every_key_of_a_real_release_is_declared(spec, corpus_src, tmp_path):
    """A key the probe starts writing must be added to the model, or rules would read it raw."""
    root = corpus_src(spec)
    pkg = package_facts(str(root), "vllm", cache=ModuleCache(tmp_path / "modules"))
    modules = pkg["modules"]
    modules.load(list(modules))  # every module, parsed by the probe's workers
    undeclared: set[tuple[str, str]] = set()
    for name in modules:
        undeclared |= _undeclared(modules[name])
    assert undeclared == set()
    assert issubclass(ModuleFacts, Record)
