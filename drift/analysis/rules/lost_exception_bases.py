"""DRIFT137: a consumer `except ValueError:` around calls into vLLM, where an exception class vLLM
raises stopped deriving from `ValueError`.

Why: a serving add-on maps the errors a request can raise (`try: await serving.create_chat(...)`
/ `except ValueError as e: return error_response(400, e)`). When vLLM moves its own error class
out from under the builtin (`class VLLMValidationError(ValueError)` in 0.26 becomes
`class VLLMValidationError(VLLMClientError)`, `VLLMClientError(VLLMError(Exception))` in 0.27),
nothing fails at import or at a signature: the handler silently stops matching, and what was a
400 with vLLM's message becomes a 500. No per-symbol diff of the consumer's uses sees it; the
evidence is the class hierarchy of both releases and the consumer's handlers.

The question is asked only for the builtin names the consumer's handlers catch (probes/reach.py
`handler_ranges`). A class counts when the baseline writes the builtin among its bases, the target
keeps the class with no ancestor that does, and a function of the target raises it (`raises` facts). A
handler counts when it catches that builtin, names neither the class nor one of its target
ancestors nor `Exception`, and its `try` body calls into vLLM. Risky: whether that call reaches a
`raise` of the class drift does not follow.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, base_of, functions_in, word

# builtin exception classes a vLLM error class may derive from and a consumer may catch by name
_BUILTINS = frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "RuntimeError",
                       "AttributeError", "NotImplementedError", "AssertionError", "OSError", "IOError",
                       "ConnectionError", "TimeoutError", "PermissionError", "FileNotFoundError",
                       "ArithmeticError", "OverflowError", "ZeroDivisionError", "MemoryError"})
_BROAD = frozenset({"Exception", "BaseException"})


def _bases_text(index: PackageIndex, cls: Symbol) -> set[str]:
    """The last component of every base any class of `cls`'s MRO writes."""
    return {b.rsplit(".", 1)[-1] for c in index.mro(cls) for b in c.as_class.bases}


def _builtin_bases(index: PackageIndex, modules) -> dict[str, list[str]]:
    """{builtin: [dotted class written with it as a base]} over `modules` (a query's build: one
    pass over a host's whole facts, kept per digest; over sources only the modules the text search finds)."""
    out: dict[str, list[str]] = {}
    for cls in index.iter_classes(modules):
        for b in cls.as_class.bases:
            last = b.rsplit(".", 1)[-1]
            if last in _BUILTINS:
                out.setdefault(last, []).append(cls.dotted)
    return out


def _raised_types(index: PackageIndex, modules) -> dict[str, bool]:
    """{class name: True} for every exception class a function of `modules` raises by name."""
    return {(r.type or "").rsplit(".", 1)[-1]: True for _m, _mod, _owner, fn in functions_in(index, modules)
            for r in fn.behaviour.raises if r.type}


def _lost(ctx: CheckContext, builtin: str) -> list[tuple[Symbol, Symbol]]:
    """(baseline class, target class) for each target-package class that derived from `builtin`
    in the baseline and does not in the target, and that the target raises."""
    out = []
    base, tgt = ctx.baseline, ctx.target
    pkg = ctx.target_package
    for dotted in base.query("builtin_bases.v1", builtin, needle=base_of(builtin), build=_builtin_bases,
                             default=[]):
        cls = base.lookup(dotted)
        if cls is None or cls.kind != "class":
            continue
        now = tgt.lookup(cls.dotted)
        if now is None or now.kind != "class" or builtin in _bases_text(tgt, now):
            continue
        if not any(c.dotted.startswith(pkg + ".") for c in tgt.mro(now)[1:]):
            continue  # its new bases are not the target's own classes: drift cannot tell what they derive from
        if not _raised(tgt, cls.dotted.rsplit(".", 1)[-1]):
            continue
        out.append((cls, now))
    return out


def _raised(index: PackageIndex, name: str) -> bool:
    """Whether a function of the package raises a class of this name (its `raises` facts)."""
    return bool(index.query("raised_types.v1", name, needle=word(name), build=_raised_types, default=False))


def _reaches_target(ctx: CheckContext, rec: dict[str, Any]) -> bool:
    """Whether a consumer call record calls into the target package."""
    pkg = ctx.target_package
    callee = rec.get("callee") or {}
    for key in ("symbol", "receiver"):
        if str(callee.get(key) or "").startswith(pkg + "."):
            return True
    path = callee.get("path") or rec.get("path")
    if not path:
        return False
    if str(path[0]).startswith(f"sym:{pkg}."):
        return True
    v = ctx.target_paths.steps(list(path))[-1]
    sym = v.sym or v.owner or v.cls
    # an instance called is its class's `__call__` (`await self._serving_embedding(request)`)
    return v.kind in ("function", "method", "unbound", "class", "instance") and sym is not None \
        and sym.dotted.startswith(pkg + ".")


@rule("DRIFT137", RuleKind.BASE_CHANGED, Severity.RISKY)
def exception_base_lost(ctx: CheckContext) -> Iterator[Finding]:
    """An `except <builtin>:` around calls into the target, where a target exception class the
    baseline derived from that builtin no longer does: the handler stops catching it."""
    if ctx.baseline is None:
        return
    mods = [m for m in ctx.usage if m.get("handlers")]
    caught = {n for m in mods for row in m["handlers"] if isinstance(row, list) and len(row) == 4
              for n in row[3] if n in _BUILTINS}
    lost = {b: found for b in sorted(caught) if (found := _lost(ctx, b))}
    if not lost:
        return
    for mod in mods:
        calls = [c for c in mod.get("calls") or [] if isinstance(c.get("line"), int)]
        for row in mod["handlers"]:
            try:
                first, last, at, names = int(row[0]), int(row[1]), int(row[2]), [str(n) for n in row[3]]
            except (TypeError, ValueError, IndexError):
                continue  # a malformed record from a host: no judgement
            if _BROAD.intersection(names):
                continue
            inside = [c for c in calls if first <= c["line"] <= last]
            for builtin in names:
                for was, now in lost.get(builtin, ()):
                    ancestors = {c.dotted.rsplit(".", 1)[-1] for c in ctx.target.mro(now)}
                    if ancestors.intersection(names):
                        continue  # the handler names the class or a base it keeps
                    call = next((c for c in inside if _reaches_target(ctx, c)), None)
                    if call is None:
                        continue
                    short = now.dotted.rsplit(".", 1)[-1]
                    bases = ", ".join(now.as_class.bases) or "object"
                    yield Finding(
                        rule_id="DRIFT137", kind=RuleKind.BASE_CHANGED, severity=Severity.RISKY,
                        title=f"`except {builtin}` no longer catches `{short}`: the target derives it from "
                              f"`{bases}`, not `{builtin}`",
                        consumer_site=Location(mod["path"], at),
                        target_evidence=(ctx.evidence(now),),
                        baseline_evidence=(ctx.evidence(was),),
                        predicted_failure=f"a {short} raised under `{call.get('callee_src') or 'the call'}` "
                                          f"(line {call['line']}) passes this handler and propagates",
                        details=f"the baseline's `class {short}({', '.join(was.as_class.bases)})` was a {builtin}; "
                                f"the target's is not, and the target raises it; the `try` body calls into "
                                f"{ctx.target_package} at line {call['line']}",
                        fix=Fix(f"catch `{now.dotted}` too (`except ({builtin}, {short})`)",
                                manual_reason="which errors the handler should map is the consumer's call"),
                        symbol=now.dotted,
                    )
                    break


RULES = [exception_base_lost]
