"""DRIFT096: a consumer function installed over a target method, where the target's method now
sets state on `self` that the replacement never sets.

`Cls.__post_init__ = mine` (or `Cls.method = mine`, `setattr(Cls, "method", mine)`) replaces the
method outright: what the target's own body does no longer runs. A replacement is often a copy of
the baseline's body with one line changed. When the target's version of the method starts setting
an attribute the baseline's did not (vLLM 0.24's `FusedMoEConfig.__post_init__` computes
`intermediate_size_per_partition` from a new field, where 0.22 took it as a constructor field),
the copy leaves it unset, or at its class-level placeholder, and every reader of it gets the wrong
value. Nothing raises at the patch.

What drift reads: the patch (probes/reach.py), the target's and the baseline's `self_sets` of the
method (facts), and the replacement's own stores on its first parameter (its IR `store` rows,
`setattr(self, "x", ...)` too, and what the target's own methods it calls on `self` set). A replacement that hands `self` to another callable (the saved
original, `super()`, a helper) may run the original's body and is left alone. Risky: a reader may
tolerate the placeholder. A replaced `__init__` is left to DRIFT075, which reports the new state the
kept methods read (state only the replaced methods read is no break).
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _installed_function, _lookup_method, _patches
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.probes.consumer_scan import ir_of


def _own_stores(record: dict, qual: str, module: str) -> tuple[set[str], set[str], bool, int | None]:
    """(attributes the function stores on its first parameter, the methods it calls on it,
    whether it hands that parameter to another callable, the function's line) from the module's
    IR (`selfuse`, probes/ir.py); a function the IR does not describe counts as handing it on."""
    ir = ir_of(record)
    key = qual if qual in (ir.get("defs") or {}) else f"{module}.{qual}"
    spec = (ir.get("defs") or {}).get(key)
    if not spec or not spec[1]:
        return set(), set(), True, None
    try:  # a host's reply is untrusted: a malformed row describes nothing
        use = (ir.get("selfuse") or {}).get(key) or [[], [], 0]
        line = int(spec[2]) if len(spec) > 2 else None
        return {str(a) for a in use[0]}, {str(m) for m in use[1]}, bool(use[2]), line
    except (TypeError, ValueError, IndexError, AttributeError):
        return set(), set(), True, None


@rule("DRIFT096", RuleKind.OVERRIDE_SKIPS_STATE, Severity.RISKY)
def replacement_skips_new_state(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer function patched over a target method (`Cls.m = mine`) that never sets an
    attribute of `self` the target's `Cls.m` now sets and the baseline's did not: the target's
    code that reads it sees it unset (or at its placeholder default). Not reported where the
    replacement hands `self` on (it may run the original)."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod, patch in _patches(ctx):
        name = patch.get("name")
        if name == "__init__":
            continue  # a wholesale `__init__` replacement is DRIFT075's: it names the new state kept methods read
        owner = ctx.target_paths.value(tuple(patch.get("path") or ()))
        bowner = ctx.baseline_paths.value(tuple(patch.get("path") or ()))
        if not name or owner.kind != "class" or owner.sym is None or bowner.kind != "class" or bowner.sym is None:
            continue
        home, fn = _installed_function(ctx, mod, patch)
        record = ctx.consumer.modules.get(home)
        if not fn or record is None:
            continue
        tm, bm = _lookup_method(ctx.target, [owner.sym], name), _lookup_method(ctx.baseline, [bowner.sym], name)
        if tm is None or bm is None:
            continue
        new = sorted(set(tm.as_function.behaviour.self_sets) - set(bm.as_function.behaviour.self_sets))
        if not new:
            continue
        stored, called, hands_on, line = _own_stores(record, fn, home)
        for helper in called - {name}:  # `self._begin_tool_call()`: what the target's helper sets is set
            hm = _lookup_method(ctx.target, [owner.sym], helper)
            if hm is not None:
                stored |= set(hm.as_function.behaviour.self_sets)
        missing = [a for a in new if a not in stored and not a.startswith("__")]
        key = (home, fn, owner.sym.dotted, name)
        if hands_on or not missing or key in seen:
            continue
        seen.add(key)
        sets = tm.as_function.behaviour.self_sets
        first = missing[0]
        where = (sets.get(first) or [tm.line])[0]
        path = record.get("path") or mod.get("path") or "?"
        yield Finding(
            rule_id="DRIFT096", kind=RuleKind.OVERRIDE_SKIPS_STATE, severity=Severity.RISKY,
            title=f"`{fn.rsplit('.', 1)[-1]}` replaces `{owner.sym.dotted.rsplit('.', 1)[-1]}.{name}` but never sets "
                  f"`self.{first}`, which the target's `{name}` now sets"
                  + (f" (also {', '.join('`' + a + '`' for a in missing[1:4])})" if len(missing) > 1 else ""),
            consumer_site=Location(path, line or patch.get("line") or 1, symbol=f"{owner.sym.dotted}.{name}"),
            target_evidence=(Location(tm.path, where, symbol=f"{tm.dotted}"),),
            baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
            predicted_failure=None,
            details=f"the replacement runs instead of the target's `{name}`; the baseline's `{name}` did not set "
                    f"`{first}`, the target's does, so after the patch it is left unset or at its placeholder",
            fix=Fix(f"set `self.{first}` in the replacement as the target's `{name}` does, or call the original",
                    manual_reason="what value the replacement must compute is read from the target's method"),
            symbol=f"{owner.sym.dotted}.{name}",
        )


RULES = [replacement_skips_new_state]
