"""Which of the target's own call sites of a method can run on the consumer's object.

DRIFT070 holds a consumer override (or a function patched over a target method) to how the
target now calls that name (`_call_sites` in reach.py: every `x.name(...)` with the class and
method it sits in and, where the facts say, its receiver). A call the consumer's object never
receives is no evidence, and counting it was the largest source of false DRIFT070 findings on
platform plugins, which subclass vLLM's worker, runner and executor together. A site is left out
when Python's dispatch rules say it cannot reach the consumer's method:

- it sits in a method of the target's default class that the consumer has the target replace
  by its own (`worker_cls` names the plugin's worker, which does not extend vLLM's GPU worker);
- it sits in a target method the consumer replaces outright by assignment (`Cls.m = my_m`, not
  keeping the original to call it: `patched_away`);
- it sits in a target method every consumer subclass of that target class overrides without
  delegating to it (`super().f(...)`, `Base.f(self, ...)`): the consumer's own method runs in
  its place wherever the consumer's classes are used (a plugin's executor overriding the method
  that spawns workers silences the spawn call for the plugin's worker class too);
- it sits in a method of a target class that only the default class the consumer replaces builds
  (`worker_cls`: the GPU worker builds the GPU model runner; that worker's target subclasses
  count as it), nor any consumer class extends: on the consumer's platform no such object exists
  (`built_only_for_replaced`; a module writing the class's constructor where the facts place no
  such build keeps the site);
- it sits in a target method all of whose own callers in the target are methods of these kinds
  (three callers deep), and whose name the target never writes as a string (as a dispatch by
  name would);
- its receiver is `self` (or its delegation to its base: a call of `m` inside the class's own
  `m`, on no attribute, in a subclass of the class that declares `m`) in a target class the
  consumer's class does not inherit from: that `self` is another class's object;
- its receiver is another attribute of the object (`self.drafter.m(...)`) in code the
  consumer's class inherits, unless the target types that attribute as a class related to the
  consumer's (then it may be the consumer's object after all); an attribute the target types as
  an unrelated class is not the consumer's object anywhere.

Everything else is kept: a site whose receiver the facts do not name may reach the consumer.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.paths import BUILT_INSTEAD_OF
from drift.model.index import Symbol, call_of, word

RECEIVER = 7  # index of the receiver in a call-site row: "self", "self.<attr>", "super" or None


def receiver_of(line: int, name: str, fn_name: str, owner: str | None, self_calls: dict,
                held_calls: dict) -> str | None:
    """What a target call `.name(...)` at `line` is made on, from its function's facts."""
    if line in (self_calls.get(name) or ()):
        return "self"
    for holder, methods in held_calls.items():
        if methods.get(name) == line:
            return holder
    if owner is not None and name == fn_name and not any(name in m for m in held_calls.values()):
        return "super"  # `m` called inside the class's own `m`, on nothing it holds: its base's
    return None


def mro_names(index, classes: Iterable[Symbol]) -> frozenset[str]:
    """Every target class whose methods run with `self` an object of one of `classes`."""
    return frozenset(o.dotted for c in classes for o in index.mro(c))


def reaches(ctx: CheckContext, site: list[Any], inherited: frozenset[str] | None,
            declared: str | None = None, callers_of: Callable[[str], list] | None = None) -> bool:
    """Whether the target call `site` can run on an object whose target classes are `inherited`
    (the MRO names of the consumer's class). None for a function patched over a target method:
    every object of that class and its subclasses runs it, so only overridden callers are cut.
    `declared`: the target class whose method is overridden; a call of `m` inside `m` on no
    attribute is that class's delegation to its base only where the caller's class extends it
    (elsewhere it is a call on a local object: `for manager in ...: manager.m(...)`).
    `callers_of(name)`: the target's call sites of `.name(...)`, to follow a method whose every
    caller never runs for the consumer (then it does not either).

    Memoised per check by what the answer reads of the site (its owner, method and receiver):
    DRIFT070 asks it for every target call site of every overridden method, and the consumer's
    classes that share their target bases ask the same sites again (vllm-omni 0.22: 13,668 asks,
    6,260 distinct). Every question it asks on the way is memoised per check already, so a
    repeated ask has the first one's answer; `callers_of` is always the target's call sites of a
    name (`_sites_of(ctx.target, n, None)`), so only whether it is given is part of the key."""
    owner = site[5] if len(site) > 5 else None
    if owner is None:
        return True
    recv = site[RECEIVER] if len(site) > RECEIVER else None
    memo = ctx.memo.setdefault("callers.reaches", {})
    key = (owner, site[6], recv, inherited, declared, callers_of is None)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _reaches(ctx, site, owner, recv, inherited, declared, callers_of)
    return hit


