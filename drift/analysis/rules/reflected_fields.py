"""DRIFT140: the consumer reads a target class's field list or class options by reflection, and
the target changed them.

Why: code that serialises vLLM's msgspec structs itself, or pins their wire shape, reads
`BlockStored.__struct_fields__` or a class option (`KVCacheEvent.__struct_config__.array_like`).
An added field (even with a default) changes the tuple and, for an `array_like` struct, every wire
position after it; a dropped class keyword turns arrays into maps. No name the consumer uses is
gone, so no other rule sees it. The fields are the class's own annotated fields after its bases'
(in MRO order, a re-declared one keeping its first place), the options its class keywords, the
nearest class that writes one deciding it; both from the facts of each release. Risky: whether the
consumer's use depends on the change (an equality against a literal tuple, a positional decode)
is not followed.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol

# msgspec's own: read to pin a wire format. A dataclass's or pydantic model's field table is read
# mostly to adapt (`{k: v for k, v in kw.items() if k in EngineArgs.__dataclass_fields__}`), which
# a changed list does not break: those stay silent.
_FIELD_LISTS = frozenset({"__struct_fields__"})
_OPTIONS = frozenset({"__struct_config__"})


def _fields(index: PackageIndex, cls: Symbol) -> tuple[str, ...]:
    out: list[str] = []
    for c in reversed(index.mro(cls)):
        for f in c.as_class.fields:
            if f.name not in out:
                out.append(f.name)
    return tuple(out)


def _option(index: PackageIndex, cls: Symbol, flag: str) -> str | None:
    """The class keyword `flag` as the nearest class in the MRO writes it (`"True"`), or None."""
    for c in index.mro(cls):
        for opt in c.as_class.raw.get("options") or ():
            key, eq, value = str(opt).partition("=")
            if eq and key.strip() == flag:
                return value.strip()
    return None


def _describe(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    added = [f for f in after if f not in before]
    gone = [f for f in before if f not in after]
    parts = []
    if added:
        parts.append("added " + ", ".join(f"`{f}`" for f in added))
    if gone:
        parts.append("removed " + ", ".join(f"`{f}`" for f in gone))
    if not parts:
        parts.append("reordered")
    return "; ".join(parts)


@rule("DRIFT140", RuleKind.FIELD_REMOVED, Severity.RISKY)
def reflected_fields(ctx: CheckContext) -> Iterator[Finding]:
    """A read of a target msgspec struct's field list (`__struct_fields__`) or of one of its class
    options (`__struct_config__.array_like`) whose value differs between the baseline and the
    target. A dataclass's or pydantic model's field table, read mostly to filter keys by it, is
    left alone."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            path = [str(p) for p in rec.get("path") or ()]
            names = [p.lstrip(".?") for p in path]
            if len(path) < 2:
                continue
            if names[-1] in _FIELD_LISTS:
                owner, flag = path[:-1], None
            elif len(path) >= 3 and names[-2] in _OPTIONS:
                owner, flag = path[:-2], names[-1]
            else:
                continue
            t, b = ctx.target_paths.steps(owner)[-1], ctx.baseline_paths.steps(owner)[-1]
            if t.kind != "class" or b.kind != "class" or t.sym is None or b.sym is None:
                continue
            key = (mod.get("path"), rec["line"], t.sym.dotted, flag)
            if key in seen:
                continue
            if flag is None:
                before, after = _fields(ctx.baseline, b.sym), _fields(ctx.target, t.sym)
                if before == after or not before:
                    continue
                what = f"`{t.sym.dotted.rsplit('.', 1)[-1]}`'s fields changed ({_describe(before, after)})"
                failure = f"no exception here: the field list is now ({', '.join(after)})"
            else:
                before_opt, after_opt = _option(ctx.baseline, b.sym, flag), _option(ctx.target, t.sym, flag)
                if before_opt == after_opt:
                    continue
                what = (f"`{t.sym.dotted.rsplit('.', 1)[-1]}`'s `{flag}` changed "
                        f"({before_opt or 'unset'} -> {after_opt or 'unset'})")
                failure = f"no exception here: `{flag}` is now {after_opt or 'unset (the default)'}"
            seen.add(key)
            yield Finding(
                rule_id="DRIFT140", kind=RuleKind.FIELD_REMOVED, severity=Severity.RISKY,
                title=f"{what}: this line reads it by reflection",
                consumer_site=site_of(mod, rec),
                target_evidence=(Location(t.sym.path, t.sym.line or 1, symbol=t.sym.dotted),),
                baseline_evidence=(Location(b.sym.path, b.sym.line or 1, symbol=b.sym.dotted),),
                predicted_failure=failure,
                fix=Fix("update what the consumer expects of the class's shape",
                        manual_reason="what the consumer does with the shape (a wire format, a check) is its own"),
                symbol=t.sym.dotted,
            )


RULES = [reflected_fields]
