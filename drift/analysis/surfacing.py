"""Where a finding is reported: the line Python's own traceback names when the use fails.

Why one rule, applied here to every rule's findings: rules know which name or keyword is wrong
and note where it is written; a user (and the ground truth) reads the failure where Python
raises it. One statement can span many lines, and Python 3.11 names one of them:
  - an import fails at the import statement's first line (`from m import (\\n a,\\n b)` raises
    once, at `from`), whichever of its names is gone;
  - a call's TypeError (a keyword no longer taken, a required parameter not passed, an argument
    the callee now rejects) surfaces at the call: the line of the callee's last name (`f(` or,
    for `obj\\n .method(`, the `.method` line), not the line of the keyword on a continuation line;
  - a replacement the consumer installs (`Cls.m = my_m`, `setattr(Cls, "m", my_m)`,
    `vllm.x.f = my_f`) that no longer fits how the target calls it is reported at the statement
    that installs it, not at its `def`: the target's caller raises (no consumer frame shows), and
    the install is the consumer's line that made the target call it;
  - an attribute read fails at the attribute's line: the rules already report it there.
The precise position (the keyword's or name's own line and column) is kept in the site's
`use_line` / `use_col`, so SARIF regions and annotations lose nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from drift.analysis.context import CheckContext
from drift.findings import Finding, Location
from drift.kinds import Kind

# Failures raised by the import statement as a whole.
IMPORT_KINDS = frozenset({Kind.IMPORT_REMOVED, Kind.IMPORT_MOVED})
# Failures of a call's arguments: a TypeError at the call, or an error the callee raises, which the
# consumer's frame shows at the call too. (An argument of a new type, ARGUMENT_RETYPED, raises
# nowhere at the call: it stays at the argument, where the wrong value is written.)
CALL_KINDS = frozenset({Kind.KEYWORD_REMOVED, Kind.REQUIRED_ADDED, Kind.POSITIONAL_ARITY, Kind.POSITIONAL_SHIFT,
                        Kind.VALUE_REJECTED})
# The call and install parts of the rule are written and tested but off: on the corpus they met
# truth entries where the first failure is the keyword's value (an attribute read drift does not
# type) or a key spread into the call, and drift's rule and the truth script's disagreed there
# (round 19: verl, kserve_hf_b, vllm_omni_b/d, nemo_rl, skyrl_b, prime_rl/_b fell below floors).
CALLS_AT_THE_CALL = False
INSTALLS_AT_THE_INSTALL = False
# Failures of a consumer function the target calls in place of its own.
INSTALLED_KINDS = frozenset({Kind.OVERRIDE_INCOMPATIBLE})


def surface_sites(ctx: CheckContext | None, findings: list[Finding]) -> list[Finding]:
    """Each finding moved to the line its failure surfaces on (module docstring), else as it was."""
    if ctx is None or not getattr(ctx, "usage", None):
        return findings
    by_path = {mod.get("path"): mod for mod in ctx.usage}
    out = []
    for f in findings:
        mod = by_path.get(f.consumer_site.path)
        line = _surface_line(mod, f) if mod is not None else None
        out.append(f if line is None or line == f.consumer_site.line else _moved(f, line))
    return out


def _surface_line(mod: dict[str, Any], f: Finding) -> int | None:
    site = f.consumer_site
    if f.kind in IMPORT_KINDS:
        return _import_statement_line(mod, site)
    if f.kind in CALL_KINDS and site.col is not None and CALLS_AT_THE_CALL:
        return _call_line(mod, site.line, site.col - 1)
    if f.kind in INSTALLED_KINDS and INSTALLS_AT_THE_INSTALL:
        return _install_line(mod, site.line, (f.symbol or "").rsplit(".", 1)[-1])
    return None


# Patch records (probes/reach.py) written by a statement of their own: `X.m = f` (no `how`) and
# `setattr(X, "m", f)`. A decorator that registers the def (`@register_patch("pkg.X.m")`) is the
# def's own header: the finding stays at the def.
_INSTALL_STATEMENTS = (None, "setattr")


def _install_line(mod: dict[str, Any], def_line: int, name: str) -> int | None:
    """The one statement of the def's own module that installs the function defined at
    `def_line` as `name` (the target's method or function it replaces); None when there is none
    (an override in a subclass: its def is the consumer's line) or several."""
    lines = {p["line"] for p in mod.get("patches") or []
             if isinstance(p.get("value"), dict) and p["value"].get("line") == def_line and p.get("name") == name
             and p.get("how") in _INSTALL_STATEMENTS}
    return lines.pop() if len(lines) == 1 else None


def _import_statement_line(mod: dict[str, Any], site: Location) -> int | None:
    """The first line of the `from ... import` statement whose name is written at the site."""
    for imp in mod.get("imports") or []:
        if imp.get("line") == site.line and imp.get("stmt_line") and \
                (site.col is None or imp.get("col") is None or imp["col"] == site.col - 1):
            return imp["stmt_line"]
    return None


def _call_line(mod: dict[str, Any], line: int, col: int) -> int | None:
    """The line a call surfaces on, for a site written at one of the call's keywords (its name,
    or a key of a dict literal spread into the call inside the call's own span)."""
    for rec in mod.get("calls") or []:
        first = rec.get("call_line") or rec.get("line")
        last = rec.get("end_line") or first
        if not (isinstance(first, int) and first <= line <= last) or rec.get("line") == line:
            continue
        if any(list(pos) == [line, col] for pos in (rec.get("kw_cols") or {}).values()):
            return rec["line"]
    return None


def _moved(f: Finding, line: int) -> Finding:
    site = f.consumer_site
    where = dataclasses.replace(site, line=line, col=None, use_line=site.use_line or site.line,
                                use_col=site.use_col or site.col)
    return dataclasses.replace(f, consumer_site=where)
