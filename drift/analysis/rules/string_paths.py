"""DRIFT008: an import path written as a string (`"vllm.x.y:Cls"`, `"vllm.x.y.Cls"`) that the
baseline holds and the target does not.

The consumer hands the string to something that imports it -- `importlib.import_module`, its own
helper that splits on ':' or '.', a vLLM setting such as `worker_cls` that vLLM resolves by name --
so it fails where the string is resolved, as an import of that name would. Which strings count
(their shape and where they are written, so prose stays out) is the probe's
(`probes/string_paths.py`). Breaking where the file is seen to resolve it (the string goes into an
importing call, the file imports by a computed name, or the call it goes into is a function of the
package that does); risky otherwise: the resolver is elsewhere (vLLM's own), and the string might
only be a name.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.moves import moved_to
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity


@rule("DRIFT008", RuleKind.IMPORT_REMOVED)
def string_path_gone(ctx: CheckContext) -> Iterator[Finding]:
    """A module or name written as an import path in a string (`"vllm.pkg.mod:Name"` or
    `"vllm.pkg.mod.Name"`, kept in a variable, a dict, a setting or handed to a call) that the
    baseline has and the target has not: whatever resolves the string fails there, as an import of
    it would. Breaking when the package is seen to resolve it (an importing call, a file that imports
    by a computed name, or a function of the package that does, in any module), risky when the
    resolver is elsewhere (vLLM's own lookup of a setting). A wrapt-style hook
    (`wrap_function_wrapper("vllm.x", "Cls.meth", w)`, also from a table its loop unpacks) names
    `vllm.x.Cls.meth`: breaking, or risky inside a `try` that catches the failure, where the hook is
    silently not installed."""
    if ctx.baseline is None:
        return
    seen: set[tuple] = set()
    resolvers = {f"{mod.get('module')}.{q}" for mod in ctx.usage for q in mod.get("string_resolvers") or ()
                 if isinstance(q, str)}
    for mod in ctx.usage:
        for rec in mod.get("string_paths") or []:
            if not isinstance(rec, dict) or not isinstance(rec.get("line"), int):
                continue  # a malformed row (a host's reply is not trusted): nothing to say
            target = rec.get("target")
            hooked = rec.get("wrapped") is True  # a wrapt-style hook: its failure drops what it adds
            if not isinstance(target, str) or (rec.get("guarded") and not hooked) \
                    or ctx.target.lookup(target) is not None:
                continue
            base = ctx.baseline.lookup(target)
            module = rec.get("module") if hooked else None
            if base is None and isinstance(module, str) and ctx.target.lookup(module) is None:
                # the hooked module itself is gone, though the baseline reached the attribute some way
                # drift does not follow (a compatibility alias): the import of the module fails first
                target, base = module, ctx.baseline.lookup(module)
            if base is None:
                continue  # never a path of the baseline's: a name, not an import (or not drift)
            key = (mod.get("path"), rec.get("line"), target)
            if key in seen:
                continue
            seen.add(key)
            resolved = bool(rec.get("resolved")) or rec.get("via") in resolvers
            yield _finding(ctx, mod, rec, target, base, resolved, hooked)


def _finding(ctx: CheckContext, mod: dict, rec: dict, target: str, base, resolved: bool,
             hooked: bool = False) -> Finding:
    moved, _ = moved_to(ctx, target, base) if base.kind != "module" else (None, None)
    resolved = resolved and not ctx.dead_on_baseline(mod) and not (hooked and rec.get("guarded"))
    where = f"; it lives in `{moved.rsplit('.', 1)[0]}`" if moved else ""
    via = rec.get("via") if isinstance(rec.get("via"), str) else "the wrapper"
    if hooked and rec.get("guarded"):
        details = (f"`{via}` patches it inside a `try` that catches the failure: on the target the hook is "
                   "silently not installed, and what it adds (tracing, a patched behaviour) is lost")
    elif hooked:
        details = f"`{via}` resolves the module and the attribute path when it runs"
    else:
        details = None if resolved else \
            "the string is handed on to be resolved elsewhere (vLLM's own lookup by name, or another module's helper)"
    return Finding(
        rule_id="DRIFT008", kind=RuleKind.IMPORT_MOVED if moved else RuleKind.IMPORT_REMOVED,
        severity=Severity.BREAKING if resolved else Severity.RISKY,
        title=f"`{target}`, named in a string, no longer exists{where}",
        consumer_site=Location(mod["path"], rec["line"], col=(rec["col"] if isinstance(rec.get("col"), int) else 0) + 1,
                               symbol=target),
        details=details,
        target_evidence=(Location(ctx.target.lookup(moved).path, ctx.target.lookup(moved).line, symbol=moved),)
        if moved and ctx.target.lookup(moved) else (),
        baseline_evidence=(ctx.evidence(base),),
        predicted_failure=_failure(ctx, target),
        fix=Fix(f"name `{moved}` instead" if moved else f"stop naming `{target}`, or name what replaced it",
                manual_reason="a path written in a string is changed by hand"),
        symbol=target,
    )


def _failure(ctx: CheckContext, target: str) -> str:
    """What resolving the path raises on the target, resolved the usual way (import the longest
    module prefix, then getattr the rest): ModuleNotFoundError for the first module the target
    lacks, AttributeError for the first attribute."""
    parts = target.split(".")
    cut = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in ctx.target.modules), default=0)
    base_cut = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in ctx.baseline.modules), default=0)
    if cut < base_cut:  # a module of the path is gone
        return f"ModuleNotFoundError: No module named '{'.'.join(parts[:cut + 1])}'"
    owner = ".".join(parts[:cut])
    for i in range(cut, len(parts)):
        here = ".".join(parts[:i + 1])
        if ctx.target.lookup(here) is None:
            sym = ctx.target.lookup(".".join(parts[:i]))
            if sym is not None and sym.kind == "module":
                return f"AttributeError: module '{sym.dotted}' has no attribute '{parts[i]}'"
            return f"AttributeError: type object '{parts[i - 1]}' has no attribute '{parts[i]}'"
        owner = here
    return f"AttributeError: '{owner}' cannot be resolved"


RULES = [string_path_gone]