def _reaches(ctx: CheckContext, site: list[Any], owner: str, recv: str | None, inherited: frozenset[str] | None,
             declared: str | None, callers_of: Callable[[str], list] | None) -> bool:
    """`reaches` for a call in the target class `owner` on `recv`."""
    if not runs_for_consumer(ctx, site, callers_of):
        return False
    if inherited is None:  # a function patched over `declared`'s method: any object of its family runs it
        if recv == "super" and declared is not None:  # `super().m()` in `owner` runs a base of `owner`'s
            return declared in _mro_of(ctx, owner)
        if recv == "self" and declared is not None:  # `self.m()` in `owner` runs on `owner`'s subclasses too
            return declared in _mro_of(ctx, owner) or owner in _mro_of(ctx, declared)
        return True
    if recv == "super" and (declared is None or declared not in _mro_of(ctx, owner)):
        return True
    if recv in ("self", "super"):
        return owner in inherited
    if recv is not None and recv.startswith("self."):
        held = attribute_class(ctx, owner, recv[5:])
        if held is None:
            return owner not in inherited  # an attribute of the consumer's own object: another object
        return held.dotted in inherited  # an object of a class the consumer's class extends
    return True


def runs_for_consumer(ctx: CheckContext, site: list[Any], callers_of: Callable[[str], list] | None = None) -> bool:
    """Whether the target method a call `site` sits in can run where the consumer's classes are
    used: not one the consumer overrides without delegating, not one whose every caller never
    runs (`callers_of`), not one of a class only a default class the consumer replaces builds.
    Says nothing of what the call is made on."""
    owner = site[5] if len(site) > 5 else None
    if owner is None:
        return True
    if (owner, site[6]) in overridden_for_consumer(ctx):
        return False
    if callers_of is not None and _never_runs(ctx, owner, site[6], callers_of, 0):
        return False
    return not built_only_for_replaced(ctx, owner)


def _never_runs(ctx: CheckContext, owner: str, name: str, callers_of: Callable[[str], list], depth: int) -> bool:
    """A target method whose every call in the target (`.name(...)`, at least one) sits in a
    method that never runs for the consumer's objects (overridden, a replaced default class's,
    or one that never runs itself, three callers deep), and whose name the target never writes
    as a string (a method dispatched by name, `collective_rpc("name")`, or looked up with
    getattr, has callers no call site shows)."""
    if (owner, name) in overridden_for_consumer(ctx):
        return True
    if depth >= 3 or name.startswith("__"):
        return False
    if _consumer_runs_itself(ctx, owner, name):
        return False
    memo = ctx.memo.setdefault("callers.never_runs", {})
    key = (owner, name)
    if key in memo:
        return memo[key]
    memo[key] = False  # a cycle of callers counts as running
    sites = callers_of(name)
    dead = bool(sites) and all(s[5] is not None and _never_runs(ctx, s[5], s[6], callers_of, depth + 1)
                               for s in sites) and not _named_in_text(ctx, name)
    memo[key] = dead
    return dead


def _consumer_runs_itself(ctx: CheckContext, owner: str, name: str) -> bool:
    """Whether a consumer class extending the target class `owner` calls the inherited `name` on
    itself (`self._execute_local(x)` in its own `execute`, which overrides the target's caller
    without delegating): the target's method runs for the consumer's object although every caller
    the target has was overridden."""
    for ref in ctx.self_calls_of(name):
        if owner in mro_names(ctx.target, ctx.target_paths.target_bases(ref)):
            return True
    return False


