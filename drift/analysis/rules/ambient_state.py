"""DRIFT098: a target callable the consumer calls now needs ambient state its caller never sets.

vLLM keeps some state as module globals a context manager sets for the duration of a block
(`with set_current_X(x): ...`) and a getter that refuses to run without it (`get_current_X()`
asserting `_current_X is not None`). vLLM's own code calls its functions inside that context;
when a release makes a function reach such a getter where it did not (a weight loader now reads
the current configuration), a consumer calling the function from its own code, outside any
context of that state, fails with the getter's AssertionError although nothing it calls changed
its signature.

Read from facts (`+amb`, probes/behaviour.py): each function's calls of plain names with no
arguments (`bare_calls`), the module names it fails on when they are None (`unset_checks`: a
getter, recognised by what it does, never by its name), and the names it declares `global`
(`globals_set`: a setter). For each consumer call of a target function or method, the getters its
callee reaches on each side (its own body, and up to two levels down through the module functions
it calls by plain name and the methods it calls on `self`, resolved through its class's MRO) are
compared: a getter of state `G` reached on the target and not on the baseline is reported, risky,
unless the consumer's function making the call also calls a target function that sets `G` (a
`with set_X(...)` around it). A context entered in another function of the consumer does not
count: a platform's worker commonly enters it around one step (compiling) and not another
(loading), and vLLM's own callers of the consumer's method are not known to enter it either.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, ResolvedCall
from drift.analysis.rules.base import rule
from drift.analysis.torch_module import is_module_base
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, word

_DEPTH = 2  # call levels followed below the function the consumer calls


def _callable(sym: Symbol | None) -> bool:
    return sym is not None and sym.kind in ("function", "method")


def _getters(index: PackageIndex, sym: Symbol, depth: int = _DEPTH,
             seen: set[str] | None = None) -> dict[str, Symbol]:
    """state name -> the getter `sym` reaches (directly or `depth` levels down) that fails when
    that state is unset."""
    seen = set() if seen is None else seen
    if sym.dotted in seen:
        return {}
    seen.add(sym.dotted)
    out: dict[str, Symbol] = {}
    beh = sym.as_function.behaviour
    for name in beh.bare_calls:
        callee = index.lookup(name) if "." in name else index.resolve_in(sym.module, name)
        if not _callable(callee) or callee.kind != "function":
            continue
        for state in callee.as_function.behaviour.unset_checks:
            out.setdefault(state, callee)
        if depth > 0:
            for state, getter in _getters(index, callee, depth - 1, seen).items():
                out.setdefault(state, getter)
    owner = sym.owner if sym.kind == "method" else None
    if owner is not None and depth > 0:
        for name in beh.self_calls:
            method = _method_in_mro(index, owner, name)
            if method is None:
                continue
            for impl in _implementations(index, method) if _abstract(method) else [method]:
                for state, getter in _getters(index, impl, depth - 1, seen).items():
                    out.setdefault(state, getter)
    return out


def _reached(index: PackageIndex, sym: Symbol) -> dict[str, Symbol]:
    """`_getters` of a callable the consumer calls, memoised per index (a consumer calls the same
    few hundred callables thousands of times)."""
    memo = index.__dict__.setdefault("_ambient_getters", {})
    hit = memo.get(sym.dotted)
    if hit is None:
        hit = memo[sym.dotted] = _getters(index, sym)
    return hit


def _abstract(method: Symbol) -> bool:
    """An `@abstractmethod`: what `self.m()` runs is a subclass's."""
    return any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in method.as_function.decorators)


def _implementations(index: PackageIndex, method: Symbol) -> list[Symbol]:
    """The subclasses' own definitions of an abstract method, in the modules that name its class
    (any of them may be the object the consumer holds)."""
    owner = method.owner
    name = method.dotted.rsplit(".", 1)[-1]
    if owner is None:
        return []
    memo = index.__dict__.setdefault("_ambient_implementations", {})
    if method.dotted in memo:
        return memo[method.dotted]
    out = memo[method.dotted] = []
    for cls in index.iter_classes(index.modules_mentioning(word(owner.dotted.rsplit(".", 1)[-1]))):
        m = cls.as_class.methods.get(name)
        if m is not None and cls.dotted != owner.dotted and owner.dotted in {c.dotted for c in index.mro(cls)}:
            out.append(Symbol(f"{cls.dotted}.{name}", "method", cls.module, cls.path, m.line, m.raw, cls))
    return out


def _method_in_mro(index: PackageIndex, cls: Symbol, name: str) -> Symbol | None:
    for c in index.mro(cls):
        m = c.as_class.methods.get(name)
        if m is not None:
            return Symbol(f"{c.dotted}.{name}", "method", c.module, c.path, m.line, m.raw, c)
    return None


def _states_set(ctx: CheckContext) -> dict[tuple[str, str], set[str]]:
    """(consumer module path, function) -> the module state its calls of target setters set
    (`with set_X(...)`): the context is entered around the call only in the same function."""
    out: dict[tuple[str, str], set[str]] = {}
    for rc in ctx.calls:
        if _callable(rc.target) and rc.target.as_function.behaviour.globals_set:
            key = (rc.module.get("path") or "", rc.rec.get("function") or "")
            out.setdefault(key, set()).update(rc.target.as_function.behaviour.globals_set)
    return out


