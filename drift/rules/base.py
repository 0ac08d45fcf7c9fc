"""What a rule is: a stable id, a docstring that explains the drift, and a generator.

Rules are plain functions decorated with `@rule(...)`; packs are lists of them. Users add
their own through the `drift.rules` entry point group or `--rules path/to/file.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from drift.check.context import CheckContext
from drift.findings import Finding, RuleKind, Severity

RuleFunc = Callable[[CheckContext], Iterator[Finding]]


@dataclass(frozen=True)
class Rule:
    id: str
    kind: RuleKind
    severity: Severity
    check: RuleFunc
    pack: str = "generic"

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()


def rule(rule_id: str, kind: RuleKind, severity: Severity = Severity.BREAKING, *, pack: str = "generic"):
    def wrap(func: RuleFunc) -> Rule:
        return Rule(rule_id, kind, severity, func, pack)

    return wrap


def error_call_name(rc) -> str:
    """How Python names the callable in its TypeError messages."""
    if rc.is_constructor:
        return f"{rc.label}.__init__()"
    return f"{rc.label.rsplit('.', 1)[-1]}()"