def _named_in_text(ctx: CheckContext, name: str) -> bool:
    """The target writes `name` as a string literal somewhere (or its sources are not here)."""
    if not ctx.target.has_sources:
        return True
    memo = ctx.memo.setdefault("callers.named_in_text", {})
    if name not in memo:
        memo[name] = ctx.target.writes_quoted(name)
    return memo[name]


def _mro_of(ctx: CheckContext, dotted: str) -> frozenset[str]:
    """The MRO names of the target class `dotted` (empty when the target has no such class)."""
    memo = ctx.memo.setdefault("callers.mro", {})
    if dotted not in memo:
        sym = ctx.target.lookup(dotted)
        memo[dotted] = mro_names(ctx.target, [sym]) if sym is not None and sym.kind == "class" else frozenset()
    return memo[dotted]


def attribute_class(ctx: CheckContext, owner: str, attr: str) -> Symbol | None:
    """The class the target types `self.<attr>` of `owner` objects as (None when untyped)."""
    memo = ctx.memo.setdefault("callers.attr_class", {})
    key = (owner, attr)
    if key not in memo:
        v = ctx.target_paths.value((f"sym:{owner}", "()", f".{attr}"))
        memo[key] = v.cls if v.kind == "instance" and v.cls is not None else None
    return memo[key]


def overridden_for_consumer(ctx: CheckContext) -> frozenset[tuple[str, str]]:
    """(target class, method) pairs whose own code never runs for the consumer's objects: every
    consumer class that inherits the target class defines the method itself (or a consumer base
    does) and does not delegate to the target's."""
    out = ctx.memo.get("callers.overridden")
    if out is not None:
        return out
    delegating = _delegating(ctx)
    heirs: dict[str, list[str]] = {}  # target class -> consumer classes inheriting it
    for ref in ctx.consumer.classes:
        for dotted in mro_names(ctx.target, ctx.target_paths.target_bases(ref)):
            heirs.setdefault(dotted, []).append(ref)
    found = set(_replaced_defaults(ctx, heirs)) | patched_away(ctx)
    for dotted, refs in heirs.items():
        sym = ctx.target.lookup(dotted)
        if sym is None or sym.as_class is None:
            continue
        for m in sym.as_class.methods:
            if m.startswith("__"):
                continue
            if all(_runs_own(ctx, ref, m, delegating) for ref in refs):
                found.add((dotted, m))
    out = ctx.memo["callers.overridden"] = frozenset(found)
    return out


def patched_away(ctx: CheckContext) -> set[tuple[str, str]]:
    """(target class, method) the consumer replaces outright with a function of its own
    (`GPUModelRunner._reshape_kv_cache_tensors = my_reshape`): the target's own body never runs
    again, for any object, so the calls written in it reach nothing. Left out (the original may
    still run): a replacement whose module reads the original (`orig = Cls.m`, saved to be called),
    one that calls a target function of that name, dunders (`__init__` patches usually chain), and
    a lambda or a value drift cannot follow."""
    memo = ctx.memo.get("callers.patched_away")
    if memo is not None:
        return memo
    out: set[tuple[str, str]] = set()
    ctx.memo["callers.patched_away"] = out
    for mod in ctx.usage:
        for p in mod.get("patches") or []:
            value, name, path = p.get("value") or {}, p.get("name"), p.get("path")
            home, fn = _replacement(ctx, mod, value)
            if not fn or fn == "<lambda>" or not isinstance(name, str) or name.startswith("__") or not path:
                continue
            owner = ctx.target_paths.value(tuple(path))
            if owner.sym is None or owner.sym.kind != "class" or ctx.target.lookup(f"{owner.sym.dotted}.{name}") is None:
                continue
            if _reads_original(mod, list(path), name, p.get("line")) or _calls_named(ctx, home, fn, name):
                continue
            out.add((owner.sym.dotted, name))
    return out


