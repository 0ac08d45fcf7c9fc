"""Rules over classes the consumer hands to the target, and that the target then uses itself.

A plugin gives vLLM classes in ways no import of the plugin's shows: it registers a model class
(`ModelRegistry.register_model("Arch", Mine)`, or `"pkg.mod:Mine"`), or vLLM's own source
imports the plugin's class by name (often lazily, inside a function) and builds it. vLLM then
checks the class for the members its interface needs and calls methods on what it built. When
the target asks for a member the consumer's class lacks, and the baseline did not, the class
breaks inside vLLM with nothing in the consumer's own code to point at, so the finding sits on
the consumer's class (or on the member vLLM no longer accepts).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.findings import SAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, classes_in, word
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.reach import _consumer_defines, _members


def _handed(ctx: CheckContext) -> Iterator[tuple[str, dict]]:
    """Consumer classes passed to a target call (the class object or a "pkg.mod:Cls" string)."""
    seen: set[str] = set()
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            for ref in rec.get("class_args") or ():
                cls = ctx.consumer.classes.get(ref)
                if cls is not None and ref not in seen:
                    seen.add(ref)
                    yield ref, cls


def _available(ctx: CheckContext, index: PackageIndex, ref: str) -> set[str] | None:
    """Every member an instance of consumer class `ref` has that drift can see: its own and its
    consumer bases' methods, class attributes and `self.x` it sets, and what its target bases
    define. None when the class answers any name (`__getattr__`)."""
    names = set(_consumer_defines(ctx, ref))
    stack, seen = [ref], set()
    while stack:
        r = stack.pop()
        if r in seen:
            continue
        seen.add(r)
        cls = ctx.consumer.classes.get(r) or {}
        names |= set(cls.get("self_attrs") or {})
        for b in cls.get("bases") or []:
            if b and len(b) == 1 and b[0].startswith("sym:") and b[0][4:] in ctx.consumer.classes:
                stack.append(b[0][4:])
    if "__getattr__" in names:
        return None
    paths = ctx.target_paths if index is ctx.target else ctx.baseline_paths
    for base in paths.target_bases(ref) if paths is not None else []:
        names |= _members(index, base)
    return names


def _method_site(ctx: CheckContext, ref: str, name: str) -> tuple[dict, dict] | None:
    """(class record, method record) where `name` is defined: the class or a consumer base."""
    stack, seen = [ref], set()
    while stack:
        r = stack.pop(0)
        if r in seen:
            continue
        seen.add(r)
        cls = ctx.consumer.classes.get(r) or {}
        m = (cls.get("methods") or {}).get(name)
        if m is not None:
            return cls, m
        stack.extend(b[0][4:] for b in cls.get("bases") or [] if b and len(b) == 1 and b[0].startswith("sym:"))
    return None


# -- DRIFT073: a fallback name the target's interface check no longer accepts ----------------------
def _fallback_probes(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[Any]]]:
    """old name -> [[module, function qualname, subject, new name, path, line]] of every probe
    `getattr(subject, "old")` / `hasattr(subject, "old")` made only where `new` was found missing."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        for qual, fn in _functions(mod):
            for subject, names in fn.behaviour.probes.items():
                for name, (line, fallback_of) in names.items():
                    if fallback_of:
                        out.setdefault(name, []).append([mod_name, qual, subject, fallback_of, mod.path, line])
    return out


def _functions(mod: ModuleFacts) -> Iterator[tuple[str, FunctionFacts]]:
    """(qualname, function) of every function and method of a module, nested classes' included."""
    yield from mod.functions.items()
    stack = list(mod.classes.items())
    while stack:
        qual, c = stack.pop()
        for name, m in c.methods.items():
            yield f"{qual}.{name}", m
        stack.extend((f"{qual}.{n}", sub) for n, sub in c.nested.items())


def _function_at(index: PackageIndex, module: str, qual: str) -> FunctionFacts | None:
    mod = index.modules.get(module)
    if mod is None:
        return None
    for q, fn in _functions(ModuleFacts(mod)):
        if q == qual:
            return fn
    return None


