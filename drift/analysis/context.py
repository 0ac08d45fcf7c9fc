"""What rules see: the consumer's uses resolved in the target and in the baseline.

Resolution happens once here, so each rule is a short generator over resolved uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterator

from drift.analysis.custom_ops import params_binding_error
from drift.analysis.moves import moved_to
from drift.analysis.paths import ConsumerModel, PathEvaluator, Value
from drift.analysis.torch_module import forward_of
from drift.analysis.model_protocols import protocol_member
from drift.findings import Location
from drift.model.index import Param, PackageIndex, Symbol
from drift.probes.consumer_scan import ir_of


def _receiver_class(index: PackageIndex, paths: PathEvaluator | None, dotted: str) -> Symbol | None:
    """The symbol a call's receiver names on one side: the class itself where the name is an alias
    of a class there (`AsyncLLMEngine = AsyncLLM`), else what the name is (None when absent)."""
    sym = index.lookup(dotted)
    if sym is not None and sym.kind != "class" and paths is not None:
        v = paths.value(("sym:" + dotted,))
        if v.kind == "class" and v.sym is not None:
            return v.sym
    return sym


def _backs_up_working(index: PackageIndex, imp: dict[str, Any]) -> bool:
    """Whether `imp` is an `except ...:` fallback whose `try` imports all resolve in `index`: it
    never runs there, so it cannot keep the module from loading."""
    backed = imp.get("fallback_for") or ()
    return bool(backed) and all(index.lookup(t) is not None for t in backed)


@dataclass(frozen=True)
class ResolvedCall:
    """One consumer call into the target, with the callable it reaches on both sides."""

    rec: dict[str, Any]  # the usage record (probes/usage.py)
    module: dict[str, Any]  # the consumer module's usage facts
    label: str  # "Request" / "MultiprocExecutor.execute_model"
    dotted: str  # the name the consumer reaches, e.g. "vllm.v1.request.Request"
    target: Symbol | None  # the callable (class, function or method) in the target
    baseline: Symbol | None
    is_constructor: bool
    target_params: list[Param] | None
    baseline_params: list[Param] | None
    target_params_at: Symbol | None  # where the parameters are defined (__init__ or dataclass)
    baseline_params_at: Symbol | None
    # reached through `nn.Module.__call__` (`layer(x)` runs the layer's `forward`): the layer's
    # class is what the consumer built or annotated, and vLLM may swap it per platform (an
    # out-of-tree CustomOp) for one whose `forward` takes other values
    through_call: bool = False

    @property
    def site(self) -> Location:
        return site_of(self.module, self.rec)

    def keyword_site(self, kw: str) -> Location:
        """Where the keyword itself is written (a dict key when it flowed in through `**d`)."""
        pos = (self.rec.get("kw_cols") or {}).get(kw)
        if not pos:
            return self.site
        return Location(self.module["path"], pos[0], snippet=self.rec.get("callee_src"), col=pos[1] + 1)


def _written_name(rec: dict[str, Any]) -> str | None:
    """The dotted name a call is written through (`vllm.x.f(...)`, or `f(...)` after `from
    vllm.x import f`), before any re-export is followed; None for calls on values."""
    callee = rec.get("callee") or {}
    if callee.get("via"):
        return None  # `super().__init__(...)`: the base the class statement captured, whatever is rebound later
    if "symbol" in callee:
        return callee["symbol"]
    path = callee.get("path") or ()
    if not path or not str(path[0]).startswith("sym:") or \
            not all(str(p).startswith(".") and not str(p).startswith(".?") for p in path[1:]):
        return None  # (a soft step, `getattr(m, "f", d)`, is judged through the path evaluator)
    return path[0][4:] + "".join(path[1:])


def site_of(module: dict[str, Any], rec: dict[str, Any]) -> Location:
    col = rec.get("col")
    return Location(module["path"], rec["line"], snippet=rec.get("callee_src"),
                    col=col + 1 if isinstance(col, int) else None)


@dataclass
class CheckContext:
    target: PackageIndex
    baseline: PackageIndex | None
    usage: list[dict[str, Any]]  # consumer module usage facts
    target_package: str = "vllm"
    consumer_name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict, repr=False)  # per-check answers rules share

    def site(self, module: dict[str, Any], line: int, snippet: str | None = None) -> Location:
        return Location(module["path"], line, snippet=snippet)

    def evidence(self, sym: Symbol | None, line: int | None = None, snippet: str | None = None) -> Location | None:
        if sym is None:
            return None
        return Location(sym.path, line or sym.line, symbol=sym.dotted, snippet=snippet)

    def iter_imports(self) -> Iterator[tuple[dict, dict]]:
        for mod in self.usage:
            for imp in mod.get("imports") or []:
                yield mod, imp

    @cached_property
    def calls(self) -> list[ResolvedCall]:
        """The consumer's calls into the target, less calls of layers (`layer(x)` through
        `nn.Module.__call__`): those only the signature rules judge (`binding_calls`). Which class
        the layer is comes from where the consumer built or annotated it, and vLLM may swap in a
        per-platform replacement whose `forward` body is another: the binding of the arguments to
        the declared `forward` is what such a call shows, not what the body then does with them."""
        return [rc for rc in self.binding_calls if not rc.through_call]

    @cached_property
    def binding_calls(self) -> list[ResolvedCall]:
        """Every resolved call, layer calls included: for the rules that judge only how the
        arguments bind to the callable's parameters (DRIFT010-013)."""
        out = []
        rebound = self._rebound_names
        for mod in self.usage:
            for rec in mod.get("calls") or []:
                if rebound and not rec.get("bound") and _written_name(rec) in rebound:
                    continue  # the consumer assigned its own value over this name: the call reaches that
                rc = self._resolve(mod, rec)
                if rc is not None and not (rc.is_constructor and rc.target is not None
                                           and rc.target.dotted in self._consumer_inits):
                    out.append(rc)
        return out

    @cached_property
    def _consumer_inits(self) -> frozenset[str]:
        """Target classes whose `__init__` the consumer replaces (`Cls.__init__ = my_init`,
        `setattr(Cls, "__init__", f)`, a patching helper; on a branch the target runs): building
        one runs the consumer's `__init__`, not the target's, so the target's signature does not
        judge those calls (DRIFT070 judges the replacement against the target's own callers)."""
        out = set()
        patches = [p for mod in self.usage for p in mod.get("patches") or []]
        patches += [p for _mod, p in self.consumer.helper_patches]
        for p in patches:
            if p.get("name") == "__init__" and p.get("path") and self._stand_in_init(p.get("value")):
                owner = self.target_paths.value(tuple(p["path"]))
                if owner.kind == "class" and owner.sym is not None:
                    out.add(owner.sym.dotted)
        return frozenset(out)

    def _stand_in_init(self, value: Any) -> bool:
        """Whether a patch's value is a consumer function with a signature of its own: a wrapper
        taking `*args, **kwargs` hands the call on to the target's `__init__` (which then judges
        it), and a value drift cannot see is not assumed to be either."""
        if not isinstance(value, dict):
            return False
        params = (value.get("signature") or {}).get("params")
        path = value.get("path") or ()
        if params is None and len(path) == 2 and str(path[0]).startswith("sym:") and path[1] == ".__init__":
            init = ((self.consumer.classes.get(path[0][4:]) or {}).get("methods") or {}).get("__init__") or {}
            params = init.get("params")
        return bool(params) and not any(p[1] in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in params)

    @cached_property
    def _rebound_names(self) -> frozenset[str]:
        """Target module names the consumer assigns its own function or class over
        (`vllm.x.f = my_f`, on a branch the target runs): its calls through that name reach the
        consumer's value, so the target's signature of `f` does not judge them (the consumer's
        own code is the same on both sides; DRIFT070 judges the replacement against the
        target's callers). A call through a saved value (`_orig = vllm.x.f` read before the
        assignment: the record's `bound`) still reaches vLLM's."""
        out = set()
        for r in self.consumer.inferred.replacements:
            owner = self.target.lookup(r["target"].rsplit(".", 1)[0])
            if owner is not None and owner.kind == "module" and r["kind"] != "class":
                out.add(r["target"])  # a class attribute is DRIFT070's, and a class stand-in usually
                # subclasses the name it replaces (its own `super()` and earlier imports reach vLLM's)
        return frozenset(out)

    # -- typed paths (probes/reach.py) -------------------------------------------------------
    @cached_property
    def consumer(self) -> ConsumerModel:
        return ConsumerModel(self.usage, (self.target_package,))

    @cached_property
    def target_paths(self) -> PathEvaluator:
        return PathEvaluator(self.target, self.consumer, target_prefixes=(self.target_package,),
                             relocate=self.relocated)

    def dead_on_baseline(self, mod: dict[str, Any]) -> bool:
        """A consumer module whose unguarded imports already fail on the baseline never loads
        there: what else it does is not drift (its findings are risky, not breaking). A name the
        baseline's module serves from its `__getattr__` imports there, and a fallback import whose
        `try` succeeds on the baseline never runs."""
        if self.baseline is None:
            return False
        cache = self.memo.setdefault("dead_modules", {})
        key = mod.get("path")
        if key not in cache:  # the target first: the import rule resolved each import there already, and
            # only one the target lacks can make the module dead (the baseline's modules are read for no other)
            cache[key] = any(not imp.get("guarded") and self.target.lookup(imp["target"]) is None
                             and self.baseline.lookup(imp["target"]) is None
                             and not self.baseline.served_by_getattr(*imp["target"].rpartition(".")[::2])
                             and not _backs_up_working(self.baseline, imp)
                             for imp in mod.get("imports") or [])
        return cache[key]

    def relocated(self, dotted: str) -> Symbol | None:
        """The target's definition of a name that moved (compatible with the baseline's), or None."""
        cache = self.memo.setdefault("relocated", {})
        if dotted not in cache:
            base = self.baseline.lookup(dotted) if self.baseline is not None else None
            where = moved_to(self, dotted, base)[0] if base is not None else None
            cache[dotted] = self.target.lookup(where) if where else None
        return cache[dotted]

    @cached_property
    def baseline_paths(self) -> PathEvaluator | None:
        if self.baseline is None:
            return None
        return PathEvaluator(self.baseline, self.consumer, target_prefixes=(self.target_package,))

    def _relocated_member(self, dotted: str) -> Symbol | None:
        """`pkg.mod.Cls.method` where `Cls` (or the function itself) moved: its new definition."""
        parts = dotted.split(".")
        for cut in range(len(parts), 1, -1):
            moved = self.relocated(".".join(parts[:cut]))
            if moved is not None:
                rest = parts[cut:]
                return self.target.lookup(".".join([moved.dotted] + rest)) if rest else moved
        return None

    def _rehomed(self, dotted: str, base: Symbol) -> Symbol | None:
        """The one definition of the same name and kind the target has elsewhere, where the
        module the consumer imports it from is gone: the class moved and changed on the way
        (`vllm.v1.kv_offload.abstract.PrepareStoreOutput` -> `...base.PrepareStoreOutput` with
        renamed fields). `relocated` answers only where the API stayed compatible; a call of the
        name is checked against the new definition, since fixing the import leads there and the
        call then fails on what changed. Only a definition in the old module's own package (or
        below the old module): a same-named class elsewhere is as likely another object (v0's
        sampler `SamplerOutput` is not v1's). Several candidates, or the old module still there: None."""
        module, name = dotted.rsplit(".", 1)
        if base.kind not in ("class", "function") or module in self.target.modules:
            return None
        found = [d for d in self.target.definitions_named(name) if d != dotted]
        if len(found) != 1:
            return None
        sym = self.target.lookup(found[0])
        if sym is None or sym.kind != base.kind:
            return None
        parent = module.rsplit(".", 1)[0]  # moved within its own subpackage: the same object, reworked
        return sym if sym.module.rsplit(".", 1)[0] == parent or sym.module.startswith(module + ".") else None

    def _resolve_path(self, mod: dict, rec: dict) -> ResolvedCall | None:
        path = tuple(rec["callee"]["path"])
        t = self.target_paths.value(path)
        if t.kind == "consumer" and t.ckind == "class" and path[-1:] != ("()",):
            return self._inherited_constructor(mod, rec, t.cref or "")
        raw = t
        t = _module_call(self.target, t)
        tsym, tparams, tat, ctor = _callable(self.target, t)
        if tsym is None and t.kind != "missing":
            return None  # the target side is not known well enough to judge this call (the baseline is not asked)
        b = _module_call(self.baseline, self.baseline_paths.value(path)) if self.baseline_paths else None
        bsym, bparams, bat, bctor = _callable(self.baseline, b) if b is not None else (None, None, None, False)
        if tsym is None and bsym is None:
            return None
        if bparams is not None and self.target_paths.mixed(path) and params_binding_error(bparams, rec):
            return None  # the receiver may be the consumer's own object, and only that one took this call
        any_sym = tsym or bsym
        if any_sym.kind == "class":
            label = any_sym.dotted.rsplit(".", 1)[-1]
        else:
            label = ".".join(any_sym.dotted.rsplit(".", 2)[-2:]) if any_sym.kind == "method" else \
                any_sym.dotted.rsplit(".", 1)[-1]
        return ResolvedCall(rec, mod, label, any_sym.dotted, tsym, bsym, ctor or (tsym is None and bctor),
                            tparams, bparams, tat, bat, through_call=t is not raw)

    def _inherited_constructor(self, mod: dict, rec: dict, cref: str) -> ResolvedCall | None:
        """`Sub(...)` where the consumer's `Sub` writes no `__init__`: the target base's
        constructor binds the arguments on each side. Fields the consumer's classes declare are
        its own parameters when the base builds from fields (a dataclass or struct subclass)."""
        tsym = self.target_paths.constructed_base(cref)
        bsym = self.baseline_paths.constructed_base(cref) if self.baseline_paths else None
        if tsym is None or (self.baseline is not None and bsym is None) or self.target.is_typeddict(tsym):
            return None  # a TypedDict subclass's call builds a dict: nothing is checked at run time
        own = self._dataclass_fields(cref)
        if own is not None:  # the consumer's `@dataclass` writes `__init__` from the MRO's dataclass fields
            tparams, tat = _dataclass_init(self.target, tsym, own)
            bparams, bat = _dataclass_init(self.baseline, bsym, own) if bsym else (None, None)
            if tat is None and (bsym is None or bat is None):
                return None  # only the consumer's own fields on each side: nothing of the target binds the call
        else:
            tparams, tat = _with_own_fields(self.target, tsym, self._consumer_fields(cref))
            bparams, bat = _with_own_fields(self.baseline, bsym, self._consumer_fields(cref)) if bsym else (None, None)
        return ResolvedCall(rec, mod, cref.rsplit(".", 1)[-1], tsym.dotted, tsym, bsym, True,
                            tparams, bparams, tat, bat)

    def _dataclass_fields(self, cref: str) -> list[tuple[str, int]] | None:
        """The fields of `cref` and its consumer bases when `cref` is decorated `@dataclass`
        (Python's generated `__init__` takes them whatever a plain target base's `__init__`
        takes); None when it is not a dataclass."""
        if "dataclass_fields" not in (self.consumer.classes.get(cref) or {}):
            return None
        return [(name, line) for cls in self.consumer_lineage(cref) for name, line in cls.get("dataclass_fields") or ()]

    def _consumer_fields(self, cref: str) -> list[tuple[str, int]]:
        """Class-level names the consumer class and its consumer bases declare, with their lines."""
        return [(name, (rec or {}).get("line") or cls.get("line") or 0)
                for cls in self.consumer_lineage(cref) for name, rec in (cls.get("class_attrs") or {}).items()]

    def consumer_lineage(self, cref: str) -> Iterator[dict]:
        """The records of consumer class `cref` and of its consumer bases, each once."""
        todo, seen = [cref], set()
        while todo:
            ref = todo.pop()
            cls = self.consumer.classes.get(ref)
            if cls is None or ref in seen:
                continue
            seen.add(ref)
            yield cls
            for b in cls.get("bases") or []:
                v = self.target_paths.value(tuple(b)) if b else None
                if v is not None and v.kind == "consumer" and v.ckind == "class" and v.cref:
                    todo.append(v.cref)

    def _resolve(self, mod: dict, rec: dict) -> ResolvedCall | None:
        callee = rec["callee"]
        if "path" in callee:
            return self._resolve_path(mod, rec)
        if "symbol" in callee:
            dotted = callee["symbol"]
            label = dotted.rsplit(".", 1)[-1]
            t, b = self.target.lookup(dotted), self.baseline.lookup(dotted) if self.baseline else None
            if t is None and b is not None:
                t = self._relocated_member(dotted) or self._rehomed(dotted, b)
            if t is None and b is None and len(rec.get("path") or ()) > 1:
                # a name no lookup finds on either side (a class a package `__getattr__` serves,
                # `vllm.AsyncLLMEngine.from_engine_args`): the record's path, step by step
                rc = self._resolve_path(mod, dict(rec, callee={"path": list(rec["path"])}))
                if rc is not None:
                    return rc
        elif "receiver" in callee:
            recv_t = _receiver_class(self.target, self.target_paths, callee["receiver"])
            recv_b = _receiver_class(self.baseline, self.baseline_paths, callee["receiver"]) if self.baseline else None
            if recv_t is None and recv_b is None:
                # a receiver no lookup finds (`Alias.from_args` where `Alias` is served by a package
                # `__getattr__`): the record's path says what was called, when it resolves
                path = rec.get("path")
                if path and len(path) > 1 and path[-1] == "." + callee["method"]:
                    rc = self._resolve_path(mod, dict(rec, callee={"path": list(path)}))
                    if rc is not None:
                        return rc
            if (recv_t and recv_t.kind != "class") and (recv_b is None or recv_b.kind != "class"):
                # the receiver is a call's result (`Engine.from_args(a).generate(...)`, a local or a
                # `self` attribute bound to it): the record's path says what was called, each side's facts say
                # what that returns (a `-> "Engine"` factory, `-> Self`), else nothing is judged
                path = rec.get("path")
                if path and len(path) > 1 and path[-1] == "." + callee["method"]:
                    return self._resolve_path(mod, dict(rec, callee={"path": list(path)}))
                return None
            dotted = f"{callee['receiver']}.{callee['method']}"
            label = f"{callee['receiver'].rsplit('.', 1)[-1]}.{callee['method']}"
            # each side's own class: a name that is an alias on one side (`Engine = NewEngine`) and a
            # class on the other is two receivers, each with its own method
            t = self.target.lookup(f"{recv_t.dotted}.{callee['method']}") if recv_t and recv_t.kind == "class" else None
            b = self.baseline.lookup(f"{recv_b.dotted}.{callee['method']}") if (recv_b and recv_b.kind == "class") \
                else None
        else:
            return None
        is_ctor = (t is not None and t.kind == "class") or (t is None and b is not None and b.kind == "class")
        tp, tat = self._params(self.target, t)
        bp, bat = self._params(self.baseline, b) if self.baseline else (None, None)
        return ResolvedCall(rec, mod, label, dotted, t, b, is_ctor, tp, bp, tat, bat)

    @staticmethod
    def _params(index: PackageIndex | None, sym: Symbol | None) -> tuple[list[Param] | None, Symbol | None]:
        """Parameters of a resolved symbol as a call binds them (a method here is bound)."""
        if sym is None:
            return None, None
        decs = sym.as_function.decorators if sym.kind == "method" else ()
        kind = "function" if "staticmethod" in decs or "classmethod" in decs else sym.kind
        _sym, params, at, _ctor = _callable(index, Value(kind, sym=sym))
        return params, at

    # -- whole-consumer questions -----------------------------------------------------------
    def consumer_calls_method(self, receiver_class: str, method: str) -> bool:
        """Whether the consumer calls `receiver_class.method` (`*`: on any receiver)."""
        by_method = self._called_methods
        return method in by_method and (receiver_class == "*" or receiver_class in by_method[method])

    @property
    def _called_methods(self) -> dict[str, set[Any]]:
        """method -> receivers the consumer calls it on."""
        return self._method_calls[0]

    @cached_property
    def _method_calls(self) -> tuple[dict[str, set[Any]], set[str]]:
        """(method -> receivers the consumer calls it on, methods it calls other than through
        `super()`): one scan of the calls per check, not one per question (DRIFT050 and DRIFT073
        ask hundreds)."""
        out: dict[str, set[Any]] = {}
        not_super: set[str] = set()
        for mod in self.usage:
            for rec in mod.get("calls") or []:
                c = rec["callee"]
                if "method" in c:
                    out.setdefault(c["method"], set()).add(c.get("receiver"))
                    if c.get("via") != "super":
                        not_super.add(c["method"])
        return out, not_super

    def consumer_calls_method_elsewhere(self, method: str) -> bool:
        """Whether the consumer calls `method` on some object other than through `super()`: a
        `super().m(...)` call runs the calling class's own base chain, which says nothing of another
        class (`self_calls` holds a class's own)."""
        return method in self._method_calls[1]

    def self_calls(self, ref: str) -> set[str]:
        """Methods the consumer's class `ref` calls on itself (`self.m(...)`, `super().m(...)`)."""
        return set(self._self_call_table().get(ref, ()))

    def self_calls_of(self, method: str) -> set[str]:
        """The consumer classes that call `method` on themselves (`self.method(...)`)."""
        table = self.memo.get("self_callers")
        if table is None:
            table = self.memo["self_callers"] = {}
            for cref, methods in self._self_call_table().items():
                for m in methods:
                    table.setdefault(m, set()).add(cref)
        return set(table.get(method, ()))

    def module_ir(self, mod: dict[str, Any]) -> dict[str, Any]:
        """A consumer module's IR, decoded once per check (it is kept as bytes until asked; the
        rules that read it ask for the same module again and again)."""
        memo = self.memo.setdefault("module_ir", {})
        ir = memo.get(id(mod))
        if ir is None:
            ir = memo[id(mod)] = ir_of(mod)
        return ir

    def self_handed(self, ref: str) -> set[str]:
        """Names the consumer's class `ref` reads on itself without calling them there
        (`{"weight_loader": self.weight_loader}`): a bound method handed on is called later."""
        table = self.memo.get("self_reads")
        if table is None:
            table = self.memo["self_reads"] = {}
            for mod in self.usage:
                for rec in mod.get("uses") or []:
                    path = rec.get("path") or []
                    if rec.get("kind") == "attr" and len(path) == 2 and str(path[1]).startswith(".") \
                            and str(path[0]).startswith("self:"):
                        table.setdefault(path[0][5:], set()).add(path[1][1:])
        return set(table.get(ref, ()))

    def _self_call_table(self) -> dict[str, set[str]]:
        table = self.memo.get("self_calls")
        if table is None:
            table = self.memo["self_calls"] = {}
            for mod in self.usage:
                for rec in mod.get("calls") or []:
                    path = (rec.get("callee") or {}).get("path") or rec.get("path") or []
                    if len(path) == 2 and path[1].startswith("."):
                        kind, _, cref = path[0].partition(":")
                        if kind in ("self", "super"):
                            table.setdefault(cref, set()).add(path[1][1:])
        return table

    def kw_value(self, rc: ResolvedCall, name: str) -> str | None:
        return (rc.rec.get("kw_values") or {}).get(name)


