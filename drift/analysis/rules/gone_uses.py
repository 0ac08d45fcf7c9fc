"""DRIFT005: a name the target removed, used away from the import that binds it.

A use is any place Python evaluates the name: a call or attribute read, and a bare name the probe
records in `name_loads` (probes/name_loads.py: a parameter or return annotation evaluated at def
time, a default, a decorator, a base class, an `isinstance` argument, a value).

DRIFT001 reports the import, where Python fails first. A user who fixes only that line (drops
the name, or wraps the import in `try/except ImportError`) still has every call and attribute
read of the name further down: each raises `NameError` (or calls the fallback None) once the
import no longer stops the module. The maintainers' own fix touches each of those lines, so each
is a finding of its own, at the use. Risky, not breaking: while the import stands it masks them.
Only a name that is gone outright counts: a name that moved, or that a `__getattr__` shim still
serves, works at every use once its import is fixed.

Where the gone name is a class of constants the target replaced by one of the same member values
(`enum_successors`: `CompilationLevel.PIECEWISE` -> `CompilationMode.VLLM_COMPILE`), the fix says
each member the line reads by its new name, and the field the value now belongs in when the
target's class types exactly one other field with the successor and the baseline typed the field
the line uses with the constants' builtin type (`compilation_config.level` -> `.mode`). Where
DRIFT001's fix at the import (`rename_constants_class`, or `rename_import` for a class the target's
own modules replaced) writes every use of the file at once, the use carries that same edit, run at
the import's line once for all of them.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.enum_successors import enum_successor, successor_field
from drift.analysis.rules.imports import _getattr_shim, successor_import_fix
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _gone_imports(ctx: CheckContext, mod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The module's imports of names the baseline defines and the target has nowhere:
    {dotted name: import record}."""
    out: dict[str, dict[str, Any]] = {}
    for imp in mod.get("imports") or []:
        target = imp.get("target") or ""
        if imp.get("guarded") or imp.get("statement") != "from" or target in out:
            continue
        if ctx.target.lookup(target) is not None or ctx.baseline.lookup(target) is None:
            continue
        module, name = target.rsplit(".", 1)
        if (module in ctx.target.modules and _getattr_shim(ctx, module, name)) or ctx.relocated(target):
            continue  # moved or shimmed: every use works once the import is fixed
        out[target] = imp
    return out


def _written(rec: dict[str, Any]) -> str | None:
    """The dotted name a use is written through (`sym:vllm.x.Gone` -> `vllm.x.Gone`; a call
    `Gone.make(...)` -> `vllm.x.Gone.make`)."""
    callee = rec.get("callee") or {}
    if callee.get("symbol"):
        return callee["symbol"]
    path = rec.get("path") or callee.get("path") or ()
    head = str(path[0]) if path else ""
    return head[4:] if head.startswith("sym:") else None


def _gone_root(written: str | None, gone: dict[str, dict[str, Any]]) -> str | None:
    """The gone name a written dotted name starts with, if any."""
    while written:
        if written in gone:
            return written
        written = written.rpartition(".")[0]
    return None