def _replacement(ctx: CheckContext, mod: dict, value: dict) -> tuple[dict, str | None]:
    """(the module record defining the replacement, its qualname): a function of the patching
    module, or one it imports from another module of the consumer (`from .runner import f`)."""
    if value.get("function"):
        return mod, value["function"]
    path = value.get("path") or []
    if len(path) != 1 or not isinstance(path[0], str) or not path[0].startswith("sym:"):
        return mod, None
    module, _, fn = path[0][4:].rpartition(".")
    home = ctx.consumer.modules.get(module)
    if home is None or f"{module}.{fn}" not in ctx.consumer.inferred.signatures:
        return mod, None
    return home, fn


def _reads_original(mod: dict, owner: list, name: str, line: Any) -> bool:
    """The module reads `Owner.name` somewhere else than the patch: the original is kept to be called."""
    want = owner + [f".{name}"]
    return any(u.get("path") == want and u.get("line") != line for u in mod.get("uses") or ())


def _calls_named(ctx: CheckContext, mod: dict, fn: str, name: str) -> bool:
    """The replacement (or a function nested in it) calls something named `name`, or a target
    function of that name: it may hand the call on to the original."""
    for rec in mod.get("calls") or ():
        where = rec.get("function") or ""
        if where != fn and not where.startswith(fn + "."):
            continue
        path = rec.get("path") or (rec.get("callee") or {}).get("path") or []
        if path and path[-1] == f".{name}":
            return True
        v = ctx.target_paths.value(tuple(path)) if path else None
        if v is not None and v.sym is not None and v.sym.dotted.rsplit(".", 1)[-1] == name:
            return True
    return False


