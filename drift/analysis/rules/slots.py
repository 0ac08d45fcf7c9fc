"""Rules over consumer classes vLLM builds in a slot of its own: what the target now needs of them.

A plugin hands vLLM a class rather than an object: it registers it with a registry whose
parameter says what the class is taken for (`register_engine("delta", "pkg.mod", "Delta")`, the
parameter annotated `str | type[WeightTransferEngine]`), or names it in a configuration key that
names a class (`scheduler_config.scheduler_cls = DPScheduler`). vLLM then builds the class where
it would build its own and keeps the object in an attribute typed as that class
(`self.weight_transfer_engine: WeightTransferEngine | None`, `self.scheduler: SchedulerInterface`).
Nothing in the consumer calls the class's methods, so no call site of the consumer's shows what
the target now asks of it; the target's own uses of that attribute do.

The class is held to what its slot expects, as if it were a subclass of the slot's class:
- DRIFT082: a member the target now uses on the attribute that holds such objects (a call
  `self.h.m(...)` or a read in a branch test, `if self.h.x is not None:`), that the baseline did
  not use there and that the consumer's class (its own members, the `self.x` it sets, its bases'
  members, the target's included) does not have: AttributeError inside vLLM.
- DRIFT083: a class registered for a target class it does not extend (a duck-typed stand-in) that
  writes its own `__init__`: the target builds what it registers as the slot's class is built, so
  an `__init__` that took the baseline class's required arguments and cannot take the target's
  fails when vLLM builds it.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.paths import MIXED_INTO
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.callers import RECEIVER
from drift.analysis.rules.handed import _available
from drift.analysis.rules.reach import _members, _sites_of, stand_ins
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, Symbol, call_of, classes_in, def_of, word

OBJECT_HANDED = "an object of it handed to"  # how an object (not the class) reached the slot:
OBJECT_RETURNED = "an object of it returned by"  # the consumer built it, the target never does
ASSIGNED_OVER = "assigned over"  # a stand-in: its `__init__` is DRIFT070's (reach._replacement_findings)
_TYPE_OF = re.compile(r"\b(?:type|Type)\[\s*['\"]?([A-Za-z_][\w.]*)")
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_POS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _resolve_in(index: PackageIndex, module: str, text: str) -> Symbol | None:
    """The class a name written in `module` refers to: through its imports, or defined there."""
    for dotted in (index.dotted_in(module, text), f"{module}.{text}"):
        sym = index.lookup(dotted)
        if sym is not None and sym.kind == "class":
            return sym
    return None


def handed_param(index: PackageIndex, entry: dict[str, Any], paths=None) -> tuple[Symbol | None, Any]:
    """(the target callable, its parameter) that a `registered` entry's argument binds on one
    side: the callee by its dotted name, or a method of a target object (`callee_path`) by the
    path evaluator; (None, None) when either cannot be told."""
    if entry.get("callee_path"):
        value = paths.value(tuple(entry["callee_path"])) if paths is not None else None
        fn = value.sym if value is not None and value.kind in ("method", "function") else None
    else:
        fn = index.lookup(entry["callee"])
    if fn is None or fn.kind not in ("function", "method"):
        return None, None
    params = fn.as_function.params
    through_class = not entry.get("callee_path") and params and params[0].name == "self" \
        and not any(d.rsplit(".", 1)[-1] in ("classmethod", "staticmethod") for d in fn.as_function.decorators)
    if fn.kind == "method" and params and params[0].name in ("self", "cls") and not through_class:
        params = params[1:]  # bound: `Cls.m(obj, ...)` called through the class passes `self` itself
    slot = entry["arg"]
    if isinstance(slot, int):
        positional = [p for p in params if p.kind in _POS]
        param = positional[slot] if slot < len(positional) else None
    else:
        param = next((p for p in params if p.name == slot), None)
    return (fn, param) if param is not None else (None, None)


def _registered_for(index: PackageIndex, entry: dict[str, Any], paths=None) -> list[Symbol]:
    """The classes the target's parameter takes a registered class for: `type[X]` in the
    annotation of the parameter the class (or its module's name) was passed to (`X` for an object
    handed over)."""
    fn, param = handed_param(index, entry, paths)
    if param is None or not param.annotation:
        return []
    out = []
    texts = _held_names(param.annotation) if entry.get("instance") else _TYPE_OF.findall(param.annotation)
    for text in texts:
        sym = _resolve_in(index, fn.module, text)
        if sym is not None and all(s.dotted != sym.dotted for s in out):
            out.append(sym)
    return out


def _plugged(ctx: CheckContext, on_target: bool) -> Iterator[tuple[str, list[Symbol], bool, str]]:
    """(consumer class, the target classes its slot expects on one side, whether the class extends
    them, how it got there) for every class the consumer registers or names in a class key."""
    index = ctx.target if on_target else ctx.baseline
    paths = ctx.target_paths if on_target else ctx.baseline_paths
    if index is None or paths is None:
        return
    inferred = ctx.consumer.inferred
    seen: set[str] = set()
    # classes first, objects last: a class slot says what the target builds, an object's only
    # what it keeps (the same class may reach both)
    entries = [e for e in inferred.registered if not e.get("instance")] + \
        [e for e in inferred.registered if e.get("instance")]
    for entry in entries:
        if entry.get("instance"):
            break  # objects come after the other slots, below
        ref = entry["class"]
        if ref in seen or ref not in ctx.consumer.classes:
            continue
        expected = _registered_for(index, entry, paths)
        if expected:
            seen.add(ref)
            bases = {s.dotted for b in paths.target_bases(ref) for s in index.mro(b)}
            yield ref, expected, all(s.dotted in bases for s in expected), \
                f"registered with `{_short_callee(entry['callee'])}`"
    objects = []
    for ref, expected, how in _returned_for(ctx, index, paths):
        if how.startswith(OBJECT_RETURNED):
            objects.append((ref, expected, how))
        elif ref not in seen:
            seen.add(ref)
            bases = {s.dotted for b in paths.target_bases(ref) for s in index.mro(b)}
            yield ref, expected, all(s.dotted in bases for s in expected), how
    for key, refs in sorted(inferred.named.items()):
        if key in MIXED_INTO:
            continue  # mixed into the worker's bases, not built in a slot (VLLM004)
        for ref in refs:
            if ref in seen or ref not in ctx.consumer.classes:
                continue
            expected = paths.target_bases(ref)
            if expected:
                seen.add(ref)
                yield ref, expected, True, f"named in `{key}`"
    for dotted, ref, t, b in stand_ins(ctx):  # (d) assigned over a target class: built where it was
        if ref not in seen:
            seen.add(ref)
            yield ref, [t if on_target else b], False, f"{ASSIGNED_OVER} `{dotted}`"
    for entry in entries:  # (e) objects the consumer built and handed over, or returned
        ref = entry["class"]
        if not entry.get("instance") or ref in seen or ref not in ctx.consumer.classes:
            continue
        expected = _registered_for(index, entry, paths)
        if expected:
            objects.insert(0, (ref, expected, f"{OBJECT_HANDED} `{_short_callee(entry['callee'])}`"))
    for ref, expected, how in objects:
        if ref not in seen:
            seen.add(ref)
            bases = {s.dotted for b in paths.target_bases(ref) for s in index.mro(b)}
            yield ref, expected, all(s.dotted in bases for s in expected), how


def _short_callee(callee: str) -> str:
    return ".".join(callee.rsplit(".", 2)[-2:])


def _returned_for(ctx: CheckContext, index: PackageIndex, paths) -> Iterator[tuple[str, list[Symbol], str]]:
    """Consumer classes an override returns where the target's method it overrides is annotated
    `-> type[X]` (`get_builder_cls`, `get_impl_cls`): the target takes the class for an X. And
    classes whose objects it returns where that method is annotated `-> X`: the target keeps the
    object as an X (`get_connector() -> Connector`)."""
    inferred = ctx.consumer.inferred
    objects = getattr(inferred, "returned_objects", None) or {}
    for owner in sorted(ctx.consumer.classes):
        methods = (ctx.consumer.classes[owner].get("methods") or {})
        bases = paths.target_bases(owner)
        if not bases:
            continue
        for name in sorted(methods):
            refs = [r for r in inferred.returned.get(f"{owner}.{name}") or () if r in ctx.consumer.classes]
            made = [r for r in objects.get(f"{owner}.{name}") or () if r in ctx.consumer.classes]
            if not refs and not made:
                continue
            owner_sym = next((c for b in bases for c in index.mro(b) if c.as_class.methods.get(name) is not None), None)
            if owner_sym is None:
                continue
            decl = owner_sym.as_class.methods[name]
            if refs:
                expected = [sym for text in _TYPE_OF.findall(decl.returns or "")
                            for sym in [_resolve_in(index, owner_sym.module, text)] if sym is not None]
                expected = expected or _slot_of_implementations(index, owner_sym, name)
                for ref in refs:
                    if expected:
                        yield ref, expected, f"returned by `{owner.rsplit('.', 1)[-1]}.{name}`"
            if made and not _TYPE_OF.search(decl.returns or ""):
                kept = [sym for text in _held_names(decl.returns or "")
                        for sym in [_resolve_in(index, owner_sym.module, text)] if sym is not None]
                for ref in made:
                    if kept:
                        yield ref, kept, f"{OBJECT_RETURNED} `{owner.rsplit('.', 1)[-1]}.{name}`"


def _implementations(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[str]]]:
    """method name -> [[class, class its annotation says it returns]]: target methods annotated
    `-> type[X]`, by name (`FlashAttentionBackend.get_builder_cls -> type[FlashAttentionMetadataBuilder]`)."""
    out: dict[str, list[list[str]]] = {}
    for mod_name, _mod, dotted, c in classes_in(index, modules):
        for name, fn in c.methods.items():
            for text in _TYPE_OF.findall(fn.returns or ""):
                sym = _resolve_in(index, mod_name, text)
                if sym is not None:
                    out.setdefault(name, []).append([dotted, sym.dotted])
    return out


def _slot_of_implementations(index: PackageIndex, base: Symbol, name: str) -> list[Symbol]:
    """The slot class of a method the base declares without a return annotation
    (`get_builder_cls():  # -> Type[...]`): the nearest class that every class the target's own
    implementations in the base's subclasses are annotated to return extends."""
    rows = index.query("type_returns", name, needle=def_of(name), build=_implementations, default=[])
    returned = []
    for cls, ret in rows:
        impl, sym = index.lookup(cls), index.lookup(ret)
        if impl is not None and sym is not None and base.dotted in {c.dotted for c in index.mro(impl)}:
            returned.append(sym)
    if len(returned) < 2:
        return []  # one implementation says what it returns, not what the slot is
    common = set.intersection(*({c.dotted for c in index.mro(r)} for r in returned))
    first = next((c for c in index.mro(returned[0]) if c.dotted in common), None)
    return [first] if first is not None else []


