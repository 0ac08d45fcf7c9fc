"""DRIFT139: a consumer function that sets a target module's state by hand, where the target's own
setter of that state now sets one more name that the target's getters assert on.

Why: an RL trainer that shares its process groups with vLLM assigns vLLM's parallel-state globals
itself (`ps._TP = tp`, `ps._PP = pp`, `ps._EP`, `ps._DP`) instead of calling vLLM's
`initialize_model_parallel`, which vLLM then skips (`model_parallel_is_initialized()`). When the
target's initializer also creates a new group (`_PCP`, vLLM 0.13) and a getter of the target fails
while it is unset (`get_pcp_group(): assert _PCP is not None`), the consumer's hand-made state is
one short: the first vLLM layer that asks for the new group fails. Nothing the consumer wrote
changed, and no name it uses is gone.

Evidence: the consumer's stores into a target module (`patches` whose owner is a module), grouped
by the function that makes them; the target module's functions that declare those names `global`
(`globals_set`), on both releases; and the names the target's functions fail on when None
(`unset_checks`). A function of the target counts as the setter the consumer mirrors when the
consumer sets at least two of the names it set on the baseline; the names it sets only on the
target, the consumer never sets, and a getter asserts on are reported, risky (whether a code path
of the job reaches that getter is not followed), at the consumer function's `def`. A name a setter
the consumer function also calls sets for it is left alone, and a teardown (`destroy_*`, `reset_*`)
is never taken for the setter it mirrors.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex


_TEARDOWN = ("destroy", "reset", "clear", "cleanup", "teardown", "shutdown")


def _module_state(index: PackageIndex, module: str) -> tuple[dict[str, tuple[set[str], Any]], dict[str, str]]:
    """({function: (globals it sets, its facts)}, {global: a function failing while it is unset})."""
    raw = index.modules.get(module) if module in index.modules else None
    if raw is None:
        return {}, {}
    mod = ModuleFacts(raw)
    setters, checked = {}, {}
    for name, fn in mod.functions.items():
        b = fn.raw.get("behaviour") or {}
        if b.get("globals_set"):
            setters[name] = (set(b["globals_set"]), fn)
        for g in b.get("unset_checks") or ():
            checked.setdefault(g, name)
    return setters, checked


def _stores(ctx: CheckContext) -> dict[tuple[str, str, str], dict[str, Any]]:
    """{(consumer module path, function, target module): {global: its first store}} for the
    consumer's stores of a module's name of the target."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    pkg = ctx.target_package
    for mod in ctx.usage:
        for p in mod.get("patches") or []:
            path, name, fn = p.get("path") or (), p.get("name"), p.get("function")
            if len(path) != 1 or not str(path[0]).startswith(f"sym:{pkg}.") or not name or not fn or fn == "<module>":
                continue
            module = str(path[0])[4:]
            if module not in ctx.target.modules:
                continue  # a class or function of the target, not a module
            out.setdefault((mod["path"], fn, module), {}).setdefault(name, p)
    return out


@rule("DRIFT139", RuleKind.OVERRIDE_SKIPS_STATE, Severity.RISKY)
def hand_set_globals(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer function that sets a target module's globals as one of its functions does, where
    that function of the target sets a new global the consumer never sets and a getter of the
    target fails while it is unset."""
    if ctx.baseline is None:
        return
    stores = _stores(ctx)
    if not stores:
        return
    usage_of = {m["path"]: m for m in ctx.usage}
    states: dict[str, tuple] = {}  # target module -> both releases' state, read once however many functions store into it
    for (path, fn_name, module), written in sorted(stores.items()):
        if module not in states:
            states[module] = (_module_state(ctx.target, module),
                              _module_state(ctx.baseline, module) if module in ctx.baseline.modules else ({}, {}))
        (tset, checked), (bset, _) = states[module]
        mod = usage_of.get(path) or {}
        calls = {str((c.get("callee") or {}).get("symbol") or "") for c in mod.get("calls") or []
                 if c.get("function") == fn_name}
        # what the target's own setters the function calls set for it
        told: set[str] = set().union(*(g for name, (g, _f) in tset.items() if f"{module}.{name}" in calls))
        # the setter it mirrors most; a teardown (`destroy_model_parallel` sets the same names to None) is not one
        order = sorted(((n, v) for n, v in tset.items() if not n.startswith(_TEARDOWN)),
                       key=lambda kv: (-len(bset.get(kv[0], (set(), None))[0] & set(written)), kv[0]))
        for setter, (now, tfn) in order:
            before = bset.get(setter, (set(), None))[0]
            if len(before & set(written)) < 2:
                continue
            for new in sorted(now - before - set(written) - told):
                getter = checked.get(new)
                if getter is None:
                    continue
                told.add(new)
                line = ((mod.get("functions") or {}).get(fn_name) or {}).get("line") \
                    or min(p.get("line") or 1 for p in written.values())
                short = module.rsplit(".", 1)[-1]
                yield Finding(
                    rule_id="DRIFT139", kind=RuleKind.OVERRIDE_SKIPS_STATE, severity=Severity.RISKY,
                    title=f"`{fn_name}` sets `{short}`'s {', '.join(f'`{n}`' for n in sorted(written)[:4])} by hand, "
                          f"as the target's `{setter}` does; the target's also sets `{new}`, which `{getter}` needs",
                    consumer_site=Location(path, int(line), symbol=fn_name),
                    target_evidence=(Location(ModuleFacts(ctx.target.modules[module]).path, tfn.line or 1,
                                              symbol=f"{module}.{setter}"),),
                    baseline_evidence=(),
                    predicted_failure=f"AssertionError in `{getter}()` once the target's code asks for it "
                                      f"(`{new}` is never set)",
                    fix=Fix(f"set `{short}.{new}` too, as the target's `{setter}` does (or call it)",
                            manual_reason="how to build the new state is the consumer's (its own groups)"),
                    symbol=f"{module}.{new}",
                    details=f"the baseline's `{setter}` set {', '.join(sorted(before))}; the target's sets "
                            f"{', '.join(sorted(now))}; the consumer sets {', '.join(sorted(written))}",
                )


RULES = [hand_set_globals]
