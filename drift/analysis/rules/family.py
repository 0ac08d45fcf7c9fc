"""Methods that duck-typed consumer code calls and that vanished from a whole class family."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.model.ahead import AheadJob, answered, take_ahead
from drift.model.facts import ModuleFacts
from drift.findings import SAFE, UNSAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, def_of
from drift.analysis.rules.base import rule

MIN_FAMILY = 3
VANISHED_SHARE = 0.5


def _build_definers(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cls in index.iter_classes(modules):
        for name in cls.as_class.methods:
            out.setdefault(name, []).append(cls.dotted)
    return out


def _build_shapes(index: PackageIndex) -> dict[str, list]:
    """class dotted -> [direct method names, resolved base class dotted names]."""
    out: dict[str, list] = {}
    for cls in index.iter_classes():
        out[cls.dotted] = _shape(index, cls)
    return out


def _shape(index: PackageIndex, cls: Symbol) -> list:
    node = cls.as_class
    bases = []
    for base in node.bases:
        b = index.resolve_in(cls.module, base)
        if b is not None and b.kind == "class":
            bases.append(b.dotted)
    return [sorted(node.methods), bases]


def _shapes_of(index: PackageIndex, family: list[str]) -> dict[str, list]:
    """The shapes `_has` reads for `family`: each top-level class of it and, through their
    bases, every class above. Facts that came whole read the whole-package index; a tree
    parsed on demand walks up from the family alone, over class outlines (`PackageIndex.outline`)."""
    index = index.outline
    if not index.demand:
        return index.derived("class_shapes", _build_shapes)

    def compute() -> dict[str, list]:
        index.prefetch(sorted({d.rpartition(".")[0] for d in family}))
        out: dict[str, list] = {}
        stack = list(family)
        while stack:
            dotted = stack.pop()
            if dotted in out:
                continue
            module, _, name = dotted.rpartition(".")
            mod = ModuleFacts(index.modules[module]) if module in index.modules else None
            node = mod.classes.get(name) if mod is not None else None
            if node is None:
                continue  # not a top-level class here: absent from the whole-package index too
            out[dotted] = _shape(index, Symbol(dotted, "class", module, mod.path, node.line, node.raw))
            stack.extend(out[dotted][1])
        return out

    return index.memo("class_shapes", "\n".join(sorted(family)), compute)


def _has(shapes: dict[str, list], dotted: str, method: str) -> bool:
    """Whether `method` is defined on the class or any base, from the shapes index alone."""
    seen, stack = set(), [dotted]
    while stack:
        c = stack.pop()
        if c in seen or c not in shapes:
            continue
        seen.add(c)
        methods, bases = shapes[c]
        if method in methods:
            return True
        stack.extend(bases)
    return False


def _definers(index: PackageIndex, method: str) -> list[str]:
    """Classes defining `method` directly (cached per package digest and method name)."""
    return index.outline.query("definers", method, needle=def_of(method), build=_build_definers, default=[])


def _bound_calls(usage: Iterable[dict]) -> list[str]:
    """The methods bound functions call on `self` (each one DRIFT040's family question)."""
    return sorted({m for mod in usage for bind in mod.get("binds") or [] for m in bind.get("self_calls") or {}})


def _family_of(m: str):
    def run(target: PackageIndex, baseline: PackageIndex) -> None:
        family = _definers(baseline, m)
        if len(family) >= MIN_FAMILY:
            _shapes_of(target, family)
            _shapes_of(baseline, family)

    return run


def family_jobs(usage: list[dict]) -> list[AheadJob]:
    """DRIFT040's family questions of this consumer (one per method a bound function calls on
    `self`), for a worker to answer ahead (`drift.model.ahead.answered_ahead`): the family is ~300
    class outlines of two releases, a third of a cold check's CPU, known from the usage alone."""
    return [AheadJob(("family", m), _family_of(m), lambda t, b, m=m: _family_answered(t, b, m))
            for m in _bound_calls(usage)]


def family_modules(baseline: PackageIndex, usage: list[dict]) -> list[str]:
    """The modules holding DRIFT040's families of this consumer as `baseline` has them: each
    family's classes and the bases above them (a scan asks the host for these ahead: the
    target holds the same classes in the same modules, or the check asks)."""
    out: set[str] = set()
    for m in _bound_calls(usage):
        members = _definers(baseline, m)
        if len(members) >= MIN_FAMILY:
            out.update(d.rpartition(".")[0] for d in list(members) + list(_shapes_of(baseline, members)))
    return sorted(n for n in out if n)


def _family_answered(target: PackageIndex, baseline: PackageIndex | None, m: str) -> bool:
    """Whether the store answers `m`'s family questions already (a gate's next target still
    asks its own class shapes)."""
    if baseline is None:
        return True
    if not answered(baseline.outline, "definers", m):
        return False
    family = _definers(baseline, m)  # the stored answer
    key = "\n".join(sorted(family))
    return len(family) < MIN_FAMILY or (answered(target.outline, "class_shapes", key)
                                        and answered(baseline.outline, "class_shapes", key))


@rule("DRIFT040", RuleKind.METHOD_VANISHED, answered_ahead=True)
def method_vanished(ctx: CheckContext) -> Iterator[Finding]:
    """A function bound onto target objects (`types.MethodType(fn, model)`) calls `self.m()`;
    `m` was defined by a family of target classes in the baseline and is gone from most of
    them in the target. When most of them gained the same new method, that is the rename.
    """
    if ctx.baseline is None:
        return
    for mod in ctx.usage:
        for bind in mod.get("binds") or []:
            for m, lines in sorted((bind.get("self_calls") or {}).items()):
                take_ahead(ctx.target, ctx.baseline, ("family", m))
                family = _definers(ctx.baseline, m)
                if len(family) < MIN_FAMILY:
                    continue
                shapes = _shapes_of(ctx.target, family)
                base_shapes = _shapes_of(ctx.baseline, family)
                lost, kept, gained = [], 0, Counter()
                for dotted in family:
                    if dotted not in shapes:
                        continue  # the class itself is gone: the import/call rules say so
                    if _has(shapes, dotted, m):
                        kept += 1
                        continue
                    lost.append(dotted)
                    before = set(base_shapes.get(dotted, [[], []])[0])
                    gained.update(set(shapes[dotted][0]) - before)
                total = kept + len(lost)
                if total < MIN_FAMILY or len(lost) / total < VANISHED_SHARE:
                    continue
                new, count = (gained.most_common(1) or [(None, 0)])[0]
                renamed = new if new and count >= VANISHED_SHARE * len(lost) else None
                # a class that lost `m` may reach the new name through a base that gained it
                reached = sum(_has(shapes, d, renamed) for d in lost) if renamed else 0
                sample = ctx.target.outline.lookup(lost[0])  # where it is: an outline says, no parse
                if sample is None:
                    continue
                evidence = [Location(sample.path, sample.line, symbol=sample.dotted, snippet=f"no `{m}` in its MRO")]
                if renamed:
                    rsym = ctx.target.outline.lookup(f"{sample.dotted}.{renamed}")
                    if rsym is not None:
                        evidence.append(Location(rsym.path, rsym.line, symbol=rsym.dotted))
                bsym = ctx.baseline.outline.lookup(f"{sample.dotted}.{m}")
                yield Finding(
                    rule_id="DRIFT040", kind=RuleKind.METHOD_VANISHED,
                    severity=Severity.BREAKING,
                    title=f"`self.{m}()` in `{bind['function']}` is gone from {len(lost)} of {total} target classes"
                          + (f"; renamed to `{renamed}`" if renamed else ""),
                    consumer_site=Location(mod["path"], lines[0], snippet=f"self.{m}(...)"),
                    target_evidence=tuple(evidence),
                    baseline_evidence=(Location(bsym.path, bsym.line, symbol=bsym.dotted),) if bsym else (),
                    predicted_failure=f"AttributeError: '{sample.dotted.rsplit('.', 1)[-1]}' object has no attribute '{m}'",
                    fix=(Fix(f"call `self.{renamed}()` instead", codemod="rename_method", args={"old": m, "new": renamed},
                             # every class that lost it has the same new name, its own or a base's:
                             # a family-wide rename, and no class the call can reach lacks the name
                             tier=SAFE if reached >= len(lost) else UNSAFE)
                         if renamed else Fix(f"replace `self.{m}()`", manual_reason="no common replacement in the family")),
                    symbol=m,
                    details=f"`{bind['function']}` is bound onto `{bind['onto']}` at line {bind['line']}; "
                            f"{len(lost)} of {total} classes that defined `{m}` lost it"
                            + (f", {count} gained `{renamed}` ({reached} have it, own or inherited)" if renamed else ""),
                )