@rule("DRIFT073", RuleKind.INTERFACE_METHOD_MISSING)
def fallback_name_dropped(ctx: CheckContext) -> Iterator[Finding]:
    """A class the consumer hands to the target (registers it, passes it to a target call)
    provides a member under a name the baseline's check accepted only as a fallback, and the
    target's check no longer does: the class now fails the interface check.

    The baseline's function asks for the new name first (`getattr(model, "embed_input_ids",
    None)`) and, only where it is missing, for the old one (`getattr(model,
    "get_input_embeddings", None)`); the target's same function still asks for the new name but
    no longer for the old. A class that defines only the old name (itself, its consumer bases or
    its target bases) passed the baseline's check and fails the target's. The same change reaches
    a hand-written class and one built with `type(name, bases, namespace)`.

    Fix (safe): `alias_member` binds the new name to the old member (`new = old` after the def,
    or `"new": value` beside the old entry of the `type()` namespace), the alias the baseline's
    fallback made at run time.
    """
    if ctx.baseline is None:
        return
    for ref, cls in _handed(ctx):
        have = _available(ctx, ctx.target, ref)
        if have is None:
            continue
        for old in sorted(n for n in _consumer_defines(ctx, ref) if not n.startswith("__")):
            for module, qual, subject, new, path, line in ctx.baseline.query(
                    "fallback_probes", old, needle=word(old), build=_fallback_probes, default=[], scoped=True):
                if new in have:
                    continue
                tfn = _function_at(ctx.target, module, qual)
                now = (tfn.behaviour.probes.get(subject) if tfn is not None else None) or {}
                if new not in now or old in now:
                    continue  # the target still accepts the old name there, or checks something else
                where = _method_site(ctx, ref, old)
                if where is None:
                    continue
                owner, m = where
                label = f"{cls['qual'].rsplit('.', 1)[-1]}.{old}"
                fn_name = qual.rsplit(".", 1)[-1]
                yield Finding(
                    rule_id="DRIFT073", kind=RuleKind.INTERFACE_METHOD_MISSING, severity=Severity.BREAKING,
                    title=f"`{label}` is no longer accepted for `{new}`: the target's `{fn_name}` now asks "
                          f"for `{new}` only, and `{cls['qual'].rsplit('.', 1)[-1]}` does not define it",
                    consumer_site=Location(owner.get("path") or cls.get("path") or "?", m["line"],
                                           symbol=f"{ref}.{old}", col=(m.get("col") or 0) + 1),
                    target_evidence=(Location(tfn_path(ctx.target, module) or path, now[new][0],
                                              symbol=f"{module}.{qual}"),),
                    baseline_evidence=(Location(path, line, symbol=f"{module}.{qual}"),),
                    predicted_failure=f"`{module}.{qual}` finds no `{new}` on "
                                      f"`{cls['qual'].rsplit('.', 1)[-1]}` (the fallback to `{old}` is gone)",
                    fix=_alias_fix(cls["qual"], old, new),
                    symbol=f"{module}.{qual}",
                    details=f"baseline: `{subject}` is asked for `{old}` where `{new}` is missing",
                )


def _alias_fix(qual: str, old: str, new: str) -> Fix:
    """Bind `new` to the member `old` (alias_member): safe, because it is the alias the baseline's
    fallback made at run time (`model.new = model.old` where `new` was missing), now written in the
    class; `old` stays for the releases that still accept it."""
    return Fix(f"define `{new}` on `{qual}` bound to the member `{old}` names (the alias the baseline's "
               f"fallback made; `{old}` stays for older releases)",
               codemod="alias_member", args={"old": old, "new": new}, tier=SAFE)


def tfn_path(index: PackageIndex, module: str) -> str | None:
    mod = index.modules.get(module)
    return ModuleFacts(mod).path if mod else None


