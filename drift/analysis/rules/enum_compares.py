"""A string test of an attribute the target turned from `str` into an Enum: its answer is now fixed.

A consumer tests a target object's attribute against a string (`layer.activation == "swigluoai"`,
`cfg.mode in ("a", "b")`). The baseline declared the attribute a `str` (or a `Literal` of strings);
the target now holds an Enum member there (`self.activation = MoEActivation.from_str(activation)`).
A plain Enum member never equals a string, so `==` and `in` are always False and `!=` always True:
nothing raises, the branch the consumer wrote for that value silently stops running. An Enum that
mixes in `str` (`class E(str, Enum)`, `StrEnum`) still compares equal to its value and is left
alone.

Read from the consumer's uses (`vs_str`, probes/reach.py: the literals a use is tested against),
the one path evaluator on each side (the target's attribute is an object of a class the facts say
is an enum), and what the baseline declared the attribute as: a field's annotation, or what
`self.x = ...` stored (a parameter's annotation, an annotated assignment, a string literal).
Risky: the consumer may never meet the branch; no fix is offered, since which member the string
meant is the consumer's to say (the fix names the class).
"""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import strip_annotation
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol

_STR_LITERAL = re.compile(r"^(?:typing\.)?Literal\[\s*(['\"].*)\]$")
_STR_MIXINS = frozenset({"str", "StrEnum", "enum.StrEnum"})


def declared(index: PackageIndex, cls: Symbol, name: str) -> tuple[str, Symbol, int] | None:
    """(what `cls` declares attribute `name` as, the class that declares it, the line): a field's
    annotation, else what the `self.name = ...` that sets it stored (a parameter's annotation, an
    annotated assignment, a literal's type); None when the facts do not say."""
    for owner in index.mro(cls):
        for fl in owner.as_class.fields:
            if fl.name == name and fl.annotation:
                return fl.annotation, owner, fl.line or owner.line
    hit = index.instance_attrs(cls).get(name)
    if hit is None:
        return None
    owner, ia = hit
    kind, _, text = (ia.value or "").partition(":")
    if kind == "ann":
        return text, owner, ia.line
    if kind == "lit" and text == "str":
        return "str", owner, ia.line
    if kind == "param":
        method = owner.as_class.methods.get(ia.method)
        for p in method.param_facts if method is not None else ():
            if p.name == text and p.annotation:
                return p.annotation, owner, ia.line
    return None


def _is_str(text: str) -> bool:
    """`str`, `Optional[str]`, `str | None`, or a Literal of string values only."""
    bare = strip_annotation(text) or ""
    if bare == "str":
        return True
    m = _STR_LITERAL.match(bare.strip())
    return bool(m) and all(part.strip()[:1] in "'\"" for part in m.group(1).split(","))


def _plain_enum(index: PackageIndex, cls: Symbol) -> bool:
    """An Enum class none of whose bases is `str` or a StrEnum: its members equal no string."""
    chain = index.mro(cls)
    if not any(c.as_class.kind == "enum" for c in chain):
        return False
    return not any(b.partition("[")[0].strip() in _STR_MIXINS for c in chain for b in c.as_class.bases)


def enum_retyped(ctx: CheckContext, path: list[str]) -> tuple | None:
    """(the target's value, its owner's class, what the baseline declared) when `path` ends in an
    attribute the baseline declared a `str` and the target holds a member of a plain Enum; else None."""
    tv = ctx.target_paths.steps(path)
    t, towner = tv[-1], tv[-2]
    if t.kind != "instance" or t.cls is None or towner.kind != "instance" or towner.cls is None \
            or not _plain_enum(ctx.target, t.cls):
        return None
    bowner = ctx.baseline_paths.steps(path)[-2]
    if bowner.kind != "instance" or bowner.cls is None:
        return None
    before = declared(ctx.baseline, bowner.cls, path[-1][1:])
    if before is None or not _is_str(before[0]):
        return None
    return t, towner.cls, before


def _outcome(rec: dict) -> str:
    """What the test now always gives: True for `!=` / `not in` (`vs_negated`), else False."""
    return "always True" if rec.get("vs_negated") else "always False"


@rule("DRIFT117", RuleKind.ATTRIBUTE_RETYPED, Severity.RISKY)
def string_test_of_enum(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer tests a target object's attribute against string literals (`==`, `!=`, `in`);
    the baseline declared it a `str` and the target holds a member of an Enum that does not mix
    in `str`: the test's answer no longer depends on the value."""
    if ctx.baseline_paths is None or ctx.target_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            literals = rec.get("vs_str")
            path = rec.get("path") or ()
            if not literals or rec.get("kind") != "attr" or len(path) < 2 or not path[-1].startswith("."):
                continue
            key = (mod.get("path"), rec["line"], tuple(path))
            if key in seen:
                continue
            hit = enum_retyped(ctx, path)
            if hit is None:
                continue
            seen.add(key)
            yield _finding(ctx, mod, rec, path[-1][1:], literals, *hit)


def _finding(ctx: CheckContext, mod: dict, rec: dict, name: str, literals: list[str], t, towner: Symbol,
             before: tuple[str, Symbol, int]) -> Finding:
    enum = t.cls.dotted.rsplit(".", 1)[-1]
    owner = towner.dotted.rsplit(".", 1)[-1]
    site = site_of(mod, rec)
    listed = ", ".join(f'"{v}"' for v in literals)
    answer = _outcome(rec)
    evidence = Location(t.evidence[0], t.evidence[1], symbol=f"{towner.dotted}.{name}") if t.evidence else \
        Location(t.cls.path, t.cls.line, symbol=t.cls.dotted)
    return Finding(
        rule_id="DRIFT117", kind=RuleKind.ATTRIBUTE_RETYPED, severity=Severity.RISKY,
        title=f"`{owner}.{name}` is now a `{enum}` member, no longer a `str`: the test against {listed} is {answer}",
        consumer_site=site,
        target_evidence=(evidence, Location(t.cls.path, t.cls.line, symbol=t.cls.dotted)),
        baseline_evidence=(Location(before[1].path, before[2], symbol=f"{before[1].dotted}.{name}"),),
        predicted_failure=f"no exception: a `{enum}` member equals no string, so the test is {answer}",
        fix=Fix(f"compare `{name}` with the `{enum}` member meant by {listed} (or its `.value`)",
                manual_reason="which member each string meant is the consumer's to say"),
        symbol=f"{towner.dotted}.{name}",
        details=f"baseline declared `{name}: {before[0]}`; `{enum}` does not mix in `str`",
    )


RULES = [string_test_of_enum]
