"""DRIFT128: a member used on an object typed by a class the target removed, named nowhere in it.

`def probe(executor: ExecutorBase): executor.determine_num_available_blocks()`: the annotation
types the parameter, and on the baseline the call is checked against `ExecutorBase`. Where the
target removed the class (and it moved nowhere), the path typing stops at the annotation: the
target has no class to look the member up in, so DRIFT060 cannot say the member is missing, and
DRIFT001/DRIFT005 report only the import and the annotation. The maintainers' fix still touches
the member use: whatever object the target now hands the function, it has no such member when
the target's whole source never writes the name (no `def`, no attribute, no keyword, not even a
string). That is the evidence used here, so a member that lives on in another class (a
successor the consumer should switch to) is left alone: drift cannot tell which class that is.

Risky: the import of the gone class fails first, and the use breaks once that import is fixed.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.paths import Value
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _site, _typed_paths
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import word


def _gone_class(ctx: CheckContext, before: Value) -> bool:
    """Whether the baseline's object at this step is of (or is) a class the target has nowhere,
    under its name or where it moved."""
    cls = before.cls if before.kind == "instance" else before.sym if before.kind == "class" else None
    if cls is None or not ctx.target_paths.is_target_name(cls.dotted):
        return False
    return ctx.target.lookup(cls.dotted) is None and ctx.relocated(cls.dotted) is None


def _named_nowhere(ctx: CheckContext, name: str) -> bool:
    """The target's source never writes `name` as a word; without the sources (a host's whole
    facts), no module, class or instance of the target defines it."""
    cache = ctx.memo.setdefault("gone_receivers.nowhere", {})
    if name not in cache:
        if ctx.target.has_sources:
            cache[name] = not ctx.target.source_search(word(name))
        else:
            cache[name] = name not in _defined_names(ctx)
    return cache[name]


def _defined_names(ctx: CheckContext) -> frozenset[str]:
    """Every name the target's facts define: module-level names and every class's members
    (read once per check, only when a use on a gone class asks)."""
    hit = ctx.memo.get("gone_receivers.defined")
    if hit is None:
        out: set[str] = set()
        for mod in ctx.target.modules.values():
            for kind in ("classes", "functions", "names"):
                out.update(mod.get(kind) or {})
        for cls in ctx.target.iter_classes():
            node = cls.as_class
            out.update(node.methods, node.nested, node.attrs, node.instance_attrs)
            out.update(fl.name for fl in node.fields)
        hit = ctx.memo["gone_receivers.defined"] = frozenset(out)
    return hit


@rule("DRIFT128", RuleKind.ATTRIBUTE_MISSING, Severity.RISKY)
def member_of_gone_class(ctx: CheckContext) -> Iterator[Finding]:
    """A call or attribute read on an object typed by a baseline class the target removed (an
    annotation, a construction, a return), of a member the baseline class had and the target's
    source names nowhere: AttributeError on whatever object the target provides."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod, rec, path, _what in _typed_paths(ctx):
        if rec.get("on_failure"):
            continue
        tv = ctx.target_paths.steps(path)
        for k in range(1, len(path)):
            if not path[k].startswith(".") or tv[k - 1].known:
                continue
            bv = ctx.baseline_paths.steps(path)
            prev, member = bv[k - 1], bv[k]
            if not member.known or member.kind == "consumer" or not _gone_class(ctx, prev):
                break
            name = path[k][1:]
            if not _named_nowhere(ctx, name):
                break
            key = (mod.get("path"), rec["line"], name)
            if key in seen:
                break
            seen.add(key)
            cls = prev.cls if prev.kind == "instance" else prev.sym
            yield Finding(
                rule_id="DRIFT128", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
                title=f"`{cls.dotted.rsplit('.', 1)[-1]}.{name}` is gone with its class: the target names "
                      f"`{name}` nowhere",
                consumer_site=_site(mod, rec, k == len(path) - 1),
                target_evidence=(),
                baseline_evidence=(Location(*member.evidence, symbol=f"{cls.dotted}.{name}"),) if member.evidence
                else (),
                predicted_failure=f"AttributeError: no object of the target has '{name}' (its class "
                                  f"`{cls.dotted}` is gone; once the import of it no longer fails first)",
                fix=Fix(f"stop using `{name}`",
                        manual_reason=f"the target removed `{cls.dotted}` and every `{name}`: what replaced "
                                      "them needs reading the target's code"),
                symbol=f"{cls.dotted}.{name}",
                details=f"reached as {' '.join(path[:k + 1])}",
            )
            break


RULES = [member_of_gone_class]
