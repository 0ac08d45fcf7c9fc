"""DRIFT143: a field the consumer reads whose default went from a value to None.

Why: vLLM deprecates a config field by keeping its name with `Optional[...] = None` and moving the
setting elsewhere (0.10.2: `ParallelConfig.num_redundant_experts: int = 0` became `Optional[int] =
None`, the value now in `eplb_config`). Nothing raises at the read; the consumer's arithmetic on it
does, or its logic silently takes the None (vllm-ascend 0.10.1rc1's Qwen3-MoE added it to the
expert count). Evidence: the field's declared default on both sides (the facts' `fields`), on the
class where the target finds the member. Not reported where the target's own class stores the name
on `self` in a method (a `__post_init__` that resolves the None), nor where the consumer tests the
read for truth or None (the probe's `tested`: `x.a is None`, `x.a or d`, `if x.a:`), there or
elsewhere in the same function. Risky: whoever builds the object may still set it.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _field(index: PackageIndex, owner: Symbol | None, name: str):
    if owner is None or owner.kind != "class":
        return None
    return next((f for f in owner.as_class.fields if f.name == name), None)


_FIELD_CALL = re.compile(r"^(?:[\w.]*\.)?(?:Field|field)\((.*)\)$", re.S)


def default_value(text: str | None) -> str | None:
    """A field's default as written, read through `Field(default=X)` / `field(default=X)` (X), a
    `default_factory=` (`<factory>`: a fresh value, never None) or a first positional argument
    (pydantic's `Field(X)`). None when the field has no default."""
    if text is None:
        return None
    m = _FIELD_CALL.match(text.strip())
    if m is None:
        return text.strip()
    try:
        call = ast.parse(f"f({m.group(1)})", mode="eval").body
    except SyntaxError:
        return text.strip()
    for kw in call.keywords:
        if kw.arg == "default":
            return ast.unparse(kw.value)
        if kw.arg == "default_factory":
            return "<factory>"
    return ast.unparse(call.args[0]) if call.args else None


def _filled_later(index: PackageIndex, owner: Symbol, name: str) -> bool:
    """Whether a method of the class (or its MRO) stores `self.<name>`: the default is resolved."""
    return name in index.instance_attrs(owner)


@rule("DRIFT143", RuleKind.FIELD_NOW_NONE, Severity.RISKY)
def field_now_none(ctx: CheckContext) -> Iterator[Finding]:
    """A read of a field whose default was a value on the baseline and is None on the target,
    where the target's class does not fill it in after construction and the consumer does not
    test the read for None: the read now gives None unless whoever builds the object sets it."""
    if ctx.baseline_paths is None:
        return
    for mod in ctx.usage:
        uses = [r for r in mod.get("uses") or () if r.get("kind") == "attr" and len(r.get("path") or ()) >= 2
                and str(r["path"][-1]).startswith(".")]
        tested = {(r.get("function"), r["path"][-1]) for r in uses if r.get("tested")}
        for rec in uses:
            path = tuple(rec["path"])
            if rec.get("tested") or (rec.get("function"), path[-1]) in tested:
                continue
            t = ctx.target_paths.value(path)
            if t.via != "field" or t.owner is None:
                continue
            name = path[-1][1:]
            tf = _field(ctx.target, t.owner, name)
            if tf is None or default_value(tf.default) != "None" or _filled_later(ctx.target, t.owner, name):
                continue
            b = ctx.baseline_paths.value(path)
            bf = _field(ctx.baseline, b.owner, name) if b.via == "field" else None
            was = default_value(bf.default) if bf is not None and bf.has_default else None
            if was in (None, "None"):
                continue
            short = f"{t.owner.dotted.rsplit('.', 1)[-1]}.{name}"
            yield Finding(
                rule_id="DRIFT143", kind=RuleKind.FIELD_NOW_NONE, severity=Severity.RISKY,
                title=f"`{short}` now defaults to None (it was {was}): the read gives None unless it is set",
                consumer_site=site_of(mod, rec),
                target_evidence=(Location(t.owner.path, tf.line or t.owner.line, symbol=f"{t.owner.dotted}.{name}",
                                          snippet=f"{name}: {tf.annotation} = None" if tf.annotation else None),),
                baseline_evidence=(Location(b.owner.path, bf.line or b.owner.line, symbol=f"{b.owner.dotted}.{name}",
                                            snippet=f"{name} = {was}"),),
                predicted_failure=None,
                details="the target may have moved the setting elsewhere (a deprecated field keeps its name with a "
                        "None default)",
                fix=Fix(f"read the setting where the target now keeps it, or handle None (`... or {was}`)"
                        if was != "<factory>" else "read the setting where the target now keeps it, or handle None",
                        manual_reason="where the value moved needs reading the target"),
                symbol=f"{t.owner.dotted}.{name}",
            )


RULES = [field_now_none]
