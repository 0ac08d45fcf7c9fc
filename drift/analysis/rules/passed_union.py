"""DRIFT060 over a parameter several target classes fill: "may be" one that lost the attribute.

vLLM's linear layers each call `self.quant_method.apply(self, x, bias)`, so an override's `layer`
is whichever layer holds the method. When the target's call sites pass classes of which some lack
an attribute the override reads (and every class the baseline passed had it), the read fails for
those layers only: risky, naming them. When all of them lack it, it fails wherever it runs:
breaking. A slot one class fills is typed outright and judged by DRIFT060 itself (reach.py),
unless the consumer extends that class: vLLM may build the consumer's subclass in its place (a
plugin's layer registered over vLLM's), so a class counts as lacking the attribute only when no
consumer subclass of it provides it, and that one-class slot is judged here.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import PathEvaluator
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Symbol


def passed_union_findings(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        reads = [(r, r.get("path")) for r in mod.get("uses") or [] if r.get("kind") == "attr"]
        calls = [(r, (r.get("callee") or {}).get("path") or r.get("path")) for r in mod.get("calls") or []]
        for rec, path in reads + calls:
            if not path or len(path) < 2 or not path[0].startswith("passed:") or not path[1].startswith("."):
                continue
            ref, name = path[0][len("passed:"):], path[1][1:]
            key = (mod.get("path"), rec.get("line"), path[0], name)
            if key in seen:
                continue
            seen.add(key)
            found = _judge(ctx, mod, rec, ref, name)
            if found is not None:
                yield found


def _lacking(ctx: CheckContext, paths: PathEvaluator, classes: list[Symbol], name: str) -> tuple[list[Symbol], bool]:
    """The classes whose instances surely lack `name` (the evaluator's "missing": a fully known
    class, and no consumer subclass of it, which vLLM may build in its place, provides the
    name), and whether every other one surely has it."""
    lacking, known = [], True
    for c in classes:
        v = paths.value((f"sym:{c.dotted}", "()", f".{name}"))
        if v.kind == "missing" and not any(_provides(ctx, ref, name) for ref in paths.consumer_heirs(c.dotted)):
            lacking.append(c)
        elif not v.known:
            known = False
    return lacking, known


def _provides(ctx: CheckContext, ref: str, name: str, seen: set[str] | None = None) -> bool:
    """Whether the consumer class `ref` (or a consumer base of it) sets `self.<name>` or defines
    `name`, or answers any name (`__getattr__`)."""
    seen = seen if seen is not None else set()
    if ref in seen:
        return False
    seen.add(ref)
    cls = ctx.consumer.classes.get(ref) or {}
    for table in ("self_attrs", "methods", "class_attrs"):
        have = cls.get(table) or {}
        if name in have or "__getattr__" in have:
            return True
    return any(_provides(ctx, b[0][4:], name, seen) for b in cls.get("bases") or []
               if b and len(b) == 1 and b[0].startswith("sym:") and b[0][4:] in ctx.consumer.classes)


def _judge(ctx: CheckContext, mod: dict, rec: dict, ref: str, name: str) -> Finding | None:
    now = ctx.target_paths.passed_classes(ref)
    if not now or (len(now) == 1 and not ctx.target_paths.consumer_heirs(now[0].dotted)):
        return None  # none, or one the consumer does not extend: DRIFT060 itself judges the typed slot
    before = ctx.baseline_paths.passed_classes(ref)
    if not before:
        return None  # the baseline's code never passed such an object here: nothing changed
    lost_before, all_known = _lacking(ctx, ctx.baseline_paths, before, name)
    if lost_before or not all_known:
        return None  # an old fact (or one drift cannot judge), not a change
    lacking, _ = _lacking(ctx, ctx.target_paths, now, name)
    if not lacking:
        return None
    every = len(lacking) == len(now)
    shown = ", ".join(f"`{c.dotted.rsplit('.', 1)[-1]}`" for c in lacking)
    param = ref.rsplit(":", 1)[-1]
    return Finding(
        rule_id="DRIFT060", kind=RuleKind.ATTRIBUTE_MISSING,
        severity=Severity.BREAKING if every and not ctx.dead_on_baseline(mod) else Severity.RISKY,
        title=(f"`{param}.{name}`: `{param}` may be {shown}, passed by the target, "
               f"which {'has' if len(lacking) == 1 else 'have'} no `{name}`"),
        consumer_site=site_of(mod, rec),
        target_evidence=tuple(Location(c.path, c.line, symbol=c.dotted) for c in lacking),
        baseline_evidence=tuple(Location(c.path, c.line, symbol=c.dotted) for c in before),
        predicted_failure=f"AttributeError: '{lacking[0].dotted.rsplit('.', 1)[-1]}' object has no attribute '{name}'",
        fix=Fix(f"stop reading `{name}` on `{param}`, or read it where the target keeps it now",
                manual_reason="which layer the target passes decides where the value lives now"),
        symbol=f"{lacking[0].dotted}.{name}",
        details=(f"the target passes {len(now)} classes in `{param}`'s slot "
                 f"({', '.join(c.dotted for c in now)}); the baseline's all had `{name}`"),
    )
