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


def _definers(index: PackageIndex) -> dict[str, list[str]]:
    cached = getattr(index, "_drift_definers", None)
    if cached is None:
        cached = {}
        for cls in index.iter_classes():
            for name in cls.facts.get("methods") or {}:
                cached.setdefault(name, []).append(cls.dotted)
        index._drift_definers = cached  # type: ignore[attr-defined]
    return cached


@rule("DRIFT040", RuleKind.METHOD_VANISHED)
def method_vanished(ctx: CheckContext) -> Iterator[Finding]:
    """A function bound onto target objects (`types.MethodType(fn, model)`) calls `self.m()`;
    `m` was defined by a family of target classes in the baseline and is gone from most of
    them in the target. When most of them gained the same new method, that is the rename.
    """
    if ctx.baseline is None:
        return
    base_def = _definers(ctx.baseline)
    for mod in ctx.usage:
        for bind in mod.get("binds") or []:
            for m, lines in sorted((bind.get("self_calls") or {}).items()):
                family = base_def.get(m, [])
                if len(family) < MIN_FAMILY:
                    continue
                lost, kept, gained = [], 0, Counter()
                for dotted in family:
                    t = ctx.target.lookup(dotted)
                    if t is None or t.kind != "class":
                        continue
                    sym = ctx.target.lookup(f"{dotted}.{m}")
                    if sym is not None and sym.kind == "method":
                        kept += 1
                        continue
                    lost.append(t)
                    b = ctx.baseline.lookup(dotted)
                    before = set((b.facts.get("methods") or {}) if b else ())
                    gained.update(set(t.facts.get("methods") or {}) - before)
                total = kept + len(lost)
                if total < MIN_FAMILY or len(lost) / total < VANISHED_SHARE:
                    continue
                new, count = (gained.most_common(1) or [(None, 0)])[0]
                renamed = new if new and count >= VANISHED_SHARE * len(lost) else None
                sample = lost[0]
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
