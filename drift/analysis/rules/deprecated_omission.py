"""DRIFT111: a call that leaves out a parameter the target added with a `None` default and whose
omission the target's function warns is deprecated, taking a fallback in its place.

`await init_app_state(engine, state=state, args=args)` binds on both releases, so no signature rule
speaks. But vLLM 0.18's `init_app_state` gained `supported_tasks=None`, and its body says `if
supported_tasks is None: warnings.warn("... will be required ...", DeprecationWarning);
supported_tasks = _FALLBACK_SUPPORTED_TASKS`: where the baseline worked the value out itself (it
asked the engine), the target now assumes one (generation only), and what the consumer relied on
(embedding servers built for an embedding model) silently stops happening. The next release makes
the parameter required.

What drift reads: the target function's `omit_warns` (facts +pf2, probes/behaviour.py: an `if p is
None:` whose block warns with DeprecationWarning / FutureWarning or a message saying "deprecated" /
"will be required" / "will be removed"), the parameter's absence from the baseline's signature, and
the call's positional count and keywords. Risky: the call still runs, on the fallback.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, RuleKind, Severity


@rule("DRIFT111", RuleKind.DEFAULT_CHANGED, Severity.RISKY)
def deprecated_omission(ctx: CheckContext) -> Iterator[Finding]:
    """The call leaves out a parameter the target added and whose omission it deprecates (the
    function warns and falls back on a value of its own): the call runs on that fallback."""
    if ctx.baseline is None:
        return
    seen: set[tuple[str, int, str]] = set()
    for rc in ctx.calls:
        if rc.target is None or rc.baseline is None or rc.target_params is None or rc.baseline_params is None:
            continue
        if rc.target.kind not in ("function", "method") or rc.rec.get("star_kwargs") or rc.rec.get("star_args"):
            continue
        warns = (rc.target.facts.get("behaviour") or {}).get("omit_warns") or {}
        if not warns:
            continue
        before = {p.name for p in rc.baseline_params}
        slots = [p for p in rc.target_params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        passed = {p.name for p in slots[: rc.rec.get("positional") or 0]} | set(rc.rec.get("keywords") or ())
        for p in rc.target_params:
            line = warns.get(p.name)
            if not isinstance(line, int) or p.name in before or p.name in passed or p.required:
                continue
            key = (rc.site.path, rc.site.line, p.name)
            if key in seen:
                continue
            seen.add(key)
            yield Finding(
                rule_id="DRIFT111", kind=RuleKind.DEFAULT_CHANGED, severity=Severity.RISKY,
                title=f"`{rc.label}` gained `{p.name}`, and calling it without `{p.name}` is deprecated: "
                      f"the target falls back on a value of its own",
                consumer_site=rc.site,
                target_evidence=(ctx.evidence(rc.target, line),),
                baseline_evidence=(ctx.evidence(rc.baseline),),
                details=f"the baseline's `{rc.baseline.dotted.rsplit('.', 1)[-1]}` had no `{p.name}` (it worked the "
                        f"value out itself); the target's warns when `{p.name}` is None (line {line}) and "
                        f"goes on with a fallback",
                fix=Fix(f"pass `{p.name}=` explicitly", manual_reason="the value is the consumer's to say "
                                                                    "(what the baseline computed itself)"),
                symbol=f"{rc.dotted}:{p.name}",
            )


RULES = [deprecated_omission]
