"""Methods that duck-typed consumer code calls and that vanished from a whole class family."""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from drift.check.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.index import PackageIndex
from drift.rules.base import rule

MIN_FAMILY = 3
VANISHED_SHARE = 0.5


def _build_definers(index: PackageIndex) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cls in index.iter_classes():
        for name in cls.facts.get("methods") or {}:
            out.setdefault(name, []).append(cls.dotted)
    return out


def _build_shapes(index: PackageIndex) -> dict[str, list]:
    """class dotted -> [direct method names, resolved base class dotted names]."""
    out: dict[str, list] = {}
    for cls in index.iter_classes():
        bases = []
        for base in cls.facts.get("bases") or []:
            b = index.resolve_in(cls.module, base)
            if b is not None and b.kind == "class":
                bases.append(b.dotted)
        out[cls.dotted] = [sorted(cls.facts.get("methods") or {}), bases]
    return out


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


def _definers(index: PackageIndex) -> dict[str, list[str]]:
    """method name -> classes defining it directly (derived once per package digest)."""
    return index.derived("definers", _build_definers)


@rule("DRIFT040", RuleKind.METHOD_VANISHED)
def method_vanished(ctx: CheckContext) -> Iterator[Finding]:
    """A function bound onto target objects (`types.MethodType(fn, model)`) calls `self.m()`;
    `m` was defined by a family of target classes in the baseline and is gone from most of
    them in the target. When most of them gained the same new method, that is the rename.
    """
    if ctx.baseline is None:
        return
    base_def = _definers(ctx.baseline)
    shapes = ctx.target.derived("class_shapes", _build_shapes)
    base_shapes = ctx.baseline.derived("class_shapes", _build_shapes)
    for mod in ctx.usage:
        for bind in mod.get("binds") or []:
            for m, lines in sorted((bind.get("self_calls") or {}).items()):
                family = base_def.get(m, [])
                if len(family) < MIN_FAMILY:
                    continue
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
                sample = ctx.target.lookup(lost[0])
                if sample is None:
                    continue
                evidence = [Location(sample.path, sample.line, symbol=sample.dotted, snippet=f"no `{m}` in its MRO")]
                if renamed:
                    rsym = ctx.target.lookup(f"{sample.dotted}.{renamed}")
                    if rsym is not None:
                        evidence.append(Location(rsym.path, rsym.line, symbol=rsym.dotted))
                bsym = ctx.baseline.lookup(f"{sample.dotted}.{m}")
                yield Finding(
                    rule_id="DRIFT040", kind=RuleKind.METHOD_VANISHED,
                    severity=Severity.BREAKING,
                    title=f"`self.{m}()` in `{bind['function']}` is gone from {len(lost)} of {total} target classes"
                          + (f"; renamed to `{renamed}`" if renamed else ""),
                    consumer_site=Location(mod["path"], lines[0], snippet=f"self.{m}(...)"),
                    target_evidence=tuple(evidence),
                    baseline_evidence=(Location(bsym.path, bsym.line, symbol=bsym.dotted),) if bsym else (),
                    predicted_failure=f"AttributeError: '{sample.dotted.rsplit('.', 1)[-1]}' object has no attribute '{m}'",
                    fix=(Fix(f"call `self.{renamed}()` instead", codemod="rename_method", args={"old": m, "new": renamed})
                         if renamed else Fix(f"replace `self.{m}()`", manual_reason="no common replacement in the family")),
                    symbol=m,
                    details=f"`{bind['function']}` is bound onto `{bind['onto']}` at line {bind['line']}; "
                            f"{len(lost)} of {total} classes that defined `{m}` lost it"
                            + (f", {count} gained `{renamed}`" if renamed else ""),
                )
