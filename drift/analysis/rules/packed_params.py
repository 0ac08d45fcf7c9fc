"""The edit for an override whose separate parameters the target now packs into one object (DRIFT070).

Why a module of its own: reach.py finds the override and the class that holds the old parameters
(vLLM 0.13's `get_attn_backend_cls(selected_backend, attn_selector_config)`, an
`AttentionSelectorConfig` holding head_size, dtype, ...); whether the edit can be written, and how
safely, depends on what the baseline's own calls show, which is this module's one job.

The edit is `bind_parameters` with `add`: the old parameters leave the `def`, the new object
takes their place where the target declares it, and each old name the body reads is bound at its
top. A name the class holds is read from the object (`head_size = attn_selector_config.head_size`)
and counts as proven where the baseline's call passed a local of some name in that slot and every
construction of the class in the target passes that same local for it: the object then carries
what the baseline passed. A name the class does not hold (`use_v1`) is bound to the literal every
call of the baseline's passed in that slot (vLLM 0.12's selector passed `True`, facts +fc), or the
edit is not offered. Safe where every call of the baseline's with the override's arity was seen:
each name read is then proven (an unproven held name is in `unread`, so the codemod writes
nothing where the body reads one). Unsafe where no such call was seen and the class holds every
old name: the names match, the values are not shown.
"""

from __future__ import annotations

from typing import Any

from drift.analysis.context import CheckContext
from drift.analysis.rules.values import ctor_calls, flag_calls
from drift.findings import SAFE, UNSAFE, Fix
from drift.model.index import Symbol

_POS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
_FLAGS = ("True", "False", "None")


def _slot_texts(ctx: CheckContext, name: str, positional: list[str]) -> list[list[str]]:
    """The argument texts of every call of the baseline's `x.name(...)` (facts +fc) that passes as
    many positional arguments as the override takes: the calls that bound its parameters by slot."""
    if ctx.baseline is None:
        return []
    return [list(c["args"]) for c in flag_calls(ctx.baseline, name) if len(c["args"]) == len(positional)]


def _packs_local(ctx: CheckContext, cls: Symbol, field: str, local: str) -> bool:
    """Whether every construction of `cls` in the target passes `field=<local>`, and one does."""
    builds = [c["call"] for c in _builds(ctx, cls)]
    return bool(builds) and all(((b.get("keywords") or {}).get(field) == local) for b in builds)


def _builds(ctx: CheckContext, cls: Symbol) -> list[dict]:
    """The target's own constructions of `cls` (by its name), as the probe recorded them."""
    short = cls.dotted.rsplit(".", 1)[-1]
    return [c for c in ctor_calls(ctx.target, short)
            if str((c.get("call") or {}).get("callee", "")).rsplit(".", 1)[-1] == short]


def packed_fix(ctx: CheckContext, *, label: str, sig: list[list[Any]], tm: Symbol, holder: str,
               cls: Symbol, held: list[str], rest: list[str]) -> Fix | None:
    """`bind_parameters` (with `add`) for the override, tiered as the module docstring says; None
    where the edit cannot be written (a name the class does not hold and no fixed value for it, or
    a result that is not the target's declaration)."""
    tparams = [p.name for p in tm.as_function.params if p.kind in _POS]
    if holder not in tparams:
        return None  # the target takes the object by keyword only: no slot to put it in by position
    gone = set(held) | set(rest)
    kept = [str(x[0]) for x in sig if x[1] in _POS and x[0] not in gone]
    after = tparams[tparams.index(holder) - 1] if tparams.index(holder) > 0 else None
    grown = list(kept)
    grown.insert(grown.index(after) + 1 if after in grown else len(grown), holder)
    if grown != tparams or any(x[1] in ("VAR_POSITIONAL", "VAR_KEYWORD") for x in sig):
        return None
    positional = [str(x[0]) for x in sig if x[1] in _POS and x[0] not in ("self", "cls")]
    calls = _slot_texts(ctx, tm.dotted.rsplit(".", 1)[-1], positional)
    fixed: dict[str, str] = {}
    for g in rest:
        texts = {c[positional.index(g)] for c in calls} if g in positional else set()
        if len(texts) != 1 or next(iter(texts)) not in _FLAGS:
            return None  # the target passes it no more and nothing shows the one value it had
        fixed[g] = next(iter(texts))
    proven = set()
    for g in held:
        texts = {c[positional.index(g)] for c in calls} if g in positional else set()
        if len(texts) == 1 and next(iter(texts)).isidentifier() and _packs_local(ctx, cls, g, next(iter(texts))):
            proven.add(g)
    order = [str(x[0]) for x in sig if x[0] in gone]
    params = [[g, fixed.get(g, f"{holder}.{g}")] for g in order]
    unread = [g for g in held if g not in proven] if calls else []
    args: dict[str, Any] = {"function": label.rsplit(".", 1)[-1], "params": params, "add": [[holder, after]]}
    if unread:
        args["unread"] = unread
    own = ", ".join(n for n in tparams if n not in ("self", "cls"))
    binds = [f"`{g} = {fixed[g]}`" for g in order if g in fixed] + \
            [f"`{g} = {holder}.{g}`" for g in order if g in proven or (g in held and not calls)]
    shown = ", ".join(binds[:4]) + (", ..." if len(binds) > 4 else "")
    why = []
    if fixed:
        why.append(f"every call the baseline made of it passed {', '.join(f'`{fixed[g]}` as `{g}`' for g in fixed)}, "
                   f"which the target passes no more")
    if proven:
        why.append(f"the target builds the `{cls.dotted.rsplit('.', 1)[-1]}` from the very locals the baseline passed "
                   f"as {', '.join(f'`{g}`' for g in order if g in proven)}")
    if unread:
        why.append(f"written only where the body reads none of {', '.join(f'`{g}`' for g in unread)}, whose value "
                   f"is not shown to be the object's")
    if not calls:
        why.append("no call of the baseline's with this arity was seen: check each attribute holds what was passed")
    text = (f"take `{label}`'s parameters as the target declares them ({own}) and bind the old ones the body reads "
            f"at its top ({shown or 'none'}): {'; '.join(why)}")
    return Fix(text, codemod="bind_parameters", args=args, tier=SAFE if calls else UNSAFE)
