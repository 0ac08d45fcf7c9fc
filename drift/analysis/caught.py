"""A break whose error the consumer's own `try` catches is risky, not breaking.

Why: `try: n = len(runner.attn_backends)` / `except (AttributeError, NotImplementedError): n = 1`
is written for the very error a removed attribute raises. On the target the handler runs its
fallback: nothing crashes, but what the `try` computed is silently replaced, which the user should
still hear about. The probe records each `try:` body whose handlers do not re-raise, with the names
they catch (probes/reach.py `caught_ranges`); a breaking finding inside one, whose predicted error
is of a class a handler names (or its own base: `ImportError` for `ModuleNotFoundError`), becomes
risky with the reason, for the rules whose error Python raises at the finding's line (`RAISED_AT_SITE`). The bodies of functions defined inside the `try` run later, outside it, and are left
alone; so is a finding whose error drift does not predict, and one only a broad handler catches
(`except Exception:` around a whole request turns the crash into an error response: the feature is
broken all the same, and the corpus's ground truth counts those as breaks). Except for a patch
statement (DRIFT080): one inside a `try` that swallows whatever it raises is applied only where the
target still has what it patches, by the consumer's own design.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.findings import Finding, Severity

# what each error Python raises for a break is an instance of, besides itself
_BASES = {
    "ModuleNotFoundError": ("ImportError",),
    "NotImplementedError": ("RuntimeError",),
    "KeyError": ("LookupError",),
    "IndexError": ("LookupError",),
    "UnboundLocalError": ("NameError",),
}
# rules whose error Python raises at the finding's own line (or in a call made from it, which
# propagates there): an import, a call, an attribute read or store, an isinstance, a patch statement.
# Not those whose error the target raises later in its own code (an override it calls, a module
# it imports from the consumer's swap, a base __init__ skipped): no handler at the site sees that.
# a patch statement in a `try` that swallows whatever it raises is a patch the consumer applies only
# where the target has the thing (unsloth-zoo's `try: import vllm.worker.model_runner; ... = Patched
# except: pass`, for the engine vLLM 0.11 removed): a broad handler is the consumer saying so, not
# a request's error path, so it counts for these
OPTIONAL_WHEN_CAUGHT = frozenset({"DRIFT080"})
_BROAD = {"*", "Exception", "BaseException"}
RAISED_AT_SITE = frozenset({"DRIFT001", "DRIFT002", "DRIFT010", "DRIFT011", "DRIFT012", "DRIFT013", "DRIFT014",
                            "DRIFT015", "DRIFT016", "DRIFT017", "DRIFT060", "DRIFT061", "DRIFT066", "DRIFT067",
                            "DRIFT080"})


def downgrade_caught(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking one whose error a surrounding handler swallows made risky."""
    ranges = {m["path"]: m["caught"] for m in ctx.usage if isinstance(m, dict) and m.get("caught")
              and isinstance(m.get("path"), str)}
    if not ranges:
        return findings
    out = []
    for f in findings:
        rows = ranges.get(f.consumer_site.path) \
            if f.severity is Severity.BREAKING and f.rule_id in RAISED_AT_SITE else None
        error = _error_class(f.predicted_failure) if rows else None
        if error:
            try_line = catching_try(rows, f.consumer_site.line, error, broad=f.rule_id in OPTIONAL_WHEN_CAUGHT)
            if try_line is not None:
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; the {error} is raised inside the `try` at line {try_line}, "
                                  f"whose handler catches it and runs its fallback instead")
        out.append(f)
    return out


def _error_class(predicted: str | None) -> str | None:
    head = (predicted or "").split(":", 1)[0].strip()
    return head if head.isidentifier() and head.endswith(("Error", "Exception")) else None


def catching_try(rows: list, line: int, error: str, *, broad: bool = False) -> int | None:
    """The line of the innermost `try` around `line` (not through a function defined inside it)
    whose handlers catch `error`, or None. `broad`: `except Exception:` and a bare `except:` count."""
    accepted = {error, *_BASES.get(error, ())} | (_BROAD if broad else set())
    best = None
    try:
        spans = [(int(a), int(b), list(names), int(at)) for a, b, names, at in rows]
    except (TypeError, ValueError):
        return None  # a malformed record from a host: no judgement
    cuts = [(a, b) for a, b, names, _at in spans if not names and a <= line <= b]
    for a, b, names, at in spans:
        if not names or not a <= line <= b:
            continue
        if any(a <= ca and cb <= b for ca, cb in cuts):
            continue  # the line is in a function defined inside this try: it runs outside it
        if accepted.intersection(names) and (best is None or a >= best[0]):
            best = (a, at)
    return best[1] if best else None