def _module_call(index: PackageIndex | None, v: Value | None) -> Value | None:
    """A call of an instance of a layer built on `torch.nn.Module` (`self.kernel(x, inplace=...)`,
    `layer(h)`) is a call of its `forward`, which `nn.Module.__call__` hands the arguments to:
    the bound `forward` stands for the instance, so the signature rules judge the call."""
    if index is not None and v is not None and v.kind == "external" and v.via == "loaded-model":
        # a model the target's loader returned (`self.model(input_ids=..., ...)`): the `forward` its
        # protocol declares (analysis/model_protocols.py)
        forward = protocol_member(index, "forward")
        return Value("method", sym=forward, cls=forward.owner) if forward is not None else v
    if index is None or v is None or v.kind != "instance" or v.cls is None:
        return v
    forward = forward_of(index, v.cls)
    return Value("method", sym=forward, cls=v.cls) if forward is not None else v


def _callable(index: PackageIndex | None, v: Value | None):
    """(symbol, parameters as the call binds them, where they are defined, is_constructor).

    Memoised per index, kind and symbol: the consumer calls the same few hundred callables
    thousands of times (vllm_ascend: 746 of 2,221), and a constructor walks the MRO."""
    if index is None or v is None or v.sym is None or v.kind not in _CALLABLE_KINDS:
        return None, None, None, False
    sym = v.sym
    memo = index.__dict__.setdefault("_callable_memo", {})
    key = (v.kind, sym.dotted)
    hit = memo.get(key)
    if hit is None or hit[0] is not sym.facts:
        hit = memo[key] = (sym.facts, _binding(index, v.kind, sym))
    params, at, ctor = hit[1]
    if params is None:
        return None, None, None, False
    return sym, list(params), sym if at is _SELF else at, ctor


