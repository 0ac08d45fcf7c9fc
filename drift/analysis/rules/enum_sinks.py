"""An attribute the target turned from `str` into an Enum, handed to the consumer's own code that uses it as text.

DRIFT117 judges a string test at the read. A consumer may instead hand the value on
(`layer.moe_op(x, activation=layer.activation)`) to its own function whose parameter is declared a
string (`activation="silu"`, `activation: str`) and which uses it as one: an argument of a native
op (`torch.ops.<ns>.<op>(..., activation=activation)`, whose schema types it `str`), an f-string, a
`str` method, a key of a string-keyed table. The baseline declared the attribute a `str`; the
target holds a member of a plain Enum there (`MoEActivation.from_str(activation)`), which is no
string: the op rejects it, the f-string writes `Cls.MEMBER`, the method raises AttributeError, the
lookup misses.

Read from the consumer's uses (the attribute read, as DRIFT117 reads it), the IR's call rows (the
call the read is an argument of), the solved model's call edges (which consumer function that call
runs: a function, a bound method, a constructor, a stored object's `__call__`/`forward`) and the
probe's `strparam` relation (probes/str_sinks.py), closed over the consumer's functions that hand
the parameter on unchanged. Risky: the path may not run on the consumer's platform, and the
consumer's maintainer picks `.value` or the member.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.rules.base import rule
from drift.analysis.rules.enum_compares import enum_retyped
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.probes.consumer_scan import ir_of

MAX_ROUNDS = 6  # hand-on chains longer than this are not followed


def _slot(signature: list[list[Any]], shift: int, pos: int | None, kw: str | None) -> str | None:
    """The parameter of a function (its [[name, kind, optional]]) that receives positional `pos`
    (after `shift` bound slots) or keyword `kw`."""
    if kw is not None:
        return next((p[0] for p in signature if p[0] == kw and p[1] not in (
            "POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD")), None)
    slots = [p[0] for p in signature if p[1] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    i = pos + shift
    return slots[i] if 0 <= i < len(slots) else None


def _passed(row: list) -> Iterator[tuple[list[str], int | None, str | None]]:
    """(argument path, position, keyword) of each argument of an IR call row."""
    _callee, args, kwargs, _line = row
    for i, a in enumerate(args):
        if a:
            yield a, i, None
    for k, a in kwargs.items():
        if a:
            yield a, None, k


def _text_params(ctx: CheckContext, calls: list[tuple[str, list]]) -> dict[tuple[str, str], tuple]:
    """(function, parameter) -> (sink function, sink kind, sink line): parameters used as text,
    directly or by handing the parameter unchanged to one that is."""
    sol = ctx.consumer.inferred
    out = {(fn, p): (fn, kind, line) for fn, rows in sol.str_params.items() for p, kind, line in rows}
    for _ in range(MAX_ROUNDS):
        grew = False
        for where, row in calls:
            runs = sol.call_edges.get(f"{where}:{row[3]}") or ()
            for path, pos, kw in _passed(row):
                if len(path) != 1 or not path[0].startswith("var:"):
                    continue
                fn, _, name = path[0][4:].rpartition(":")
                if (fn, name) in out or "~" in name:
                    continue
                for callee, shift, _cp in runs:
                    q = _slot(sol.signatures.get(callee) or [], shift, pos, kw)
                    if q is not None and (callee, q) in out:
                        out[(fn, name)] = out[(callee, q)]
                        grew = True
                        break
        if not grew:
            break
    return out


def _same_read(rec: dict, module: str, path: list[str], sol) -> bool:
    """Whether an IR argument path is the use record's read: same steps, same function, same root
    name (the reach root `over:m.F:1:layer` / `arg:...:layer` against the IR's `var:m.F:layer`; a
    `self:` root against the function's first parameter)."""
    use = list(rec.get("path") or [])
    if path[0].startswith("sym:"):  # `Layer(...).activation`, a module-level object's attribute
        return use == list(path)
    if not path[0].startswith("var:"):
        return False
    fn, _, name = path[0][4:].rpartition(":")
    if fn != f"{module}.{rec.get('function')}":
        return False
    rest = list(path[1:])
    if use[0].startswith("sym:") and use[len(use) - len(rest):] == rest:  # a parameter the probe typed by
        head = tuple(use[:len(use) - len(rest)])                           # its annotation (`layer: Layer`)
        idx = next((i for i, p in enumerate(sol.signatures.get(fn) or []) if p[0] == name), None)
        return idx is not None and head in {tuple(p) for p in sol.params.get(f"{fn}:{idx}") or ()}
    if len(use) != len(path) or use[1:] != rest:
        return False
    root = use[0]
    if root.startswith("self:"):
        sig = sol.signatures.get(fn) or []
        return bool(sig) and sig[0][0] == name
    return root.startswith(("over:", "arg:")) and root.rpartition(":")[2] == name


@rule("DRIFT134", RuleKind.ATTRIBUTE_RETYPED, Severity.RISKY)
def enum_handed_to_text(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer hands a target object's attribute to its own function whose parameter is declared
    a `str` and used as text (a native op's argument, an f-string, a `str` method, a str-keyed
    table); the baseline declared the attribute a `str` and the target holds a plain Enum member."""
    if ctx.baseline_paths is None or ctx.target_paths is None:
        return
    sol = ctx.consumer.inferred
    if not sol.str_params:
        return
    calls: list[tuple[str, list]] = []
    by_module: dict[str, list[list]] = {}
    for mod in ctx.usage:
        rows = ir_of(mod).get("call") or []
        calls += [(mod.get("path") or "", row) for row in rows]
        by_module[mod.get("path") or ""] = rows
    text = _text_params(ctx, calls)
    seen: set[tuple] = set()
    for mod in ctx.usage:
        module = mod.get("module") or ""
        rows = by_module.get(mod.get("path") or "") or []
        for rec in mod.get("uses") or []:
            path = rec.get("path") or ()
            if rec.get("kind") != "attr" or len(path) < 2 or not path[-1].startswith(".") or not rec.get("function"):
                continue
            key = (mod.get("path"), rec["line"], tuple(path))
            if key in seen:
                continue
            handed = _handed_to(rec, module, rows, sol, text, mod.get("path") or "")
            if handed is None:
                continue
            hit = enum_retyped(ctx, list(path))
            if hit is None:
                continue
            seen.add(key)
            yield _finding(ctx, mod, rec, path[-1][1:], handed, *hit)


def _handed_to(rec, module, rows, sol, text, where) -> tuple | None:
    """(callee, parameter, sink) when the read is an argument of the nearest call above it whose
    receiving parameter is used as text; else None."""
    best = None
    start = sol.lines.get(f"{module}.{rec['function']}", 0)  # a call of the read's own function
    for row in rows:
        if row[3] > rec["line"] or row[3] < start:
            continue
        for path, pos, kw in _passed(row):
            if _same_read(rec, module, path, sol) and (best is None or row[3] > best[0][3]):
                best = (row, pos, kw)
    if best is None:
        return None
    row, pos, kw = best
    for callee, shift, _cp in sol.call_edges.get(f"{where}:{row[3]}") or ():
        q = _slot(sol.signatures.get(callee) or [], shift, pos, kw)
        if q is not None and (callee, q) in text:
            return callee, q, text[(callee, q)]
    return None


def _finding(ctx: CheckContext, mod: dict, rec: dict, name: str, handed: tuple, t, towner, before) -> Finding:
    callee, param, (sink_fn, sink_kind, sink_line) = handed
    enum = t.cls.dotted.rsplit(".", 1)[-1]
    owner = towner.dotted.rsplit(".", 1)[-1]
    short = ".".join(callee.rsplit(".", 2)[-2:])
    sink_short = ".".join(sink_fn.rsplit(".", 2)[-2:])
    where = f"`{sink_short}` (line {sink_line})"
    evidence = Location(t.evidence[0], t.evidence[1], symbol=f"{towner.dotted}.{name}") if t.evidence else \
        Location(t.cls.path, t.cls.line, symbol=t.cls.dotted)
    return Finding(
        rule_id="DRIFT134", kind=RuleKind.ATTRIBUTE_RETYPED, severity=Severity.RISKY,
        title=f"`{owner}.{name}` is now a `{enum}` member, no longer a `str`: it is handed to "
              f"`{short}({param}=)`, which uses it as a string ({sink_kind} in {where})",
        consumer_site=site_of(mod, rec),
        target_evidence=(evidence, Location(t.cls.path, t.cls.line, symbol=t.cls.dotted)),
        baseline_evidence=(Location(before[1].path, before[2], symbol=f"{before[1].dotted}.{name}"),),
        predicted_failure=f"a `{enum}` member is no string: the {sink_kind} gets an Enum where it wants text",
        fix=Fix(f"hand on `{name}.value` (or map the `{enum}` member to the string `{short}` expects)",
                manual_reason="whether the member's value is the string the consumer's code expects is the consumer's to say"),
        symbol=f"{towner.dotted}.{name}",
        details=f"baseline declared `{name}: {before[0]}`; `{enum}` does not mix in `str`; "
                f"`{param}` of `{callee}` is declared a string and reaches a {sink_kind} in `{sink_fn}`",
    )


RULES = [enum_handed_to_text]
