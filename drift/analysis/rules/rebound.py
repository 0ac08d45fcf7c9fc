"""DRIFT079: the target now calls an override positionally in a new order, so its arguments land
in the wrong parameters.

`Platform.validate_request(cls, prompt, params, processed_inputs)` became
`validate_request(cls, processed_inputs, params)`, and vLLM's input processor calls
`current_platform.validate_request(processed_inputs, params)`. An override still declared the old
way accepts that call (no TypeError) and reads the processed inputs as `prompt`: the signature
rules see nothing wrong, the override silently checks the wrong thing.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _lookup_method, _module_of, _site_failure, _sites_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity

_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _slots(names_kinds) -> list[str]:
    out = [n for n, k in names_kinds if k in _POSITIONAL]
    return out[1:] if out and out[0] in ("self", "cls") else out


@rule("DRIFT079", RuleKind.OVERRIDE_INCOMPATIBLE, Severity.RISKY)
def override_arguments_rebound(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override declared in the baseline's parameter order, where the target's
    declaration moved a parameter the override also has to another position and the target calls
    the method with an argument at that position: the argument binds to the override's old
    parameter there, with no error."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        for name, m in (cls.get("methods") or {}).items():
            if name.startswith("__"):
                continue
            tm = _lookup_method(ctx.target, tb, name)
            bm = _lookup_method(ctx.baseline, bb, name)
            if tm is None or bm is None:
                continue
            own = _slots([(p[0], p[1]) for p in m.get("params") or []])
            new = _slots([(p.name, p.kind) for p in tm.as_function.params])
            old = _slots([(p.name, p.kind) for p in bm.as_function.params])
            if own[:len(old)] != old[:len(own)] or new == old:
                continue  # the override does not follow the baseline's order, or nothing moved
            moved = [(i, n) for i, n in enumerate(new) if i < len(own) and own[i] != n and n in own]
            if not moved:
                continue
            sites = [s for s in _sites_of(ctx.target, name, tm) or [] if not s[4]]
            if any(_site_failure(name, m.get("params") or [], s) for s in sites):
                continue  # some call already fails to bind: DRIFT070 reports the override
            reach = max((s[2] for s in sites), default=0)
            moved = [(i, n) for i, n in moved if i < reach]
            if not moved:
                continue  # the target's callers pass them by name: the order does not matter
            i, n = moved[0]
            site = next(s for s in sites if s[2] > i)
            base = tm.dotted.rsplit(".", 2)[-2]
            yield Finding(
                rule_id="DRIFT079", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
                title=f"`{cls['qual']}.{name}` receives `{n}` in `{own[i]}`: `{base}.{name}` now takes "
                      f"({', '.join(new)}) and the target passes them by position",
                consumer_site=Location(_module_of(ctx, cls)["path"], m["line"], symbol=f"{ref}.{name}",
                                       col=(m.get("col") or 0) + 1),
                target_evidence=(Location(site[0], site[1], symbol=f".{name}()"),
                                 Location(tm.path, tm.line, symbol=tm.dotted)),
                baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
                predicted_failure=None,
                details=f"no error where the call is made: the override reads the target's `{n}` as `{own[i]}`",
                fix=Fix(f"declare `{name}` as ({', '.join(new)}) like `{base}`",
                        manual_reason="the override's body must follow the new parameter meanings"),
                symbol=tm.dotted,
            )


RULES = [override_arguments_rebound]
