"""The consumer's own call of a method it overrides, written for its override and not for the
target's declaration: evidence that the consumer, not vLLM, calls that method (DRIFT070's severity).

MoLink subclasses vLLM's model loaders with `load_model(self, vllm_config)` and calls them itself,
`loader.load_model(vllm_config=vllm_config)`, through a `get_model` of its own that replaced
vLLM's only caller. vLLM 0.9.1 calls `load_model(vllm_config=..., model_config=...)`: the override
no longer fits vLLM's call, but vLLM never makes that call on MoLink's loaders. Drift cannot prove
that no vLLM path reaches them; a consumer call that fits the override and not the target's
declaration shows the method is (also) the consumer's own entry point, so the mismatch is
reported as risky, not breaking.
"""

from __future__ import annotations

from typing import Any, Callable

from drift.analysis.context import CheckContext


def own_fitting_call(ctx: CheckContext, name: str, fits_override: Callable[[list[Any]], bool],
                     fits_declaration: Callable[[list[Any]], bool]) -> tuple[str, int] | None:
    """(path, line) of a consumer call `.name(...)` (no `*args` / `**kwargs`) that the override
    takes and the target's declaration does not; None when there is none."""
    for mod in ctx.usage:
        for rec in mod.get("calls") or ():
            src = rec.get("callee_src") or ""
            if src.rsplit(".", 1)[-1] != name or "." not in src or rec.get("star_args") or rec.get("star_kwargs"):
                continue
            site = [mod.get("path"), rec.get("line"), rec.get("positional") or 0, list(rec.get("keywords") or ()),
                    False, None, None]
            if fits_override(site) and not fits_declaration(site):
                return mod.get("path"), rec.get("line")
    return None
