"""DRIFT033: the consumer awaits a call whose callee the target no longer defines with `async def`;
DRIFT121: the reverse, a callee the target made `async def` that the consumer calls without `await`.

`await engine.get_tokenizer()` worked while `get_tokenizer` was a coroutine function; when the
target turns it into a plain method returning the tokenizer, the `await` is applied to the
tokenizer and Python raises `TypeError: object X can't be used in 'await' expression`. Nothing
in a signature shows it: the parameters and even the annotated return type stay the same. The
probe records which calls are awaited (`awaited`, probes/reach.py); the facts record `async def`
on both sides. A plain `def` may still hand back an awaitable (it returns a coroutine, a future
or a task): when the target's return annotation says so, nothing is reported; when it has no
return annotation the finding is risky, since the body may return something awaitable.
"""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, RuleKind, Severity

# return annotations that name something `await` accepts
_AWAITABLE = re.compile(r"\b(Awaitable|Coroutine|Future|Task|AsyncIterator|AsyncGenerator|Any)\b")


def still_awaitable(annotation: str | None) -> bool | None:
    """Whether a plain function's return annotation promises an awaitable: True, False, or None
    when there is no annotation (nothing known)."""
    text = (annotation or "").strip()
    if not text:
        return None
    return bool(_AWAITABLE.search(text))


def _shown(annotation: str | None) -> str:
    """The returned class as Python names it in the error (`Tokenizer` for `"pkg.Tokenizer"`)."""
    text = (annotation or "").strip().strip("'\"")
    name = text.rsplit(".", 1)[-1]
    return name if name.isidentifier() else f"of type {text}"


@rule("DRIFT033", RuleKind.RETURN_SHAPE)
def awaited_no_longer_async(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer awaits a call of a function the baseline defined with `async def` and the
    target defines with a plain `def`: the `await` receives the returned value itself and raises
    `TypeError` (risky when the target's function has no return annotation to say what it returns)."""
    if ctx.baseline is None:
        return
    seen: set[tuple[str, int]] = set()
    for rc in ctx.calls:
        if not rc.rec.get("awaited") or rc.is_constructor or rc.target is None or rc.baseline is None:
            continue
        if rc.target.kind not in ("function", "method") or rc.baseline.kind not in ("function", "method"):
            continue
        now, before = rc.target.as_function, rc.baseline.as_function
        if not before.is_async or now.is_async:
            continue
        awaitable = still_awaitable(now.returns)
        if awaitable:
            continue
        site = rc.site
        if (site.path, site.line) in seen:
            continue
        seen.add((site.path, site.line))
        returns = f" -> {now.returns}" if now.returns else ""
        yield Finding(
            rule_id="DRIFT033", kind=RuleKind.RETURN_SHAPE,
            severity=Severity.BREAKING if awaitable is False else Severity.RISKY,
            title=f"`{rc.label}` is no longer a coroutine function (`def {now.name}(...){returns}`); "
                  f"the consumer awaits its result",
            consumer_site=site,
            target_evidence=(ctx.evidence(rc.target),),
            baseline_evidence=(ctx.evidence(rc.baseline),),
            predicted_failure=f"TypeError: object {_shown(now.returns)} can't be used in 'await' expression"
            if awaitable is False else None,
            details="the baseline defined it with `async def`"
                    + ("" if awaitable is False else "; the target's has no return annotation, so it may still "
                                                     "return an awaitable"),
            fix=Fix(f"call `{rc.label}(...)` without `await`",
                    manual_reason="code that must run on both releases needs to check whether the result is awaitable"),
            symbol=rc.dotted,
        )


@rule("DRIFT121", RuleKind.RETURN_SHAPE)
def now_async_not_awaited(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer calls, without `await`, a function the baseline defined with a plain `def`
    and the target defines with `async def`: the call now returns a coroutine object. Used as a
    value (`f().x`, `f()[0]`, `for _ in f()`, `a, b = f()`, or through a local read that way)
    it raises; called as a statement, the function's body never runs (Python warns only that
    the coroutine was never awaited). A result awaited, returned, yielded or handed to another
    call (`asyncio.run(f())`, `create_task(r)`) may be awaited there: silent."""
    if ctx.baseline is None:
        return
    seen: set[tuple[str, int]] = set()
    for rc in ctx.calls:
        how = rc.rec.get("unawaited")
        if not how or rc.rec.get("awaited") or rc.is_constructor or rc.target is None or rc.baseline is None:
            continue
        if rc.target.kind not in ("function", "method") or rc.baseline.kind not in ("function", "method"):
            continue
        now, before = rc.target.as_function, rc.baseline.as_function
        if before.is_async or not now.is_async:
            continue
        site = rc.site
        if (site.path, site.line) in seen:
            continue
        seen.add((site.path, site.line))
        dropped = how[0] == "dropped"
        yield Finding(
            rule_id="DRIFT121", kind=RuleKind.RETURN_SHAPE, severity=Severity.BREAKING,
            title=f"`{rc.label}` is now a coroutine function (`async def {now.name}`); the consumer calls it "
                  f"without `await`" + (": its body never runs" if dropped else " and uses the coroutine as its result"),
            consumer_site=site,
            target_evidence=(ctx.evidence(rc.target),),
            baseline_evidence=(ctx.evidence(rc.baseline),),
            predicted_failure=(f"RuntimeWarning: coroutine '{now.qualname or now.name}' was never awaited" if dropped else
                               f"AttributeError or TypeError on a 'coroutine' object (used at line {how[1]})"),
            details="the baseline defined it with a plain `def`",
            fix=Fix(f"`await {rc.label}(...)` (from an `async def`), or run it with `asyncio.run`",
                    manual_reason="the calling code must become asynchronous or run an event loop"),
            symbol=rc.dotted,
        )


RULES = [awaited_no_longer_async, now_async_not_awaited]
