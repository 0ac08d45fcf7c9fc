"""A gone method's use inside the consumer's own method of that name, which nothing calls any more, is risky.

Why: an override hands its work on to the method it overrides (`def postprocess(self, ...):
super().postprocess(...)`, `def get_input_embeddings(self, ids): return self.model.
get_input_embeddings(ids)`). When the target removes or renames that method it also stops calling
it: the override is orphaned, and the line that reaches the gone method never runs, so no
AttributeError is raised there. What the user loses is the override's behaviour, silently, which is
worth reading but is not a crash. The first-contact reviews counted such breaking findings false.

A finding (a gone attribute, DRIFT060) is made risky with the reason when all of these hold:
- it sits in a call of `.name(...)` made inside a consumer function whose own name is `name`;
- the target makes no call `.name(...)` that can run on the holder's object and never writes
  `name` as a string (a dispatch by name, a `getattr`): nothing in the target runs the consumer's
  method (`rules.reach.uncalled_by_target`, the test DRIFT072 makes too);
- the consumer itself calls `.name(...)` only from functions of that same name (the forwarding
  chain), and never writes `name` in a dispatch by name of its own.
A consumer that still calls its method keeps the breaking finding: the line runs there. What drift
reads of the consumer is its modules that name the target (the usage scan), so a call of the
method from a module that names nothing of the target is not seen; the finding then stays
reported, risky, with the reason, and never dropped.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.analysis.rules.callers import called_name, consumer_runs_name, mro_names
from drift.analysis.rules.reach import uncalled_by_target
from drift.findings import Finding, Severity

GONE_RULES = ("DRIFT060",)


def downgrade_orphaned(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking use of a gone method inside an orphaned override of it made risky."""
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in GONE_RULES and f.symbol:
            name = f.symbol.rsplit(".", 1)[-1]
            holder = _forwarding_function(ctx, f.consumer_site.path, f.consumer_site.line, name)
            if holder is not None and orphaned(ctx, name, _holder_classes(ctx, f.consumer_site.path, holder)):
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; it is reached only from `{holder}`, which neither the target nor the "
                                  f"consumer calls any more (the override's behaviour is lost, silently)")
        out.append(f)
    return out


def _forwarding_function(ctx: CheckContext, path: str, line: int, name: str) -> str | None:
    """The consumer function named `name` that holds the call `.name(...)` at `path`:`line`."""
    for mod in ctx.usage:
        if not isinstance(mod, dict) or mod.get("path") != path:
            continue
        for call in mod.get("calls") or ():
            fn = call.get("function") or ""
            if call.get("line") == line and called_name(call) == name and fn.rsplit(".", 1)[-1] == name:
                return fn
    return None


def orphaned(ctx: CheckContext, name: str, inherited: frozenset[str] | None = None) -> bool:
    """Nothing runs a consumer method called `name`: the target runs nothing of that name on an
    object of the holder's class (`rules.reach.uncalled_by_target`, DRIFT072's test; `inherited`,
    its target classes' MRO names; None: any call counts), and the consumer's own calls of it come
    only from methods of that name."""
    memo = ctx.memo.setdefault("orphaned", {})
    key = (name, inherited)
    if key not in memo:
        memo[key] = (not name.startswith("__") and uncalled_by_target(ctx, name, inherited)
                     and not consumer_runs_name(ctx, name))
    return memo[key]


def _holder_classes(ctx: CheckContext, path: str, holder: str) -> frozenset[str] | None:
    """The target classes (MRO names) an object of the class holding the method `holder` is one
    of: a `self.m()` the target makes in an unrelated class of its own never runs the consumer's
    `m`. None when the holder is no method of a consumer class extending the target's."""
    module = next((m.get("module") for m in ctx.usage if isinstance(m, dict) and m.get("path") == path), None)
    cref = f"{module}.{holder.rpartition('.')[0]}" if module and "." in holder else None
    if cref is None or cref not in ctx.consumer.classes:
        return None
    bases = ctx.target_paths.target_bases(cref)
    return mro_names(ctx.target, bases) if bases else None