# -- DRIFT074: methods the target calls on an object it built from the consumer's class ---------
def _builds(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[Any]]]:
    """consumer package -> [[class dotted, holder class, holder, path, {method: line}]]: objects a
    target class builds from a class outside the target (`self.engine = cls(...)` with `cls`
    imported by name, lazily or not), and the unguarded calls it makes on them."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name, mod, dotted, c in classes_in(index, modules):
        own, imports = mod_name.split(".")[0], mod.imports
        behaviours = [m.behaviour for m in c.methods.values()]
        built: dict[str, set[str]] = {}
        for beh in behaviours:
            for holder, names in beh.builds.items():
                built.setdefault(holder, set()).update(names)
            for attr, kind in beh.self_types.items():
                if isinstance(kind, str) and kind.startswith("call:"):
                    built.setdefault("self." + attr, set()).add(kind[5:])
        for holder, names in built.items():
            classes = {index.dotted_in(mod_name, n) if n.split(".")[0] in imports
                       else n for n in names}
            classes = {n for n in classes if "." in n and n.split(".")[0] != own}
            if not classes:
                continue
            calls: dict[str, int] = {}
            for beh in behaviours:
                guarded = beh.probes.get(holder) or {}
                for name, line in (beh.held_calls.get(holder) or {}).items():
                    if name not in guarded and name not in calls:
                        calls[name] = line
            if not calls:
                continue
            for n in sorted(classes):
                out.setdefault(n.split(".")[0], []).append([n, dotted, holder, mod.path, calls])
    return out


@rule("DRIFT074", RuleKind.INTERFACE_METHOD_MISSING)
def target_calls_missing_method(ctx: CheckContext) -> Iterator[Finding]:
    """The target builds an object from the consumer's class (its own source imports the class by
    name, often lazily inside a function: `from plugin.mod import Impl; self.engine = Impl(...)`)
    and now calls a method on it, without a `hasattr`/`getattr` guard, that the baseline did not
    call and the consumer's class does not have: the call raises AttributeError inside the target.

    The target's modules are found by a text search for the consumer's top-level package name;
    only calls on the attribute (or local) that holds the object the target built count.
    """
    if ctx.baseline is None:
        return
    pkgs = sorted({(m or "").split(".")[0] for m in ctx.consumer.modules} - {"", ctx.target_package})
    for pkg in pkgs:
        now = ctx.target.query("consumer_builds", pkg, needle=word(pkg), build=_builds, default=[])
        if not now:
            continue
        before = ctx.baseline.query("consumer_builds", pkg, needle=word(pkg), build=_builds, default=[])
        for ref in sorted({e[0] for e in now}):
            cls = ctx.consumer.classes.get(ref)
            if cls is None:
                continue
            have = _available(ctx, ctx.target, ref)
            if have is None:
                continue
            old_calls = {name for e in before if e[0] == ref for name in e[4]}
            was_built = any(e[0] == ref for e in before)
            missing: dict[str, tuple[str, str, int]] = {}
            for _ref, holder_cls, holder, path, calls in (e for e in now if e[0] == ref):
                for name, line in calls.items():
                    if name not in have and name not in old_calls and name not in missing:
                        missing[name] = (holder_cls, path, line)
            mod = ctx.consumer.modules.get(cls["module"]) or {"path": cls.get("path") or "?"}
            short = cls["qual"].rsplit(".", 1)[-1]
            for name in sorted(missing):
                holder_cls, path, line = missing[name]
                yield Finding(
                    rule_id="DRIFT074", kind=RuleKind.INTERFACE_METHOD_MISSING,
                    severity=Severity.BREAKING if was_built else Severity.RISKY,
                    title=f"the target's `{holder_cls.rsplit('.', 1)[-1]}` now calls `{name}()` on the "
                          f"`{short}` it builds, and `{short}` has no `{name}`",
                    consumer_site=Location(mod.get("path") or "?", cls["line"], symbol=ref,
                                           col=(cls.get("col") or 0) + 1),
                    target_evidence=(Location(path, line, symbol=f"{holder_cls}.{name}"),),
                    predicted_failure=f"AttributeError: '{short}' object has no attribute '{name}'",
                    fix=Fix(f"implement `{name}` in `{cls['qual']}`",
                            manual_reason="what the method must return is the target's contract"),
                    symbol=f"{holder_cls}.{name}",
                    details=None if was_built else f"the baseline did not build `{short}`: "
                                                   f"{plural(len(missing), 'method')} missing on a new path",
                )


RULES = [fallback_name_dropped, target_calls_missing_method]
