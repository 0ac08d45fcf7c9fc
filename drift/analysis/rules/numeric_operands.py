"""DRIFT151: a value the consumer does arithmetic on became a container on the target.

vLLM turns a number into one per group when a feature grows (a KV offloading spec's
`gpu_block_size`, one block size, became `tuple[int, ...]`, one per KV-cache group, in 0.19).
A plugin that reads the inherited attribute in arithmetic (`self.offloaded_block_size %
self.gpu_block_size`, `n // spec.block_size`) raises TypeError on the target at that line,
though the name it reads is still there: no rule about removed names sees it.

What drift reads: the probe marks an attribute read that is an operand of an operator only
numbers take (`-`, `/`, `//`, `%`, `**`, `<<`, `>>`; not `+` and `*`, which also join and repeat
sequences, nor `%` formatting a string, probes/reach.py `arith`). The target's value there is a
builtin container its annotation or literal declares (`tuple[int, ...]`, `[...]`); the baseline's
is not that container: the consumer's arithmetic, which ran on the baseline, says it was a number.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import builtin_type
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity

_CONTAINERS = (tuple, list, dict, set, frozenset)


@rule("DRIFT151", RuleKind.ATTRIBUTE_RETYPED)
def number_became_container(ctx: CheckContext) -> Iterator[Finding]:
    """An attribute the consumer uses as a number (`n % x.block_size`, `x.size // 2`) is a
    builtin container on the target (`tuple[int, ...]`, one per group) and was none on the
    baseline: the operator raises TypeError. Risky in a module that never loads on the baseline."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or ():
            op, path = rec.get("arith"), rec.get("path")
            if rec.get("kind") != "attr" or not isinstance(op, str) or not path or len(path) < 2:
                continue
            t = ctx.target_paths.steps(path)[-1]
            now = builtin_type(t)
            if now not in _CONTAINERS:
                continue
            b = ctx.baseline_paths.steps(path)[-1]
            if not b.known or b.kind in ("consumer", "missing") or builtin_type(b) is now:
                continue
            key = (mod.get("path"), rec["line"], tuple(path))
            if key in seen:
                continue
            seen.add(key)
            name, declared = path[-1][1:], t.name or now.__name__
            ev = t.evidence
            yield Finding(
                rule_id="DRIFT151", kind=RuleKind.ATTRIBUTE_RETYPED,
                severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
                title=f"`.{name}` is now a `{declared}` on the target; the consumer uses it as a number (`{op}`)",
                consumer_site=site_of(mod, rec),
                target_evidence=(Location(ev[0], ev[1], symbol=name),) if ev else (),
                predicted_failure=f"TypeError: unsupported operand type(s) for {op}: "
                                  f"'int' and '{now.__name__}' (or '{now.__name__}' and 'int')",
                fix=Fix(f"read the number the consumer needs out of `.{name}` (a `{declared}` on the target: "
                        f"one entry per group, or pick the group this code serves)",
                        manual_reason="which entry of the container is the consumer's number is its own decision"),
                symbol=(t.owner.dotted + "." + name) if t.owner is not None else name,
            )


RULES = [number_became_container]
