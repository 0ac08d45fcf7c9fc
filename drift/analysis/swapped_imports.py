"""An import of a target module the consumer answers with its own module is not a target break.

Why: a plugin that hooks the import system (`builtins.__import__` replaced, a `sys.modules[...]`
entry, a meta-path finder) maps `"vllm.attention.ops.merge_attn_states"` to its own
`"plugin.ops.attention.merge_attn_states"`; once the hook is on, `from vllm.attention.ops.
merge_attn_states import merge_attn_states` reads the plugin's module, whatever the target did to
its own. The mapping is the solved model's `module_swaps` (probes/ir.py `modmap`); what the
replacement defines, its top-level names (`infer.top_level_names`). An import finding (DRIFT001,
DRIFT002) on a name the replacement defines is made risky with the reason: the hook must be on
before the import runs (a plugin installs it when vLLM loads the plugin, before any model code),
which drift does not order. A replacement that may define any name (a star import, a module
`__getattr__`) or that lacks the name leaves the finding as it is.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.consumer.infer import top_level_names
from drift.findings import Finding, Severity

IMPORT_RULES = ("DRIFT001", "DRIFT002")


def downgrade_swapped_imports(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking import of a name the consumer's replacement module defines made risky."""
    swaps = {s["target"]: s["consumer"] for s in ctx.consumer.inferred.module_swaps or ()
             if isinstance(s.get("target"), str) and isinstance(s.get("consumer"), str)}
    if not swaps:
        return findings
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in IMPORT_RULES and f.symbol:
            hit = answered_by(ctx, swaps, f.symbol)
            if hit is not None:
                module, mine = hit
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; the consumer's import hook answers `{module}` with `{mine}`, "
                                  f"which defines it, once the hook is on")
        out.append(f)
    return out


def answered_by(ctx: CheckContext, swaps: dict[str, str], dotted: str) -> tuple[str, str] | None:
    """(target module, consumer module) when `dotted` is `module.name` for a swapped module whose
    replacement defines `name`, or the swapped module itself."""
    if dotted in swaps:
        return dotted, swaps[dotted]
    module, _, name = dotted.rpartition(".")
    mine = swaps.get(module)
    if mine is None:
        return None
    have = top_level_names(ctx.consumer.modules.get(mine))
    return (module, mine) if have is not None and name in have else None
