"""Parameter-by-parameter comparison of two functions (facts `params`, `returns`)."""

from __future__ import annotations

from typing import Iterator, Sequence

from drift.analysis.diff.annotations import field_default, normalise
from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change
from drift.analysis.diff.site import Site
from drift.model.facts import FieldFacts, FunctionFacts, ParamFacts

POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
VARIADIC = ("VAR_POSITIONAL", "VAR_KEYWORD")


def _kind_text(kind: str | None) -> str:
    return (kind or "?").lower().replace("_", "-")


def compare_params(old_fn: FunctionFacts, new_fn: FunctionFacts, *, site: Site) -> Iterator[Change]:
    """Removed, renamed, kind-changed, required-added, default and order changes."""
    old_params, new_params = old_fn.param_facts, new_fn.param_facts
    old_line, new_line = old_fn.line, new_fn.line
    old_sig = [(p.name, p.kind) for p in old_params]  # each view read once: this runs for every changed signature
    new_sig = [(p.name, p.kind) for p in new_params]
    new_by_name = {name: p for (name, _), p in zip(new_sig, new_params)}
    old_names = {name for name, _ in old_sig}
    new_pos = [name for name, kind in new_sig if kind in POSITIONAL]
    has_var_kw = any(kind == "VAR_KEYWORD" for _, kind in new_sig)
    renamed_to: set[str] = set()

    old_order: list[str] = []
    for param, (name, kind) in zip(old_params, old_sig):
        pos_index = len(old_order) if kind in POSITIONAL else None
        if kind in POSITIONAL:
            old_order.append(name)
        hit = new_by_name.get(name)
        if hit is None:
            if kind in VARIADIC:
                twin = next((n for n, k in new_sig if k == kind), None)
                if twin is None:
                    yield site.change(
                        ChangeKind.PARAM_REMOVED,
                        f"{'*' if kind == 'VAR_POSITIONAL' else '**'}{name} was removed",
                        old=site.old(old_line), new=site.new(new_line),
                    )
                continue
            if pos_index is not None and pos_index < len(new_pos):
                candidate = new_pos[pos_index]
                if candidate not in old_names:
                    renamed_to.add(candidate)
                    yield site.change(
                        ChangeKind.PARAM_RENAMED,
                        f"{name} -> {candidate} (position {pos_index})",
                        old=site.old(old_line), new=site.new(new_line),
                    )
                    continue
            absorbed = " (now only absorbed by **kwargs)" if has_var_kw else ""
            yield site.change(
                ChangeKind.PARAM_REMOVED,
                f"{name}{absorbed}",
                old=site.old(old_line), new=site.new(new_line),
            )
            continue
        new_param = hit
        new_kind = new_param.kind
        if new_kind != kind:
            yield site.change(
                ChangeKind.PARAM_KIND_CHANGED,
                f"{name}: {_kind_text(kind)} -> {_kind_text(new_kind)}",
                old=site.old(old_line), new=site.new(new_line),
            )
        old_default, new_default = param.default, new_param.default
        if kind in VARIADIC or new_kind in VARIADIC:
            continue
        if old_default is not None and new_default is None:
            yield site.change(
                ChangeKind.PARAM_DEFAULT_REMOVED,
                f"{name} (was {old_default}) is now required",
                old=site.old(old_line), new=site.new(new_line),
            )
        elif old_default is not None and field_default(old_default) != field_default(new_default):
            yield site.change(
                ChangeKind.PARAM_DEFAULT_CHANGED,
                f"{name}: {old_default} -> {new_default}",
                old=site.old(old_line), new=site.new(new_line),
            )

    for param, (name, kind) in zip(new_params, new_sig):
        if name in old_names or name in renamed_to:
            continue
        if param.required:
            yield site.change(
                ChangeKind.PARAM_REQUIRED_ADDED,
                f"{name}" + (f": {param.annotation}" if param.annotation else ""),
                old=site.old(old_line), new=site.new(new_line),
            )
        elif kind not in VARIADIC:
            yield site.change(
                ChangeKind.PARAM_ADDED,
                f"{name}={param.default}",
                old=site.old(old_line), new=site.new(new_line),
            )

    kept = set(old_order) & set(new_pos)
    old_kept = [n for n in old_order if n in kept]
    new_kept = [n for n in new_pos if n in kept]
    if old_kept != new_kept:
        yield site.change(
            ChangeKind.PARAM_REORDERED,
            f"({', '.join(old_kept)}) -> ({', '.join(new_kept)})",
            old=site.old(old_line), new=site.new(new_line),
        )
    else:
        moved = positional_shift(old_order, new_pos, old_names, new_params, renamed_to)
        if moved is not None:
            yield site.change(ChangeKind.PARAM_MOVED, moved, old=site.old(old_line), new=site.new(new_line))


def positional_shift(old_pos: list[str], new_pos: list[str], old_names: set[str],
                     new_params: Sequence[ParamFacts | FieldFacts], renamed: set[str] = frozenset()) -> str | None:
    """Why positional callers now bind the wrong parameter, or None when none shifted.

    `old_pos`/`new_pos` are the positional parameters' names on each side, `old_names` every old
    parameter's, `new_params` the new parameters (or dataclass fields), for the defaults of the
    inserted ones. A parameter inserted before existing positional ones (even an optional one)
    or one removed before them moves every later one: `f(a, b, c)` written for `f(a, b, c)`
    binds `c` to the new parameter of `f(a, new=None, b, c)`. Only shifts that keep the relative
    order are said here (a changed order is PARAM_REORDERED)."""
    new_at = {n: i for i, n in enumerate(new_pos)}
    shifted = [(n, i, new_at[n]) for i, n in enumerate(old_pos) if n in new_at and new_at[n] != i]
    if not shifted:
        return None
    last = max(i for _, i, _ in shifted)
    inserted = [n for n in new_pos[: max(j for _, _, j in shifted)] if n not in old_names and n not in renamed]
    removed = [n for n in old_pos[:last] if n not in new_at and n not in _renamed_from(old_pos, new_pos, renamed)]
    moves = ", ".join(f"{n} {i}->{j}" for n, i, j in shifted)
    cause = []
    if inserted:
        defaults = {p.name: p.default for p in new_params}
        cause.append("inserted before them: " + ", ".join(
            f"{n}={defaults[n]}" if defaults.get(n) is not None else n for n in inserted))
    if removed:
        cause.append("removed before them: " + ", ".join(removed))
    return f"{moves}" + (f" ({'; '.join(cause)})" if cause else "")


def _renamed_from(old_pos: list[str], new_pos: list[str], renamed: set[str]) -> set[str]:
    """Old names whose position a renamed parameter took over (no shift for those)."""
    return {old_pos[i] for i, n in enumerate(new_pos) if n in renamed and i < len(old_pos)}


def compare_returns(old_fn: FunctionFacts, new_fn: FunctionFacts, *, site: Site) -> Iterator[Change]:
    old_ret, new_ret = old_fn.returns, new_fn.returns
    if old_ret is None or new_ret is None:
        return  # adding or dropping an annotation changes no behaviour
    if old_ret != new_ret and normalise(old_ret) != normalise(new_ret):
        yield site.change(
            ChangeKind.RETURN_CHANGED,
            f"{old_ret or '(none)'} -> {new_ret or '(none)'}",
            old=site.old(old_fn.line), new=site.new(new_fn.line),
        )