def _replaced_defaults(ctx: CheckContext, heirs: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    """(class, method) of a target default class the consumer has the target build its own class
    instead of (a platform's `worker_cls`), where no consumer class extends that default: none
    of its own methods runs (its base's, shared with the consumer's class, still may)."""
    for key, defaults in BUILT_INSTEAD_OF.items():
        if not ctx.consumer.inferred.named.get(key):
            continue
        sym = next((s for s in map(ctx.target.lookup, defaults) if s is not None and s.kind == "class"), None)
        if sym is None or heirs.get(sym.dotted):
            continue
        for m in sym.as_class.methods:
            if not m.startswith("__"):
                yield sym.dotted, m


def _runs_own(ctx: CheckContext, ref: str, name: str, delegating: set[tuple[str, str]],
              seen: set[str] | None = None) -> bool:
    """Whether the consumer class `ref` (or the first consumer base defining `name`) has its
    own `name` that does not hand the call on to the target's."""
    seen = seen if seen is not None else set()
    if ref in seen:
        return False
    seen.add(ref)
    cls = ctx.consumer.classes.get(ref) or {}
    if name in (cls.get("methods") or {}):
        return (ref, name) not in delegating
    if name in (cls.get("class_attrs") or {}):
        return False  # an alias of something else: may be the target's own
    for b in cls.get("bases") or []:
        if b and len(b) == 1 and b[0].startswith("sym:") and b[0][4:] in ctx.consumer.classes:
            if _runs_own(ctx, b[0][4:], name, delegating, seen):
                return True
    return False


def runs_own(ctx: CheckContext, ref: str, name: str) -> bool:
    """Whether the consumer class `ref` has its own `name` (or a consumer base does) that never
    hands the call on to the target's: only then are the target's calls inside that method gone
    for `ref`'s objects (an override that calls `super().name(...)` on some path still runs them)."""
    return _runs_own(ctx, ref, name, _delegating(ctx))


def _delegating(ctx: CheckContext) -> set[tuple[str, str]]:
    """(consumer class, method) where the method calls its base's own: `super().m(...)`,
    `Base.m(self, ...)`."""
    memo = ctx.memo.get("callers.delegating")
    if memo is not None:
        return memo
    out: set[tuple[str, str]] = set()
    ctx.memo["callers.delegating"] = out
    for mod in ctx.usage:
        prefix = mod.get("module") or ""
        for rec in mod.get("calls") or []:
            fn = rec.get("function") or ""
            if "." not in fn:
                continue
            qual_cls, name = fn.rsplit(".", 1)
            callee = rec.get("callee") or {}
            path = rec.get("path") or callee.get("path") or []
            if callee.get("via") == "super" and callee.get("method") == name:
                out.add((f"{prefix}.{qual_cls}", name))
            elif path and path[-1] == f".{name}" and path[0].startswith("sym:") and len(path) == 2:
                out.add((f"{prefix}.{qual_cls}", name))
    return out


def gone_base(ctx: CheckContext, ref: str) -> str | None:
    """A target class the consumer class `ref` names as a direct base that the target no longer
    defines under any name: the class cannot be built as written, and where the consumer hands it
    to the target as the replacement for that class (an out-of-tree op registered by the base's
    name), the target never asks for it. Its overrides' mismatches are then at most risky: the
    break is the base, reported at the import."""
    if ctx.baseline_paths is None:
        return None
    memo = ctx.memo.setdefault("callers.gone_base", {})
    if ref in memo:
        return memo[ref]
    memo[ref] = None
    for b in (ctx.consumer.classes.get(ref) or {}).get("bases") or []:
        if not b or len(b) != 1 or not b[0].startswith("sym:"):
            continue
        old = ctx.baseline_paths.value(tuple(b))
        if old.kind != "class" or old.sym is None:
            continue
        if ctx.target.lookup(old.sym.dotted) is None and not ctx.target.definitions_named(old.sym.dotted.rsplit(".", 1)[-1]):
            memo[ref] = old.sym.dotted
            break
    return memo[ref]


def built_only_for_replaced(ctx: CheckContext, owner: str) -> bool:
    """Whether the target class `owner` is built only by target classes that never run for the
    consumer: the default class the consumer has the target replace by its own (a platform's
    `worker_cls`) and that default's target subclasses, none of which the consumer extends. Then
    `owner`'s methods never run either (the GPU worker's model runner, on a platform that names its
    own worker), so their calls are no evidence against the consumer's classes. Objects of
    `owner`'s target subclasses count as `owner`'s. A module that writes `Owner(...)` where the
    facts place no such build in one of those classes keeps it running: unknown is not never."""
    memo = ctx.memo.setdefault("callers.built_only_for_replaced", {})
    if owner not in memo:
        memo[owner] = _built_only_for_replaced(ctx, owner)
    return memo[owner]


def _replaced_families(ctx: CheckContext) -> tuple[frozenset[str], frozenset[str]]:
    """(the target default classes the consumer replaces and does not extend, every target class
    a consumer class extends)."""
    out = ctx.memo.get("callers.replaced_families")
    if out is None:
        extended = frozenset(d for ref in ctx.consumer.classes
                             for d in mro_names(ctx.target, ctx.target_paths.target_bases(ref)))
        found = set()
        for key, defaults in BUILT_INSTEAD_OF.items():
            if not ctx.consumer.inferred.named.get(key):
                continue
            sym = next((s for s in map(ctx.target.lookup, defaults) if s is not None and s.kind == "class"), None)
            if sym is not None and sym.dotted not in extended:
                found.add(sym.dotted)
        out = ctx.memo["callers.replaced_families"] = (frozenset(found), extended)
    return out


def _built_only_for_replaced(ctx: CheckContext, owner: str) -> bool:
    families, extended = _replaced_families(ctx)
    if not families or not ctx.target.has_sources:
        return False
    short = owner.rsplit(".", 1)[-1]
    subclasses = ctx.target.query("class_builders.v2", "s:" + owner, needle=word(short), build=_class_builders,
                                  default=[])
    found_builder = False
    for cls in [owner, *subclasses]:
        if cls in extended or cls in families:
            return False
        name = cls.rsplit(".", 1)[-1]
        builds = ctx.target.query("class_builders.v2", "n:" + name, needle=word(name), build=_class_builders,
                                  default=[])  # [builder class or "" (a function), module, built class]
        for builder, _module, built in builds:
            if built != cls or builder == "<defines>":
                continue
            found_builder = True
            sym = ctx.target.lookup(builder) if builder else None
            if sym is None or sym.kind != "class" or builder in extended or not (mro_names(ctx.target, [sym]) & families):
                return False
        # every module writing `Name(...)` (but the ones defining a class of that name) must be one where
        # a class of the replaced family builds a class of that name: else a build the facts did not see
        placed = {module for builder, module, _built in builds
                  if builder and builder != "<defines>" and (b := ctx.target.lookup(builder)) is not None
                  and mro_names(ctx.target, [b]) & families}
        defining = {module for b, module, _built in builds if b == "<defines>"}
        if any(m not in placed and m not in defining for m in ctx.target.source_search(call_of(name))):
            return False
    return found_builder


def _class_builders(index, modules: Iterable[str]) -> dict[str, list]:
    """"n:<short name>" -> [builder, module, built class] for every build of a class of that short
    name in these modules (`self.x = C(...)`, `x = C(...)`; builder: the target class whose method
    builds it, "" for a module-level function) and ["<defines>", module, class] where a module
    defines a class of that name; "s:<class>" -> its target subclasses."""
    from drift.model.facts import ModuleFacts

    out: dict[str, set] = {}

    def resolve(mod_name: str, text: str) -> str | None:
        for cand in (text, index.dotted_in(mod_name, text), f"{mod_name}.{text}"):
            sym = index.lookup(cand)
            if sym is not None and sym.kind == "class":
                return sym.dotted
        return None

    def add_builds(mod_name: str, fn, owner: str) -> None:
        beh = fn.behaviour
        names = [n for ns in beh.builds.values() for n in ns]
        names += [kind[5:] for kind in beh.self_types.values() if isinstance(kind, str) and kind.startswith("call:")]
        for n in names:
            built = resolve(mod_name, n)
            if built:
                out.setdefault("n:" + built.rsplit(".", 1)[-1], set()).add((owner, mod_name, built))

    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.functions.values():
            add_builds(mod_name, fn, "")
        stack = [(f"{mod_name}.{n}", c) for n, c in mod.classes.items()]
        while stack:
            dotted, c = stack.pop()
            stack.extend((f"{dotted}.{n}", sub) for n, sub in c.nested.items())
            out.setdefault("n:" + dotted.rsplit(".", 1)[-1], set()).add(("<defines>", mod_name, dotted))
            for base in c.bases:
                b = resolve(mod_name, base)
                if b:
                    out.setdefault("s:" + b, set()).add(dotted)
            for m in c.methods.values():
                add_builds(mod_name, m, dotted)
    return {k: sorted(v) for k, v in out.items()}


def called_name(call: dict) -> str | None:
    """The method name a consumer call record calls (`x.name(...)`), if it is one."""
    callee = call.get("callee") or {}
    if callee.get("method"):
        return callee["method"]
    src = call.get("callee_src") or ""
    return src.rsplit(".", 1)[-1] if "." in src else None


def consumer_runs_name(ctx: CheckContext, name: str, *, by_source: bool = True) -> bool:
    """The consumer calls `.name(...)` from a function of another name (`by_source`: the method
    read off the callee's source text as well, and dispatches by name, `rpc("name")`; else only
    calls the probe resolved to a method record). A call of `name` made inside a function of that
    very name is the override handing on to its base (`super().name(...)`): it runs only when the
    override does, so it is no caller of it."""
    memo = ctx.memo.setdefault("callers.consumer_runs_name", {})
    key = (name, by_source)
    if key not in memo:
        memo[key] = any(
            ((called_name(call) if by_source else (call.get("callee") or {}).get("method")) == name
             and (call.get("function") or "").rsplit(".", 1)[-1] != name)
            or (by_source and call.get("name_arg") == name)
            for mod in ctx.usage if isinstance(mod, dict) for call in mod.get("calls") or ())
    return memo[key]


def target_runs_on(ctx: CheckContext, sites: list[list[Any]], inherited: frozenset[str] | None) -> bool:
    """Whether one of the target's call sites of a name can run on an object whose target
    classes are `inherited` (None: no class known, every site counts): a `self.m()` in a target
    class the consumer's class does not extend is another class's call of its own `m`."""
    return any(inherited is None or reaches(ctx, s, inherited) for s in sites)