@rule("DRIFT098", RuleKind.SEMANTIC, Severity.RISKY)
def call_needs_ambient_state(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer call of a target function or method that, on the target, reaches (itself or up
    to two calls down) a getter that fails when a module's state is unset, where the baseline's
    did not, and the consumer's function making the call never calls a target function that sets
    that state: the call now fails outside the context vLLM's own callers enter."""
    if ctx.baseline is None:
        return
    states_set: dict[tuple[str, str], set[str]] | None = None
    reported: set[tuple[str, int, str]] = set()
    for rc in list(ctx.calls) + list(_calls_on_results(ctx)):
        if rc.is_constructor or not _callable(rc.target) or not _callable(rc.baseline) or _built_by_target(ctx, rc):
            continue
        now = _reached(ctx.target, rc.target)
        if not now:
            continue
        before = _reached(ctx.baseline, rc.baseline)
        new = {s: g for s, g in now.items() if s not in before}
        if not new:
            continue
        if states_set is None:
            states_set = _states_set(ctx)
        for state, getter in sorted(new.items()):
            if not _setters(ctx.target, getter.module, state):
                continue  # state set for the process (an initialiser), not entered as a context
            site = rc.site
            key = (site.path, site.line, state)
            if state in states_set.get((rc.module.get("path") or "", rc.rec.get("function") or ""), ()) \
                    or key in reported:
                continue
            reported.add(key)
            how = f"`with {_setters(ctx.target, getter.module, state)[0]}(...)`"
            yield Finding(
                rule_id="DRIFT098", kind=RuleKind.SEMANTIC, severity=Severity.RISKY,
                title=f"`{_label(rc.target)}` now reaches `{getter.dotted.rsplit('.', 1)[-1]}()`, which fails unless "
                      f"{how} is entered (the baseline's did not)",
                consumer_site=site,
                target_evidence=(Location(getter.path, getter.line, symbol=getter.dotted),
                                 Location(rc.target.path, rc.target.line, symbol=rc.target.dotted)),
                baseline_evidence=(Location(rc.baseline.path, rc.baseline.line, symbol=rc.baseline.dotted),),
                predicted_failure=f"AssertionError from {getter.dotted.rsplit('.', 1)[-1]}() when `{state}` is unset",
                details=f"the target's `{rc.target.dotted}` reaches `{getter.dotted}`; nothing in the consumer sets "
                        f"`{state}`",
                fix=Fix(f"wrap the call in {how}, as the target's own callers do",
                        manual_reason="the value the context holds is the consumer's"),
                symbol=rc.target.dotted,
            )


def _calls_on_results(ctx: CheckContext) -> Iterator[ResolvedCall]:
    """`x = make_loader(...); x.load(...)`: a method called on what a target function returned,
    which `ctx.calls` leaves out (the receiver's type is a function's result): read as the path
    `make_loader().load` on each side, so the function's return annotation types it."""
    if ctx.baseline_paths is None:
        return
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            callee = rec.get("callee") or {}
            if "receiver" not in callee or "method" not in callee:
                continue
            recv = ctx.target.lookup(callee["receiver"])
            if recv is None or recv.kind != "function":
                continue
            path = (f"sym:{callee['receiver']}", "()", f".{callee['method']}")
            t = ctx.target_paths.value(path)
            b = ctx.baseline_paths.value(path)
            if t.sym is None or b.sym is None or t.sym.kind != "method" or b.sym.kind != "method":
                continue
            label = ".".join(t.sym.dotted.rsplit(".", 2)[-2:])
            yield ResolvedCall(rec, mod, label, t.sym.dotted, t.sym, b.sym, False, None, None, None, None)


def _label(sym: Symbol) -> str:
    """`Cls.m` for a method (`__init__` alone says nothing), the name for a function."""
    return ".".join(sym.dotted.rsplit(".", 2)[-2:]) if sym.kind == "method" else sym.dotted.rsplit(".", 1)[-1]


def _setters(index: PackageIndex, module: str, state: str) -> list[str]:
    """Context managers of the getter's module that declare `state` global: the ways to enter it.
    State only initialisers set (`init_distributed_environment`) is the process's, not a
    context a caller enters around a call, and is left out."""
    from drift.model.facts import ModuleFacts

    mod = ModuleFacts(index.modules.get(module) or {})
    return sorted(n for n, fn in mod.functions.items() if state in fn.behaviour.globals_set
                  and any(d.rsplit(".", 1)[-1] == "contextmanager" for d in fn.decorators))


def _built_by_target(ctx: CheckContext, rc: ResolvedCall) -> bool:
    """The call sits in the constructor of a consumer class that extends the target's class or a
    framework's the target builds with (a torch `Module`): such objects are parts
    the target builds itself (a model, its layers, a runner), inside the contexts it enters for
    building them (vLLM builds models under its configuration context so that layers read it
    when constructed)."""
    qual = rc.rec.get("function") or ""
    if not qual.endswith(".__init__") or not rc.module.get("module"):
        return False
    ref = f"{rc.module['module']}.{qual[:-len('.__init__')]}"
    return bool(ctx.target_paths.target_bases(ref)) or _extends_module(ctx, ref, set())


def _extends_module(ctx: CheckContext, ref: str, seen: set[str]) -> bool:
    """Whether a consumer class extends torch's `Module` (directly or through its own classes). A
    class whose bases are only the consumer's own or another library's (nnsight's `VLLM` wrapper,
    a `RemoteableMixin`) is the consumer's object, built by its own code, outside vLLM's contexts."""
    if ref in seen:
        return False
    seen.add(ref)
    for base in (ctx.consumer.classes.get(ref) or {}).get("bases") or ():
        head = str(base[0]) if base else ""
        if head.startswith("sym:"):
            dotted = head[4:] + "".join(str(p) for p in base[1:])
            if is_module_base(dotted) or _extends_module(ctx, dotted, seen):
                return True
    return False


RULES = [call_needs_ambient_state]