# -- the attributes the target keeps such objects in, and what it uses on them -------------------
def _types_named(index: PackageIndex, module: str, kind: Any) -> set[str]:
    """The classes a `self_types` entry says an attribute holds: an annotation's names, or the
    return annotation of the function called to build it."""
    if not isinstance(kind, str):
        return set()
    if kind.startswith("ann:"):
        texts, where = _held_names(kind[4:]), module
    elif kind.startswith("call:"):
        fn = index.lookup(index.dotted_in(module, kind[5:])) or index.lookup(f"{module}.{kind[5:]}")
        if fn is None or fn.kind not in ("function", "method") or not fn.as_function.returns:
            return set()
        texts, where = _held_names(fn.as_function.returns), fn.module
    else:
        return set()
    out = set()
    for text in texts:
        sym = _resolve_in(index, where, text)
        if sym is not None:
            out.add(sym.dotted)
    return out


def _held_names(annotation: str) -> list[str]:
    """The classes an annotation says the value itself is: `X`, `X | None`, `Optional[X]`,
    `Union[X, Y]`, `"X"`, a generic `X[T]` as X; never what a container holds (`dict[str, X]`)."""
    out: list[str] = []
    for part in _top_level(annotation.strip().strip("'\""), "|"):
        part = part.strip().strip("'\"")
        head, _, inner = part.partition("[")
        head = head.strip()
        if head.rsplit(".", 1)[-1] in ("Optional", "Union") and inner.endswith("]"):
            for sub in _top_level(inner[:-1], ","):
                out += _held_names(sub)
        elif _NAME.fullmatch(head) and head != "None":
            out.append(head)
    return out


