"""How sure drift is that a name which left its module is the same thing at its new home.

One judgement for every edit that reads a moved name from its new module: the `from old import
name` statement rewritten (`move_import`, drift/analysis/rules/imports.py) and a read through the
old module object, `old_alias.name`, rewritten to the name imported from the new one
(`import_moved_member`, drift/analysis/rules/reach.py). Both bind the very object the target now
defines, so they are safe on the same evidence:

- every new home held the same definition in the baseline (the old name was a re-export of it:
  the edit is exactly equivalent there, and valid on both releases), or the definition moved with
  exactly its API (same parameters and defaults, same members);
- a class or function whose API changed as it moved is still the one the target's own code took
  in its place: its modules that imported the old home import the new one under the same name
  (vLLM 0.16's api_server imports `OpenAIServingChat` from `chat_completion.serving` where 0.13's
  imported it from `serving_chat`). What changed in its API is reported at each use;
- a module-level name (not a class or function) is rarely the same value elsewhere (a `logger` of
  the same name is another object): only where the target's own code moved its import there, or
  both bind one literal expression.

Anything else that still looks compatible is unsafe; a module-level name without that evidence
is manual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from drift.analysis.context import CheckContext
from drift.analysis.moves import identical_api
from drift.analysis.rules.own_imports import own_import_moves, own_sole_home, same_literal_value
from drift.findings import SAFE, UNSAFE
from drift.model.index import Symbol


@dataclass(frozen=True)
class MoveJudgement:
    tier: str | None  # SAFE | UNSAFE; None: only a manual edit (`manual_reason` says why)
    why: str = ""  # the evidence, for the fix's text ("" when the move is plainly the same definition)
    manual_reason: str | None = None


def judge_move(ctx: CheckContext, module: str, moves: Mapping[str, str],
               bases: Mapping[str, Symbol | None]) -> MoveJudgement:
    """The tier of reading each name of `moves` (name -> its new dotted home) from its new module
    instead of `module`; `bases`: the baseline's definition of each name there."""
    def same_in_baseline(dotted: str, base: Symbol | None) -> bool:
        if ctx.baseline is None or base is None:
            return False
        there = ctx.baseline.lookup(dotted)
        return there is not None and there.dotted == base.dotted

    kinds = {n: ctx.target.lookup(d) for n, d in moves.items()}
    if any(sym is None or sym.kind not in ("class", "function") for sym in kinds.values()):
        vouched = {n: own_import_moves(ctx.baseline, ctx.target, f"{module}.{n}", moves[n]) for n in moves}
        if all(vouched[n] or same_literal_value(bases.get(n), kinds[n]) for n in moves):
            why = "; ".join(f"the target's own {vouched[n][0]} imports it there too" if vouched[n]
                            else f"`{n}` is the same literal in both" for n in sorted(moves))
            return MoveJudgement(SAFE, why)
        return MoveJudgement(None, manual_reason="a module-level name, not a definition: check it is the same value")
    same = {n: same_in_baseline(moves[n], bases.get(n))
            or (bases.get(n) is not None and identical_api(bases[n], kinds[n], (ctx.baseline, ctx.target)))
            for n in moves}
    if all(same.values()):
        return MoveJudgement(SAFE)
    switched = {n: own_import_moves(ctx.baseline, ctx.target, f"{module}.{n}", moves[n])
                or own_sole_home(ctx.baseline, ctx.target, f"{module}.{n}", moves[n])
                for n in moves if not same[n]}
    if all(switched.values()):
        return MoveJudgement(SAFE, "; ".join(
            f"`{n}`'s API changed as it moved, and the target's own {switched[n][0]} imports it from there: "
            "its uses are checked on their own" for n in sorted(switched)))
    return MoveJudgement(UNSAFE, "its API changed as it moved: check it behaves the same")
