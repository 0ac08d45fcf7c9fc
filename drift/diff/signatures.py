"""Parameter-by-parameter comparison of two functions (facts `params`, `returns`)."""

from __future__ import annotations

from typing import Iterator

from drift.diff.annotations import field_default, normalise
from drift.diff.kinds import ChangeKind
from drift.diff.model import Change
from drift.diff.site import Site

POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
VARIADIC = ("VAR_POSITIONAL", "VAR_KEYWORD")


def required(param: dict) -> bool:
    return param.get("default") is None and param.get("kind") not in VARIADIC


def _kind_text(kind: str | None) -> str:
    return (kind or "?").lower().replace("_", "-")


def compare_params(old_fn: dict, new_fn: dict, *, site: Site) -> Iterator[Change]:
    """Removed, renamed, kind-changed, required-added, default and order changes."""
    old_params = old_fn.get("params") or []
    new_params = new_fn.get("params") or []
    old_line, new_line = old_fn.get("line"), new_fn.get("line")
    new_by_name = {p["name"]: (i, p) for i, p in enumerate(new_params)}
    old_names = {p["name"] for p in old_params}
    new_pos = [p for p in new_params if p.get("kind") in POSITIONAL]
    has_var_kw = any(p.get("kind") == "VAR_KEYWORD" for p in new_params)
    renamed_to: set[str] = set()

    old_pos_index = 0
    for param in old_params:
        name, kind = param["name"], param.get("kind")
        pos_index = old_pos_index if kind in POSITIONAL else None
        if kind in POSITIONAL:
            old_pos_index += 1
        hit = new_by_name.get(name)
        if hit is None:
            if kind in VARIADIC:
                twin = next((p for p in new_params if p.get("kind") == kind), None)
                if twin is None:
                    yield site.change(
                        ChangeKind.PARAM_REMOVED,
                        f"{'*' if kind == 'VAR_POSITIONAL' else '**'}{name} was removed",
                        old=site.old(old_line), new=site.new(new_line),
                    )
                continue
            if pos_index is not None and pos_index < len(new_pos):
                candidate = new_pos[pos_index]
                if candidate["name"] not in old_names:
                    renamed_to.add(candidate["name"])
                    yield site.change(
                        ChangeKind.PARAM_RENAMED,
                        f"{name} -> {candidate['name']} (position {pos_index})",
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
        _, new_param = hit
        new_kind = new_param.get("kind")
        if new_kind != kind:
            yield site.change(
                ChangeKind.PARAM_KIND_CHANGED,
                f"{name}: {_kind_text(kind)} -> {_kind_text(new_kind)}",
                old=site.old(old_line), new=site.new(new_line),
            )
        old_default, new_default = param.get("default"), new_param.get("default")
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

    for param in new_params:
        name = param["name"]
        if name in old_names or name in renamed_to:
            continue
        if required(param):
            yield site.change(
                ChangeKind.PARAM_REQUIRED_ADDED,
                f"{name}" + (f": {param['annotation']}" if param.get("annotation") else ""),
                old=site.old(old_line), new=site.new(new_line),
            )
        elif param.get("kind") not in VARIADIC:
            yield site.change(
                ChangeKind.PARAM_ADDED,
                f"{name}={param.get('default')}",
                old=site.old(old_line), new=site.new(new_line),
            )

    old_order = [p["name"] for p in old_params if p.get("kind") in POSITIONAL]
    new_order = [p["name"] for p in new_pos]
    kept = set(old_order) & set(new_order)
    old_kept = [n for n in old_order if n in kept]
    new_kept = [n for n in new_order if n in kept]
    if old_kept != new_kept:
        yield site.change(
            ChangeKind.PARAM_REORDERED,
            f"({', '.join(old_kept)}) -> ({', '.join(new_kept)})",
            old=site.old(old_line), new=site.new(new_line),
        )
    else:
        moved = positional_shift(old_params, new_params, renamed_to)
        if moved is not None:
            yield site.change(ChangeKind.PARAM_MOVED, moved, old=site.old(old_line), new=site.new(new_line))


def positional_shift(old_params: list[dict], new_params: list[dict], renamed: set[str] = frozenset()) -> str | None:
    """Why positional callers now bind the wrong parameter, or None when none shifted.

    A parameter inserted before existing positional ones (even an optional one) or one removed
    before them moves every later one: `f(a, b, c)` written for `f(a, b, c)` binds `c` to the
    new parameter of `f(a, new=None, b, c)`. Only shifts that keep the relative order are
    said here (a changed order is PARAM_REORDERED)."""
    old_pos = [p["name"] for p in old_params if p.get("kind") in POSITIONAL]
    new_pos = [p["name"] for p in new_params if p.get("kind") in POSITIONAL]
    new_at = {n: i for i, n in enumerate(new_pos)}
    shifted = [(n, i, new_at[n]) for i, n in enumerate(old_pos) if n in new_at and new_at[n] != i]
    if not shifted:
        return None
    last = max(i for _, i, _ in shifted)
    old_names = set(old_pos) | {p["name"] for p in old_params}
    inserted = [n for n in new_pos[: max(j for _, _, j in shifted)] if n not in old_names and n not in renamed]
    removed = [n for n in old_pos[:last] if n not in new_at and n not in _renamed_from(old_pos, new_pos, renamed)]
    moves = ", ".join(f"{n} {i}->{j}" for n, i, j in shifted)
    cause = []
    if inserted:
        defaults = {p["name"]: p.get("default") for p in new_params}
        cause.append("inserted before them: " + ", ".join(
            f"{n}={defaults[n]}" if defaults.get(n) is not None else n for n in inserted))
    if removed:
        cause.append("removed before them: " + ", ".join(removed))
    return f"{moves}" + (f" ({'; '.join(cause)})" if cause else "")


def _renamed_from(old_pos: list[str], new_pos: list[str], renamed: set[str]) -> set[str]:
    """Old names whose position a renamed parameter took over (no shift for those)."""
    return {old_pos[i] for i, n in enumerate(new_pos) if n in renamed and i < len(old_pos)}


def compare_returns(old_fn: dict, new_fn: dict, *, site: Site) -> Iterator[Change]:
    old_ret, new_ret = old_fn.get("returns"), new_fn.get("returns")
    if old_ret is None or new_ret is None:
        return  # adding or dropping an annotation changes no behaviour
    if old_ret != new_ret and normalise(old_ret) != normalise(new_ret):
        yield site.change(
            ChangeKind.RETURN_CHANGED,
            f"{old_ret or '(none)'} -> {new_ret or '(none)'}",
            old=site.old(old_fn.get("line")), new=site.new(new_fn.get("line")),
        )