def _top_level(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _holders(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[Any]]]:
    """class dotted -> [[holder class, attribute, path, {member: [line, "call" | "read"]}]]: target
    classes that keep an object of that class in `self.<attribute>` (annotated so, or built by a
    function that returns one) and the members their methods use on it unguarded (calls, and reads
    in a branch test)."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name, mod, dotted, c in classes_in(index, modules):
        behaviours = [m.behaviour for m in c.methods.values()]
        typed: dict[str, set[str]] = {}
        for beh in behaviours:
            for attr, kind in beh.self_types.items():
                typed.setdefault(attr, set()).update(_types_named(index, mod_name, kind))
        for attr, classes in typed.items():
            used: dict[str, list[Any]] = {}
            for beh in behaviours:
                guarded = beh.probes.get("self." + attr) or {}
                for name, line in (beh.held_calls.get("self." + attr) or {}).items():
                    if name not in guarded:
                        used.setdefault(name, [line, "call"])
                for read, lines in beh.held_tests.items():
                    holder, _, name = read.partition(".")
                    if holder == attr and name not in guarded and lines:
                        used.setdefault(name, [lines[0], "read"])
            if used:
                for cls in sorted(classes):
                    out.setdefault(cls, []).append([dotted, attr, mod.path, used])
    return out


def _factories(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[str]]:
    """class dotted -> names of the module-level functions whose return annotation names it
    (`def FusedMoEFactory(...) -> FusedMoE`): a holder that builds its attribute with one of them
    (`self.experts = FusedMoEFactory(...)`) need not mention the class at all."""
    out: dict[str, list[str]] = {}
    for mod_name in modules:
        for fname, fn in ModuleFacts(index.modules[mod_name]).functions.items():
            if isinstance(fn.returns, str):
                for text in _held_names(fn.returns):
                    sym = _resolve_in(index, mod_name, text)
                    if sym is not None:
                        out.setdefault(sym.dotted, []).append(fname)
    return out


def _uses(index: PackageIndex, cls: Symbol) -> list[list[Any]]:
    """The holders of `cls` (`_holders`' rows). On demand the modules searched are those that name
    the class or call a function returning it, so a holder built through a factory is found as
    the whole package finds it."""
    short = cls.dotted.rsplit(".", 1)[-1]
    rows = list(index.query("slot_holders.v3", cls.dotted, needle=word(short), build=_holders, default=[]))
    if not index.demand:
        return rows  # the whole package answered at once
    for factory in sorted(set(index.query("slot_factories", cls.dotted, needle=word(short), build=_factories,
                                          default=[]))):
        rows += [row for row in index.query(f"slot_holders.v3@{factory}", cls.dotted, needle=call_of(factory),
                                            build=_holders, default=[]) if row not in rows]
    return rows


@rule("DRIFT082", RuleKind.INTERFACE_METHOD_MISSING)
def slot_member_missing(ctx: CheckContext) -> Iterator[Finding]:
    """A class the consumer registers with the target or names in a class key lacks a member the
    target now uses on the attribute where it keeps objects of that slot's class, and did not use
    in the baseline: vLLM raises AttributeError on the object it built from the consumer's class."""
    if ctx.baseline is None:
        return
    before = {ref: expected for ref, expected, _ext, _how in _plugged(ctx, on_target=False)}
    for ref, expected, extends, how in _plugged(ctx, on_target=True):
        have = _available(ctx, ctx.target, ref)
        if have is None:
            continue
        old: set[str] = set()
        for cls in before.get(ref) or []:
            old |= {name for row in _uses(ctx.baseline, cls) for name in row[3]}
        missing: dict[str, tuple[str, str, str, int, str]] = {}
        if extends and how.startswith((OBJECT_HANDED, OBJECT_RETURNED)):
            # an object of a subclass of the slot's class: it has everything the slot's class has;
            # what some holder uses beyond that (a new model's `self.quant_config.get_cache_scale`)
            # is that holder's own business with other objects, not the slot's contract
            continue
        for cls in expected:
            for holder, attr, path, used in _uses(ctx.target, cls):
                for name, (line, how_used) in sorted(used.items()):
                    if name not in have and name not in old and not name.startswith("__") \
                            and name not in missing:
                        missing[name] = (holder, attr, path, line, how_used)
        if not missing and not extends:  # no holder shows the slot's use: the slot class's new members
            yield from _duck_new_members(ctx, ref, expected, before.get(ref) or [], have, how)
        crec = ctx.consumer.classes[ref]
        init = (crec.get("methods") or {}).get("__init__")
        reads = sorted(n for n, m in missing.items() if m[4] == "read")
        calls = sorted(n for n in missing if n not in reads)
        if init is not None and reads:  # state: what the class's own `__init__` must set
            yield _member_finding(ctx, ref, crec, how, reads, missing, init["line"], init.get("col") or 0)
        else:
            calls = sorted(missing)
        if calls:  # methods: what the class body must define
            yield _member_finding(ctx, ref, crec, how, calls, missing, crec["line"], crec.get("col") or 0)


def _duck_new_members(ctx: CheckContext, ref: str, expected: list[Symbol], bexpected: list[Symbol],
                      have: set[str], how: str) -> Iterator[Finding]:
    """A duck-typed class (it does not extend its slot class) lacks a public method the slot class
    gained in the target, that the target now calls on something other than `self` and the
    baseline never called: risky, since which of those calls reach the consumer's object is not
    followed. Reported where the class defines the baseline member the new one most resembles
    (`cudagraph_support` -> `get_cudagraph_support()`), else at the class."""
    if len(expected) != 1 or len(bexpected) != 1:
        return
    tnew = _members(ctx.target, expected[0])
    bold = _members(ctx.baseline, bexpected[0])
    gained = sorted(n for n in tnew - bold if not n.startswith("_") and n not in have)
    if how.startswith((OBJECT_HANDED, OBJECT_RETURNED)):  # an object: what its class's objects answer
        gained = [n for n in gained if not _on_the_class(ctx.target, expected[0], n)]
    called = []
    for name in gained:
        sites = [s for s in _sites_of(ctx.target, name, None) or []
                 if (s[RECEIVER] if len(s) > RECEIVER else None) not in ("self", "super")]
        if sites and not _sites_of(ctx.baseline, name, None):
            called.append((name, sites[0]))
    if not called:
        return
    crec = ctx.consumer.classes[ref]
    mod = ctx.consumer.modules.get(crec["module"]) or {}
    short = crec["qual"].rsplit(".", 1)[-1]
    own = {**(crec.get("class_attrs") or {}), **(crec.get("methods") or {})}
    dropped = sorted(n for n in bold - tnew if n in own)
    names = [n for n, _site in called]
    close = difflib.get_close_matches(names[0], dropped, n=1, cutoff=0.6)
    line, col = (own[close[0]]["line"], own[close[0]].get("col") or 0) if close else (crec["line"], crec.get("col") or 0)
    listed = ", ".join(f"`{n}`" for n in names)
    base = expected[0].dotted.rsplit(".", 1)[-1]
    yield Finding(
        rule_id="DRIFT082", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.RISKY,
        title=f"`{short}` ({how}, standing in for `{base}` without extending it) lacks {listed}, new in the "
              f"target's `{base}`" + (f" where the baseline had `{close[0]}`" if close else ""),
        consumer_site=Location(mod.get("path") or "?", line, symbol=f"{ref}.{close[0]}" if close else ref,
                               col=col + 1),
        target_evidence=tuple(Location(site[0], site[1], symbol=f".{n}()") for n, site in called[:5]),
        predicted_failure=(f"AttributeError: '{short}' object has no attribute '{names[0]}'"
                           if how.startswith((OBJECT_HANDED, OBJECT_RETURNED))
                           else f"AttributeError: type object '{short}' has no attribute '{names[0]}'"),
        fix=Fix(f"implement {listed} in `{crec['qual']}` as `{base}` now defines it",
                manual_reason="what the member must return is the target's contract"),
        symbol=f"{expected[0].dotted}.{names[0]}",
        details=f"the target calls it on objects it does not name after the class: whether they are "
                f"`{short}`'s is not followed",
    )


def _on_the_class(index: PackageIndex, cls: Symbol, name: str) -> bool:
    """Whether `name` is a class or static method of `cls` (called on the class, such as a
    `make_empty()` constructor, not on the objects the consumer hands over)."""
    for owner in index.mro(cls):
        m = owner.as_class.methods.get(name)
        if m is not None:
            return any(d.rsplit(".", 1)[-1] in ("classmethod", "staticmethod") for d in m.decorators)
    return False


def _member_finding(ctx: CheckContext, ref: str, crec: dict, how: str, names: list[str],
                    missing: dict[str, tuple[str, str, str, int, str]], line: int, col: int) -> Finding:
    mod = ctx.consumer.modules.get(crec["module"]) or {}
    short = crec["qual"].rsplit(".", 1)[-1]
    holder, attr = missing[names[0]][0], missing[names[0]][1]
    listed = ", ".join(f"`{n}`" for n in names)
    state = all(missing[n][4] == "read" for n in names)
    return Finding(
        rule_id="DRIFT082", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.BREAKING,
        title=f"`{short}` ({how}) lacks {listed}: the target's `{holder.rsplit('.', 1)[-1]}` now uses "
              f"{'it' if len(names) == 1 else 'them'} on the `self.{attr}` it builds from the class",
        consumer_site=Location(mod.get("path") or crec.get("path") or "?", line,
                               symbol=f"{ref}.__init__" if state and line != crec["line"] else ref, col=col + 1),
        target_evidence=tuple(Location(missing[n][2], missing[n][3], symbol=f"{missing[n][0]}.{n}") for n in names),
        predicted_failure=f"AttributeError: '{short}' object has no attribute '{names[0]}'",
        fix=Fix(f"{'set' if state else 'implement'} {listed} in `{crec['qual']}`"
                f"{'.__init__' if state and line != crec['line'] else ''} (what the target's slot class provides)",
                manual_reason="what each member must hold or do is the target's contract"),
        symbol=f"{holder}.{names[0]}",
        details=f"{plural(len(names), 'member')} the target uses on `self.{attr}` and the baseline did not",
    )


# -- DRIFT083: the constructor of a duck-typed class the target builds ----------------------------
def _init_of(index: PackageIndex, cls: Symbol) -> list[Any] | None:
    """The slot class's `__init__` parameters (its own or inherited), without `self`."""
    for owner in index.mro(cls):
        m = owner.as_class.methods.get("__init__")
        if m is not None:
            return m.params[1:]
    return None


def _binds(params: list[list[Any]], positional: int, keywords: set[str]) -> bool:
    """Whether a consumer signature ([name, kind, optional], `self` first) takes a call of
    `positional` arguments and `keywords`."""
    params = params[1:]
    slots = [p for p in params if p[1] in _POS]
    if positional > len(slots) and not any(p[1] == "VAR_POSITIONAL" for p in params):
        return False
    taken = {p[0] for p in slots[:positional]}
    named = {p[0] for p in params if p[1] in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
    if any(k not in named or k in taken for k in keywords) and not any(p[1] == "VAR_KEYWORD" for p in params):
        return False
    return all(p[2] or p[0] in taken or p[0] in keywords or p[1] in ("VAR_POSITIONAL", "VAR_KEYWORD")
               for p in params)


def _call_shape(params) -> tuple[int, set[str]]:
    """How the target builds a slot class: its required positional parameters by position, its
    required keyword-only ones by name."""
    return (sum(1 for p in params if p.required and p.kind in _POS),
            {p.name for p in params if p.required and p.kind == "KEYWORD_ONLY"})


@rule("DRIFT083", RuleKind.OVERRIDE_INCOMPATIBLE)
def slot_init_mismatch(ctx: CheckContext) -> Iterator[Finding]:
    """A duck-typed class registered for a target class (the registry's parameter is
    `type[Base]`, the class does not extend Base) writes an `__init__` that takes the arguments
    the baseline's `Base.__init__` requires and not those the target's requires: the target builds
    every class it registers there as Base is built, so building the consumer's fails."""
    if ctx.baseline is None:
        return
    before = {ref: (expected, extends) for ref, expected, extends, _how in _plugged(ctx, on_target=False)}
    for ref, expected, extends, how in _plugged(ctx, on_target=True):
        bexp, bextends = before.get(ref) or ([], True)
        if extends or bextends or len(expected) != 1 or len(bexp) != 1 \
                or how.startswith((OBJECT_HANDED, OBJECT_RETURNED, ASSIGNED_OVER)):
            continue  # an object the consumer built: the target never runs its `__init__`; a
            # stand-in's `__init__` is judged against the replaced class's by DRIFT070
        init = ((ctx.consumer.classes[ref].get("methods") or {}).get("__init__"))
        tparams, bparams = _init_of(ctx.target, expected[0]), _init_of(ctx.baseline, bexp[0])
        if init is None or tparams is None or bparams is None:
            continue
        tshape, bshape = _call_shape(tparams), _call_shape(bparams)
        if tshape == bshape or not _binds(init["params"], *bshape) or _binds(init["params"], *tshape):
            continue
        crec = ctx.consumer.classes[ref]
        mod = ctx.consumer.modules.get(crec["module"]) or {}
        short = crec["qual"].rsplit(".", 1)[-1]
        base = expected[0].dotted.rsplit(".", 1)[-1]
        wanted = ", ".join(p.name for p in tparams if p.required)
        ctor = expected[0].as_class.methods.get("__init__")
        yield Finding(
            rule_id="DRIFT083", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
            title=f"`{short}.__init__` ({how} as a `{base}`) cannot take what the target's `{base}` is now "
                  f"built with ({wanted})",
            consumer_site=Location(mod.get("path") or "?", init["line"], symbol=f"{ref}.__init__",
                                   col=(init.get("col") or 0) + 1),
            target_evidence=(Location(expected[0].path, ctor.line if ctor is not None else expected[0].line,
                                      symbol=f"{expected[0].dotted}.__init__"),),
            baseline_evidence=(Location(bexp[0].path, bexp[0].line, symbol=f"{bexp[0].dotted}.__init__"),),
            predicted_failure=f"TypeError when the target builds `{short}` as a `{base}` "
                              f"({tshape[0]} positional argument{'s' if tshape[0] != 1 else ''})",
            fix=Fix(f"take `{base}.__init__`'s parameters ({wanted}) in `{crec['qual']}.__init__`",
                    manual_reason="which new argument replaces which old one is the target's contract"),
            symbol=f"{expected[0].dotted}.__init__",
        )


RULES = [slot_member_missing, slot_init_mismatch]
