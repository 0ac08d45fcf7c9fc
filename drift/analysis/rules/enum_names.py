"""An override returns a name the target now looks up in an enum, where that name is no member.

A base method that names its class (`get_name()` of an attention backend) returns a plain string;
the consumer's override returns its own (`return "TT"`). When the target's code starts taking that
string as a member name (`AttentionBackendEnum[backend.get_name()]`) in a module whose baseline
counterpart never did, or the enum loses the member, the lookup raises KeyError wherever it runs:
no signature changed, no name the consumer imports is gone.

Read from the consumer's method record (`returns_str`, the one string constant it returns;
probes/reach.py) and the target's text: modules that subscript a name with a call of the method
(`X[<receiver>.m()]`, `PackageIndex.source_search`), the names those modules bind that are enum
classes of the target (a base in their chain is `Enum`, `IntEnum`, `StrEnum`, `Flag`), and their
members (class-level assignments and fields with a value). Without the target's sources nothing is
claimed. Risky: the lookup may sit on a path this consumer's objects never take.
"""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _module_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import Needle, PackageIndex, Symbol

_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})


def _lookup_pattern(name: bytes, method: bytes) -> re.Pattern[bytes]:
    """`<name>[<receiver>.<method>()]`, the receiver a dotted name or a call (`self.attn_backend`,
    `backend()`, `layer.get_attn_backend()`)."""
    return re.compile(rb"(?<![\w.])%s\[\s*[\w.]+(?:\([^()\]]*\))?(?:\.[\w]+)*\.%s\(\s*\)\s*\]" % (name, method))


def _is_enum(index: PackageIndex, cls: Symbol) -> bool:
    for owner in index.mro(cls):
        if any(b.split("[", 1)[0].rsplit(".", 1)[-1] in _ENUM_BASES for b in owner.as_class.bases):
            return True
    return False


def _members(index: PackageIndex, cls: Symbol) -> set[str]:
    node = cls.as_class
    return {n for n in node.attrs if not n.startswith("_")} | \
        {f.name for f in node.fields if f.has_default and not f.name.startswith("_")}


def enum_lookups(index: PackageIndex, method: str) -> dict[str, tuple[Symbol, list[str]]]:
    """enum class dotted -> (class, modules) where the target's text looks the return of `.method()`
    up as a member name of that enum; {} without sources."""
    if not index.has_sources:
        return {}
    found = index.memo("enum-lookups", method, lambda: _enum_lookups(index, method)) or {}
    out = {}
    for dotted, modules in found.items():  # kept as plain names (the store keeps the answer), read back here
        sym = index.lookup(dotted)
        if sym is not None:
            out[dotted] = (sym, list(modules))
    return out


def _enum_lookups(index: PackageIndex, method: str) -> dict[str, list[str]]:
    word = re.escape(method.encode())
    modules = index.source_search(Needle(method.encode(), _lookup_pattern(rb"[A-Za-z_]\w*", word)))
    out: dict[str, list[str]] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules.get(mod_name) or {})
        for local in sorted(set(mod.imports) | set(mod.classes)):
            if not local[:1].isupper():
                continue  # an enum class is spelled as a class
            sym = index.resolve_in(mod_name, local)
            if sym is None or sym.kind != "class" or not _is_enum(index, sym):
                continue
            hits = index.source_search(Needle(method.encode(), _lookup_pattern(re.escape(local.encode()), word)))
            if mod_name in hits:
                out.setdefault(sym.dotted, []).append(mod_name)
    return out


@rule("DRIFT089", RuleKind.NAME_NOT_MEMBER, Severity.RISKY)
def returned_name_not_member(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override of a target method returns one string constant; the target's code looks
    the method's return up as a member name of an enum (`E[obj.m()]`) in a module where the
    baseline's did not, or the enum no longer has that member; the string is no member of the
    target's enum."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        for name, rec in sorted((cls.get("methods") or {}).items()):
            value = rec.get("returns_str")
            if value is None or not tb or not any(_defines(ctx.target, b, name) for b in tb):
                continue
            found = _not_member(ctx, name, value)
            if found is not None:
                yield _finding(ctx, ref, cls, name, rec, value, *found)


def _defines(index: PackageIndex, base: Symbol, name: str) -> bool:
    return base.kind == "class" and any(name in owner.as_class.methods for owner in index.mro(base))


def _not_member(ctx: CheckContext, method: str, value: str) -> tuple[Symbol, list[str], bool] | None:
    """(enum, modules looking it up, whether those lookups are new) for the first enum of the
    target whose lookups of `.method()` meet `value` as no member."""
    now = enum_lookups(ctx.target, method)
    if not now:
        return None
    before = enum_lookups(ctx.baseline, method)
    for dotted, (enum, modules) in sorted(now.items()):
        if value in _members(ctx.target, enum):
            continue
        old_enum, old_modules = before.get(dotted, (None, []))
        if old_enum is None:  # the enum moved: the same class name is the same enum
            old_enum, old_modules = next(((e, ms) for d, (e, ms) in before.items()
                                          if d.rsplit(".", 1)[-1] == dotted.rsplit(".", 1)[-1]), (None, []))
        new = [m for m in modules if m not in old_modules]
        was_member = old_enum is not None and value in _members(ctx.baseline, old_enum)
        if new or was_member:
            return enum, (new or modules), bool(new)
    return None


def _finding(ctx: CheckContext, ref: str, cls: dict, name: str, rec: dict, value: str, enum: Symbol,
             modules: list[str], new: bool) -> Finding:
    mod = _module_of(ctx, cls)
    short, enum_short = ref.rsplit(".", 1)[-1], enum.dotted.rsplit(".", 1)[-1]
    where = [ModuleFacts(ctx.target.modules.get(m) or {}).path or m for m in modules[:3]]
    how = f"now looked up as `{enum_short}[<...>.{name}()]` in {', '.join(where)}" if new else \
        f"no longer a member of `{enum_short}`, which the target looks it up in"
    return Finding(
        rule_id="DRIFT089", kind=RuleKind.NAME_NOT_MEMBER, severity=Severity.RISKY,
        title=f"`{short}.{name}()` returns {value!r}, which is no member of the target's `{enum_short}`: "
              f"the return is {how}",
        consumer_site=Location(mod.get("path") or "?", rec.get("returns_line") or rec.get("line") or 1),
        target_evidence=(Location(enum.path, enum.line, symbol=enum.dotted),)
        + tuple(Location(p, 1, symbol=m) for p, m in zip(where, modules)),
        baseline_evidence=(),
        predicted_failure=f"KeyError: {value!r}",
        fix=Fix(f"return the name of a `{enum_short}` member (one the target registers this kind of class under)",
                manual_reason="which member stands for the consumer's class is the consumer's choice"),
        symbol=enum.dotted,
        details=f"members: {', '.join(sorted(_members(ctx.target, enum))[:12])}",
    )


RULES = [returned_name_not_member]
