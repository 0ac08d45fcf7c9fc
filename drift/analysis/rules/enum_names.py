"""An override returns a name the target now looks up in an enum, where that name is no member.

A base method that names its class (`get_name()` of an attention backend) returns a plain string;
the consumer's override returns its own (`return "TT"`). When the target's code starts taking that
string as a member name (`AttentionBackendEnum[backend.get_name()]`) in a module whose baseline
counterpart never did, or the enum loses the member, the lookup raises KeyError wherever it runs:
no signature changed, no name the consumer imports is gone.

Read from the consumer's method record (`returns_str`, the one string constant it returns;
probes/reach.py) and the target's text: modules that subscript a name with a call of the method
(`X[<receiver>.m()]`, `PackageIndex.source_search`), the names those modules bind that are enum
classes of the target (a base in their chain is `Enum`, `IntEnum`, `StrEnum`, `Flag`) whose members
name classes of the family declaring the method by dotted path (so a quantization config's
`get_name` is not taken for an attention backend's), and their members (class-level assignments and
fields with a value). A lookup counts as new in a module where the baseline looked the method's
return up in no enum (an enum renamed between releases is the same lookup). Without the target's
sources nothing is claimed. Risky: the lookup may sit on a path this consumer's objects never take.
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
            family = next((f for f in (_declaring(ctx.target, b, name) for b in tb) if f is not None), None)
            if value is None or family is None:
                continue
            found = _not_member(ctx, name, value, family)
            if found is not None:
                yield _finding(ctx, ref, cls, name, rec, value, *found)


def _declaring(index: PackageIndex, base: Symbol, name: str) -> Symbol | None:
    """The class furthest up `base`'s chain that declares method `name`: the family the method
    names its members of."""
    if base.kind != "class":
        return None
    owners = [o for o in index.mro(base) if name in o.as_class.methods]
    return owners[-1] if owners else None


def _registers_family(index: PackageIndex, enum: Symbol, family: Symbol) -> bool:
    """Whether the enum's members name, by dotted path, classes of `family` (the class declaring
    the method): `FLASH = "pkg.flash.FlashBackend"` with `FlashBackend(Backend)`. This is what ties
    a lookup of `.get_name()` to the consumer's kind of class and not to another class's
    `get_name` (a quantization config's). Up to four member values are resolved."""
    tried = 0
    for attr in enum.as_class.attrs.values():
        text = (attr.value or "").strip().strip("'\"")
        if "." not in text or not text.replace(".", "").replace("_", "").isalnum():
            continue
        tried += 1
        sym = index.lookup(text)
        if sym is not None and sym.kind == "class" and any(o.dotted == family.dotted for o in index.mro(sym)):
            return True
        if tried >= 4:
            break
    return False


def _not_member(ctx: CheckContext, method: str, value: str, family: Symbol) -> tuple[Symbol, list[str], bool] | None:
    """(enum, modules looking it up, whether those lookups are new) for the first enum of the
    target registering classes of `family` whose lookups of `.method()` meet `value` as no member.
    A lookup is new in a module where the baseline looked the method's return up in no enum."""
    now = enum_lookups(ctx.target, method)
    if not now:
        return None
    before = enum_lookups(ctx.baseline, method)
    looked_before = {m for _e, ms in before.values() for m in ms}
    for dotted, (enum, modules) in sorted(now.items()):
        if value in _members(ctx.target, enum) or not _registers_family(ctx.target, enum, family):
            continue
        old_enum, old_modules = before.get(dotted, (None, []))
        if old_enum is None:  # the enum moved: the same class name is the same enum
            old_enum, old_modules = next(((e, ms) for d, (e, ms) in before.items()
                                          if d.rsplit(".", 1)[-1] == dotted.rsplit(".", 1)[-1]), (None, []))
        new = [m for m in modules if m not in old_modules and m not in looked_before]
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