def _with_own_fields(index: PackageIndex, base: Symbol, fields: list[tuple[str, int]]):
    """The base's constructor parameters, and where they are defined; a base built from its
    fields (dataclass, struct, pydantic) also takes the subclass's own fields, as optional
    keywords (their defaults are not modelled: a missing one is the consumer's own concern)."""
    params, at = index.constructor(base)
    if at is not None and at.kind == "class":
        return _plus_fields(params, fields), at
    return list(params), at


def _plus_fields(params, fields: list[tuple[str, int]]) -> list[Param]:
    """`params` and then each of `fields` it lacks, as an optional keyword."""
    have = {p.name for p in params}
    return list(params) + [Param(name=n, kind="POSITIONAL_OR_KEYWORD", required=False, default="...", annotation=None,
                                 line=line, source="field") for n, line in fields if n not in have]


def _dataclass_init(index: PackageIndex, base: Symbol, fields: list[tuple[str, int]]):
    """A consumer dataclass's generated `__init__` over a target base: the base's fields when
    the base is itself built from fields (a dataclass), then the consumer's own; a plain base's
    `__init__` is not called by it, so its parameters do not count. (params, where the target's
    part is defined; None when the target contributes nothing)."""
    params, at = index.constructor(base)
    if at is None or at.kind != "class":
        params, at = [], None
    return _plus_fields(params, fields), at


_CALLABLE_KINDS = frozenset({"class", "method", "function", "unbound"})
_SELF = object()  # the parameters are the symbol's own (memoised apart from the symbol object)


def _binding(index: PackageIndex, kind: str, sym: Symbol) -> tuple[list[Param] | None, Any, bool]:
    if kind == "class":
        if index.is_typeddict(sym):
            return None, None, False  # a TypedDict call builds a dict: nothing is checked at run time
        params, at = index.constructor(sym)
        return params, at, True
    fn = sym.as_function
    params = fn.params
    if kind == "method":  # bound: self is supplied by Python
        return (params[1:] if params else params), _SELF, False
    # a static/class method or a plain function: as written
    if kind == "function" and sym.kind == "method" and "classmethod" in fn.decorators:
        params = params[1:]
    return params, _SELF, False
