"""`None` handed to a validated class for a field whose annotation stopped admitting it (DRIFT145).

vLLM's configs are pydantic dataclasses: the annotation is checked when the object is built. vLLM
0.14 turned `VllmConfig.observability_config: Optional[ObservabilityConfig] = None` into
`ObservabilityConfig = Field(default_factory=ObservabilityConfig)`, so a consumer that spelt
the old default out (`VllmConfig(..., observability_config=None)`) now gets a ValidationError
before anything runs. A plain dataclass stores the None and says nothing, and DRIFT014 judges
what a function body does with it; this rule is only for classes the target validates
(`PackageIndex.is_pydantic`: a pydantic model, a pydantic dataclass, vLLM's `@config`).
"""

from __future__ import annotations

import ast
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import UNSAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Param
from drift.probes.srctext import dotted as _dotted

_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def admits_none(annotation: str | None) -> bool | None:
    """Whether an annotation lets None through at its top level (`Optional[X]`, `X | None`,
    `Union[X, None]`, `Any`, `object`; quoted or not); None when there is none to judge. An
    `Optional` nested inside another type (`dict[str, Optional[int]]`) does not count."""
    try:
        node = ast.parse((annotation or "").strip(), mode="eval").body if (annotation or "").strip() else None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node = ast.parse(node.value, mode="eval").body
    except SyntaxError:
        return None
    if node is None:
        return None
    members, stack = [], [node]
    while stack:  # the union's members: `A | B | None`, `Union[A, None]`, `Optional[A]`
        n = stack.pop()
        head = (_dotted(n.value) or "").rsplit(".", 1)[-1] if isinstance(n, ast.Subscript) else ""
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
            stack += [n.left, n.right]
        elif head == "Optional":
            return True
        elif head == "Union":
            stack += list(n.slice.elts) if isinstance(n.slice, ast.Tuple) else [n.slice]
        else:
            members.append(n)
    return any(isinstance(m, ast.Constant) and m.value is None
               or (_dotted(m) or "").rsplit(".", 1)[-1] in ("None", "NoneType", "Any", "object") for m in members)


def _may_be_none(text: str | None) -> str | None:
    """"always" for the literal `None`, "branch" for a conditional with a `None` arm
    (`x if cond else None`), else None."""
    text = (text or "").strip()
    if text == "None":
        return "always"
    if " if " not in text or "None" not in text:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.IfExp) and any(isinstance(n, ast.Constant) and n.value is None
                                           for n in (node.body, node.orelse)):
        return "branch"
    return None


def _nones(rec: dict, params: list[Param]) -> dict[str, str]:
    """{parameter: how} for each `None` the call passes: a literal by keyword ("keyword") or by
    position ("positional"), or a conditional keyword value with a `None` arm ("branch")."""
    out = {}
    for name, text in (rec.get("kw_values") or {}).items():
        seen = _may_be_none(text)
        if seen is not None:
            out[name] = "keyword" if seen == "always" else "branch"
    positional = [p for p in params if p.kind in _POSITIONAL]
    for index, kind, *_ in rec.get("arg_lits") or ():
        if kind == "None" and index < len(positional):
            out.setdefault(positional[index].name, "positional")
    return out


@rule("DRIFT145", RuleKind.VALUE_REJECTED)
def none_rejected_by_validation(ctx: CheckContext) -> Iterator[Finding]:
    """A construction of a validated target class (a pydantic model or dataclass, vLLM's `@config`
    classes) passes the literal `None` for a field the baseline annotated as admitting None
    (`Optional[ObservabilityConfig]`) and the target no longer does (`ObservabilityConfig`):
    pydantic rejects the value when the object is built (ValidationError). A literal `None`, by
    keyword or by position, is breaking; a conditional with a `None` arm (`x if on else None`) is
    risky (it fails on that arm); a value passed through a name is not judged. Fix: leave the
    argument out (the target's default builds one) or pass a real value."""
    if ctx.baseline is None:
        return
    for rc in ctx.calls:
        if not rc.is_constructor or rc.target is None or rc.target_params is None or rc.baseline_params is None:
            continue
        nones = _nones(rc.rec, rc.target_params)
        if not nones or not ctx.target.is_pydantic(rc.target):
            continue
        before = {p.name: p for p in rc.baseline_params}
        for p in rc.target_params:
            how = nones.get(p.name)
            old = before.get(p.name)
            if how is None or old is None or admits_none(p.annotation) is not False or not admits_none(old.annotation):
                continue
            site = rc.keyword_site(p.name) if how in ("keyword", "branch") else rc.site
            at = rc.target_params_at or rc.target
            yield Finding(
                rule_id="DRIFT145", kind=RuleKind.VALUE_REJECTED,
                severity=Severity.RISKY if ctx.dead_on_baseline(rc.module) or how == "branch" else Severity.BREAKING,
                title=f"`{rc.label}` no longer admits `{p.name}=None`"
                      + (" (one arm of the value passed)" if how == "branch" else "")
                      + f": the baseline's `{old.annotation}` is now `{p.annotation}`",
                consumer_site=site,
                target_evidence=(Location(at.path, p.line or at.line, symbol=f"{rc.target.dotted}.{p.name}"),),
                baseline_evidence=(Location(bat.path, old.line or bat.line, symbol=f"{bat.dotted}.{p.name}"),)
                if (bat := rc.baseline_params_at or rc.baseline) is not None else (),
                predicted_failure=f"pydantic ValidationError building `{rc.label}`: `{p.name}` is a "
                                  f"`{p.annotation}`, None is not",
                fix=Fix(f"drop `{p.name}=None` from the call (the target builds its default) or pass a "
                        f"`{p.annotation}`", codemod="drop_keyword", tier=UNSAFE,
                        args={"callee": rc.rec["callee_src"].rsplit(".", 1)[-1], "keyword": p.name})
                if how == "keyword" and rc.rec.get("callee_src") else
                Fix(f"leave `{p.name}` out (the target builds its default) or pass a `{p.annotation}`",
                    manual_reason="whether the target's default does what the None meant is the consumer's call"),
                symbol=f"{rc.target.dotted}.{p.name}",
            )


RULES = [none_rejected_by_validation]
