"""What a rule is: a stable id, a docstring that explains the drift, and a generator.

Rules are plain functions decorated with `@rule(...)`; packs are lists of them. Users add
their own through the `drift.rules` entry point group or `--rules path/to/file.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from drift.analysis.context import CheckContext
from drift.findings import Finding, RuleKind, Severity

RuleFunc = Callable[[CheckContext], Iterator[Finding]]


@dataclass(frozen=True)
class Rule:
    id: str
    kind: RuleKind
    severity: Severity
    check: RuleFunc
    pack: str = "generic"
    # Names the rule looks up or text-searches in the target whatever the consumer uses. A
    # demand-driven host probe answers them in its first reply, so no second exchange is needed.
    searches: tuple[str, ...] = ()
    # Its whole-package questions are answered meanwhile by a forked worker (drift.model.demand
    # `answered_ahead`): it runs after the other rules, so the answers are there when it asks
    # and this core never waits for the other.
    answered_ahead: bool = False

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()


def rule(rule_id: str, kind: RuleKind, severity: Severity = Severity.BREAKING, *, pack: str = "generic",
         searches: tuple[str, ...] = (), answered_ahead: bool = False):
    def wrap(func: RuleFunc) -> Rule:
        return Rule(rule_id, kind, severity, func, pack, tuple(searches), answered_ahead)

    return wrap


def error_call_name(rc) -> str:
    """How Python (3.10+, by __qualname__) names the callable in its TypeError messages."""
    at = rc.target_params_at
    if rc.is_constructor:
        if at is not None and at.kind == "method":  # an __init__, maybe inherited: its class names it
            return f"{at.dotted.rsplit('.', 2)[-2]}.__init__()"
        return f"{rc.label}.__init__()"
    if rc.target is not None and rc.target.kind == "method":
        return f"{'.'.join(rc.target.dotted.rsplit('.', 2)[-2:])}()"
    return f"{rc.label.rsplit('.', 1)[-1]}()"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
