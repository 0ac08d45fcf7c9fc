"""Values the target no longer accepts: None (or a literal) where the baseline tested for it.

The change comes from the one detector (drift/analysis/diff/nulls.py): a parameter the baseline guarded
(`if p is not None:`, `p or default`, an early return) that the target's body now dereferences
on every path from its entry. The rule reads what the consumer's call passes there.
"""

from __future__ import annotations

import ast
from typing import Iterator

from drift.analysis.context import CheckContext, ResolvedCall
from drift.analysis.diff.nulls import DroppedGuard, dropped_guards
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.analysis.rules.base import rule

_FUNCTION_KINDS = ("function", "method")
_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
# a value of each literal kind, to ask Python itself whether the dereference works on it
_SAMPLES = {"bool": False, "int": 0, "float": 0.0, "complex": 0j, "str": "", "bytes": b""}


def _kind_of_source(text: str | None) -> str | None:
    """The literal kind of a keyword's value as written (`None`, `3`, `"x"`), else None."""
    if not text:
        return None
    if text == "None":
        return "None"
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    name = type(value).__name__
    return name if name in _SAMPLES else None


def passed_values(rc: ResolvedCall) -> dict[str, tuple[str, Location, str]]:
    """{parameter: (literal kind, where, how)} for what the call provably passes: a literal
    keyword, a literal positional argument, or nothing at all where the default is None
    (how: keyword, positional, omitted). Anything passed through a name is unknown: absent."""
    rec = rc.rec
    params = rc.target_params or []
    out: dict[str, tuple[str, Location, str]] = {}
    for name, text in (rec.get("kw_values") or {}).items():
        kind = _kind_of_source(text)
        if kind is not None:
            out[name] = (kind, rc.keyword_site(name), "keyword")
    positional = [p for p in params if p.kind in _POSITIONAL]
    for index, kind, line, col in rec.get("arg_lits") or ():
        if index < len(positional):
            out[positional[index].name] = (kind, Location(rc.module["path"], line, snippet=rec.get("callee_src"),
                                                          col=col + 1), "positional")
    if rec.get("star_args") or rec.get("star_kwargs"):
        return out
    bound = {p.name for p in positional[: rec.get("positional") or 0]} | set(rec.get("keywords") or ())
    for p in params:
        if p.name not in bound and p.default == "None" and p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            out.setdefault(p.name, ("None", rc.site, "omitted"))
    return out


def _fails(kind: str, g: DroppedGuard) -> bool:
    """Whether a value of literal `kind` fails at the target's dereference (None always does)."""
    if kind == "None":
        return True
    sample = _SAMPLES.get(kind)
    if sample is None or g.guard_how != "isinstance":
        return False  # a None test in the baseline says nothing about other values
    if g.how in ("attr", "setattr"):
        return not hasattr(sample, g.detail)
    if g.how in ("setitem", "call"):
        return True
    if g.how in ("item", "iter", "in", "len", "unpack"):
        return not isinstance(sample, (str, bytes))
    return False  # arithmetic and comparisons: depends on the other operand


def _type_name(kind: str) -> str:
    return "NoneType" if kind == "None" else kind


@rule("DRIFT014", RuleKind.VALUE_REJECTED)
def value_rejected(ctx: CheckContext) -> Iterator[Finding]:
    """A call passes `None` for a parameter that the target now dereferences on every path, where
    the baseline tested it first.

    The baseline accepted None there: it tested the parameter (`if p is not None:`, `if p:`,
    `p or default`, `x if p is None else y`, an early `if p is None: return`) and did not touch
    it before the test. The target's body now reads an attribute of it, indexes it, calls it,
    iterates it, takes its `len()` or does arithmetic with it before any such test, so the call
    raises there (AttributeError: 'NoneType' object has no attribute ..., TypeError: 'NoneType'
    object is not subscriptable, ...).

    What counts as passing None: the literal `None` as a keyword or positional argument, or
    leaving out an argument whose default in the target is None. A value passed through a name
    is not judged. A literal of another kind (an int, a string) is reported only where the
    baseline guarded the parameter with `isinstance` and Python itself says the target's
    dereference fails on that kind (e.g. an int where the target now calls a str method).

    Fix: pass a real value, or keep the call from reaching the target with None. Silence a
    deliberate call with `# drift: ignore[DRIFT014]`.
    """
    if ctx.baseline is None:
        return
    memo = ctx.memo.setdefault("dropped_guards", {})
    for rc in ctx.calls:
        tat, bat = rc.target_params_at, rc.baseline_params_at
        if tat is None or bat is None or tat.kind not in _FUNCTION_KINDS or bat.kind not in _FUNCTION_KINDS:
            continue
        key = (bat.path, bat.line, tat.path, tat.line)
        if key not in memo:
            memo[key] = dropped_guards(bat.as_function, tat.as_function)
        dropped = memo[key]
        if not dropped:
            continue
        passed = passed_values(rc)
        if not passed:
            continue
        dead = ctx.dead_on_baseline(rc.module)
        for g in dropped:
            got = passed.get(g.param)
            if got is None or not _fails(got[0], g):
                continue
            kind, where, how = got
            value = "None" if kind == "None" else ("an " if kind[0] in "aeiou" else "a ") + kind
            what = "leaves out" if how == "omitted" else "passes"
            title = (f"`{rc.label}` now uses `{g.param}` unconditionally (`{g.use}`); the call {what} "
                     f"`{g.param}`" + (" (default None)" if how == "omitted" else f" as {value}"))
            yield Finding(
                rule_id="DRIFT014", kind=RuleKind.VALUE_REJECTED,
                severity=Severity.RISKY if dead else Severity.BREAKING,
                title=title,
                consumer_site=where,
                target_evidence=(Location(tat.path, g.line, symbol=tat.dotted, snippet=g.use, col=g.col + 1),),
                baseline_evidence=(Location(bat.path, g.guard_line, symbol=bat.dotted,
                                            snippet=f"`{g.param}` {g.guard} before any use"),),
                predicted_failure=g.failure(_type_name(kind)),
                fix=Fix(f"pass a real `{g.param}` to `{rc.label}` (the target now uses `{g.use}` on every call)",
                        manual_reason="which value the target needs is the consumer's decision"),
                symbol=f"{rc.dotted}.{g.param}",
                details=f"{bat.dotted.rsplit('.', 1)[-1]} {g.guard} `{g.param}` in the baseline "
                        f"({bat.path}:{g.guard_line}); the target dereferences it at {tat.path}:{g.line}.",
            )


RULES = [value_rejected]