@rule("DRIFT005", RuleKind.IMPORT_REMOVED, Severity.RISKY)
def gone_name_used(ctx: CheckContext) -> Iterator[Finding]:
    """A use of a name the target removed, on a line other than its import: a call, an attribute
    read, or the bare name where Python evaluates it (a parameter or return annotation when the
    `def` runs, a default, a decorator, a base class, a class attribute, an `isinstance` argument).
    It fails there once the import is fixed alone. Postponed and string annotations, local
    variable annotations and `if TYPE_CHECKING:` blocks are never evaluated: silent."""
    if ctx.baseline is None:
        return
    for mod in ctx.usage:
        gone = _gone_imports(ctx, mod) if not ctx.dead_on_baseline(mod) else None
        if not gone:
            continue
        seen: set[int] = set()
        wholes: dict[str, Fix | None] = {}  # gone name -> its import's fix (DRIFT001's)
        members: dict[int, list[str]] = {}  # line -> the gone names' members it reads (`Gone.X`)
        others: dict[int, list[tuple[str, ...]]] = {}  # line -> the other attribute paths it reads or sets
        for rec in [*(mod.get("calls") or []), *(mod.get("uses") or [])]:
            path = [str(p) for p in rec.get("path") or ()]
            if not rec.get("line") or len(path) < 2:
                continue
            if path[0][4:] in gone and path[1].startswith("."):
                members.setdefault(rec["line"], []).append(path[1][1:])
            elif rec.get("kind") in ("attr", "attr_set") and path[-1].startswith("."):
                others.setdefault(rec["line"], []).append(tuple(path))
        # name_loads: a bare evaluated name (an annotation run at def time, a base class, a value)
        uses = [*(mod.get("calls") or []), *(u for u in mod.get("uses") or [] if u.get("kind") != "item"),
                *(mod.get("name_loads") or [])]  # an `item` record repeats a path another use already read
        for rec in sorted(uses, key=lambda r: r.get("line") or 0):
            target = _gone_root(_written(rec), gone)
            imp = gone.get(target or "")
            line = rec.get("line")
            if imp is None or not line or line in seen or line in (imp.get("line"), imp.get("stmt_line")):
                continue
            seen.add(line)
            name = target.rsplit(".", 1)[-1]
            base = ctx.baseline.lookup(target)
            if target not in wholes:  # the import's own fix, once per import for all its uses
                wholes[target] = successor_import_fix(ctx, mod, imp, base, *target.rsplit(".", 1))
            whole = wholes[target]
            col = rec.get("col")
            yield Finding(
                rule_id="DRIFT005", kind=RuleKind.IMPORT_REMOVED, severity=Severity.RISKY,
                title=f"`{name}` is used here, but the target no longer has `{target}`",
                consumer_site=Location(mod["path"], line, snippet=rec.get("callee_src"),
                                       col=col + 1 if isinstance(col, int) else None),
                baseline_evidence=(ctx.evidence(base),) if base else (),
                predicted_failure=f"NameError: name '{imp.get('local') or name}' is not defined (once the import "
                                  f"at line {imp['line']} no longer fails first)",
                details=f"imported at line {imp['line']}, which fails first; fixing only the import leaves this use",
                fix=_with_the_import(whole, imp, _successor_fix(ctx, base, target, members.get(line) or [],
                                                               others.get(line) or []))
                or Fix(f"stop using `{name}` here", manual_reason="nothing of that name is left in the target"),
                symbol=target,
            )



def _with_the_import(whole: Fix | None, imp: dict[str, Any], here: Fix | None) -> Fix | None:
    """The use's fix where its import's fix (`whole`, DRIFT001's: `rename_import`,
    `rename_constants_class`) rewrites every use of the file: the same codemod at the import's line
    (`at_line`), applied once for the import and all its uses, so the use counts as fixed with it
    (memkv-vllm's `JobMetadata` annotations, renamed with the import to vLLM 0.29's `TransferJob`).
    `here`: the line's own concrete edit, kept as the text; returned as it is where the import's
    fix writes nothing."""
    if whole is None or not whole.codemod:
        return here
    text = here.description if here is not None else whole.description
    return Fix(f"{text}; the import's edit at line {imp['line']} rewrites this use with it", codemod=whole.codemod,
               tier=whole.tier, gated_tier=whole.gated_tier, args={**whole.args, "at_line": imp["line"]})


def _successor_fix(ctx: CheckContext, base: Any, target: str, used: list[str],
                   others: list[tuple[str, ...]]) -> Fix | None:
    """The use's concrete edit where the gone name is a class of constants the target replaced by
    one of the same member values (`enum_successors`): each member the line reads, by its new name,
    and the field of the target's class the line compares it with or stores it in, where that
    class now declares one other field typed with the successor (`compilation_config.level` beside
    `mode: CompilationMode | None`): the value belongs there now."""
    if base is None or not used:
        return None
    module, name = target.rsplit(".", 1)
    succ = enum_successor(ctx.target, base, module)
    if succ is None or not all(m in succ.members for m in used):
        return None
    new = succ.dotted.rsplit(".", 1)[-1]
    pairs = ", ".join(f"`{new}.{succ.members[m]}` for `{name}.{m}`" for m in dict.fromkeys(used))
    field = next((f for f in (successor_field(ctx, p, new, succ.value_types) for p in others) if f), None)
    text = f"write {pairs} (the same value; import `{new}` from `{succ.importable}`)"
    text += (f" and `.{field[1]}` for `.{field[0]}` here (the target's `{field[2]}.{field[1]}` is typed `{field[3]}`)"
             if field else " here; check the field the value is compared with or stored in: it may have a successor too")
    return Fix(text,
               manual_reason=f"`{new}` is matched to `{name}` by its members' values; the target's code that read "
                             f"the value may read another field now")


RULES = [gone_name_used]
