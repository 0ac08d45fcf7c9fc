"""DRIFT032: a call's result is unpacked into as many names as the baseline returned, not the target.

Also a result read at a constant index (`res = f(...)`, then `res[2]`) past the number of values
the target now returns: IndexError there.

A function that grows its tuple (`-> tuple[Blocks, int]` becoming `-> tuple[Blocks, int, int]`)
breaks every `a, b = f(...)` at once with `ValueError: too many values to unpack`, wherever the
call is: on an object vLLM built and the consumer reached through `self.<attr>`, in a function
the consumer installed over one of vLLM's methods, or on a name imported plainly. The probe records
how many names take the result apart (`unpacked`, probes/reach.py); the number of values comes
from the return annotation on each side, which is what vLLM's own callers are checked against by
its type checker, or, for a function that declares none, from its returns when every one is a
tuple literal of one length (`return hidden, logits`). A variable-length `tuple[X, ...]`, a union,
a starred item or returns of several lengths say nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import SAFE, UNSAFE, Finding, Fix, RuleKind, Severity

_TUPLES = ("tuple[", "Tuple[", "typing.Tuple[", "typing.tuple[")


def _top_level_split(text: str, sep: str) -> list[str]:
    """`A, dict[str, int], C` split at the separators outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def returned_count(annotation: str | None) -> int | None:
    """How many values a return annotation promises every time: `tuple[A, B, C]` -> 3; None for
    anything that does not fix the number (no annotation, `tuple[A, ...]`, `tuple[A, B] | None`)."""
    text = (annotation or "").strip().strip("'\"").strip()
    if len(_top_level_split(text, "|")) > 1 or not text.endswith("]"):
        return None
    head = next((h for h in _TUPLES if text.startswith(h)), None)
    if head is None:
        return None
    inner = text[len(head):-1].strip()
    if not inner or inner == "()":
        return None
    items = _top_level_split(inner, ",")
    items = [i for i in items if i]  # `tuple[A, B,]`
    if any(i == "..." for i in items):
        return None
    return len(items)


_ITERABLES = ("list", "List", "Iterable", "Iterator", "Sequence", "Generator", "AsyncIterator", "AsyncIterable",
              "AsyncGenerator", "Collection", "MutableSequence", "set", "Set", "frozenset", "FrozenSet")


def item_annotation(annotation: str | None) -> str | None:
    """The item type of a return annotation that promises an iterable of one kind of element:
    `list[tuple[A, B]]`, `Iterator[...]`, `Generator[Y, S, R]` (its yield type), `typing.`/
    `collections.abc.` prefixed too; `tuple[X, ...]` gives X. None for anything else (a union, a
    dict, a plain class)."""
    text = (annotation or "").strip().strip("'\"").strip()
    if len(_top_level_split(text, "|")) > 1 or not text.endswith("]") or "[" not in text:
        return None
    head, inner = text.split("[", 1)
    head, inner = head.rsplit(".", 1)[-1], inner[:-1].strip()
    items = [i for i in _top_level_split(inner, ",") if i]
    if head in ("tuple", "Tuple"):
        return items[0] if len(items) == 2 and items[1] == "..." else None
    if head not in _ITERABLES or not items:
        return None
    return items[0] if head.startswith(("Generator", "AsyncGenerator")) or len(items) == 1 else None


def namedtuple_count(index, module: str, annotation: str | None) -> int | None:
    """How many values unpacking an object annotated `annotation` (in `module`) gives when it
    names a NamedTuple class of the package: every field, defaulted ones included (a fourth field
    with a default still makes `a, b, c = result` raise). None for any other annotation."""
    text = (annotation or "").strip().strip("'\"").strip()
    if index is None or not text or not text.replace(".", "").replace("_", "").isalnum():
        return None
    sym = index.resolve_in(module, text)
    if sym is None or sym.kind != "class" or sym.as_class.kind != "namedtuple":
        return None
    return len(sym.as_class.fields) or None


def returned_shape(fn, index=None, module: str = "") -> tuple[int | None, str | None]:
    """How many values a function returns every time, and what says so: its return annotation
    (`tuple[A, B]`, or a NamedTuple class of the package, resolved in `module` through `index`),
    or, only where it declares none, its tuple literals (every `return` that hands back a value is
    a tuple of the same length, no starred item: `return x, 0`). (None, None) when neither fixes
    the number."""
    if fn.returns:
        n = returned_count(fn.returns)
        if n is None:
            n = namedtuple_count(index, module, fn.returns)
            return (n, f"`{fn.returns}`, a NamedTuple of {n} fields") if n is not None else (None, None)
        return (n, f"`{fn.returns}`") if n is not None else (None, None)
    lines = set(fn.behaviour.value_returns)
    rows = {row[0]: row[1] for row in fn.behaviour.tuple_returns if len(row) >= 2}
    if not lines or not lines <= set(rows):
        return None, None
    sizes = {len(rows[line]) for line in lines}
    if len(sizes) != 1 or any(str(item).startswith("*") for line in lines for item in rows[line]):
        return None, None
    line = min(lines)
    return sizes.pop(), f"`return {', '.join(map(str, rows[line]))}`"


def item_shape(fn, index=None, module: str = "") -> tuple[int | None, str | None]:
    """How many values each element of a function's result holds, from its return annotation's
    item type (`-> list[tuple[A, B]]` -> 2, an iterable of a NamedTuple class of the package ->
    its fields), with the annotation that says so; (None, None) when it fixes no count."""
    item = item_annotation(fn.returns)
    if item is None:
        return None, None
    n = returned_count(item)
    if n is None:
        n = namedtuple_count(index, module, item)
    return (n, f"`{fn.returns}`") if n is not None else (None, None)


def unpacks(count: int, names: int, starred: bool) -> bool:
    """Whether `count` values fill `names` targets (one of them `*rest` when starred)."""
    return count >= names if starred else count == names


def unpack_error(count: int, names: int, starred: bool) -> str:
    """The ValueError Python raises when `count` values meet `names` targets."""
    if starred or count < names:
        at_least = "at least " if starred else ""
        return f"ValueError: not enough values to unpack (expected {at_least}{names}, got {count})"
    return f"ValueError: too many values to unpack (expected {names})"


@rule("DRIFT032", RuleKind.RETURN_SHAPE)
def unpacked_count_changed(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer unpacks a call's result into the number of values the baseline's annotation
    returns, and the target's annotation returns another number: the assignment raises. A return
    annotated with a NamedTuple class of the package counts its fields, defaulted ones included
    (`-> LogprobsTensors` gaining a fourth field breaks `a, b, c = sampler.gather(...)`). A function
    with no return annotation counts when every return is a tuple literal of one length. A result
    read at a constant index through the one local holding it (`res = f(...)`, `res[2]`) past the
    number of values the target now returns is an IndexError, reported at that read. A loop or a
    comprehension that unpacks each element of a call's result (`for a, b in x.f():`) is held
    to the item type of the return annotation (`-> list[tuple[A, B]]`, `Iterator[...]`) the same
    way."""
    if ctx.baseline is None:
        return
    seen: set[tuple[str, int]] = set()
    for rc in ctx.calls:
        if rc.rec.get("unpacked_items"):
            yield from _items_unpacked(ctx, rc, seen)
        shape = rc.rec.get("unpacked")
        if rc.rec.get("indexed") and not shape:
            yield from _indexed_beyond(ctx, rc, seen)
            continue
        shapes = _shapes(ctx, rc) if shape else None
        if shapes is not None:
            yield from _unpack_changed(ctx, rc, shapes, shape, seen, items=False)


def _shapes(ctx: CheckContext, rc, shape=None) -> tuple[int, str, int, str] | None:
    """How many values the call's function returns on the target and on the baseline (with the
    text of each return), or None where either side is no plain function or tells no count: the
    one question both of DRIFT032's checks ask. `shape`: another count (item_shape: each element's)."""
    if rc.is_constructor or rc.target is None or rc.baseline is None \
            or rc.target.kind not in ("function", "method") or rc.baseline.kind not in ("function", "method"):
        return None
    shape = shape or returned_shape
    now, tret = shape(rc.target.as_function, ctx.target, rc.target.module)
    before, bret = shape(rc.baseline.as_function, ctx.baseline, rc.baseline.module)
    return None if now is None or before is None else (now, tret, before, bret)


def _items_unpacked(ctx: CheckContext, rc, seen: set[tuple[str, int]]) -> Iterator[Finding]:
    """`for a, b in x.f():` (or a comprehension over it) where each element of f's result held as
    many values as the names on the baseline (its annotation's item type, `list[tuple[A, B]]`) and
    holds another number on the target: the loop raises on its first element."""
    shapes = _shapes(ctx, rc, item_shape)
    if shapes is not None:
        yield from _unpack_changed(ctx, rc, shapes, rc.rec["unpacked_items"], seen, items=True)


def _unpack_changed(ctx: CheckContext, rc, shapes: tuple[int, str, int, str], shape, seen: set[tuple[str, int]],
                    *, items: bool) -> Iterator[Finding]:
    """The finding of both unpacking checks: the names (`shape`: count, starred) fitted the
    baseline's count and do not fit the target's. `items`: the count is each element's (a loop
    unpacks the items), not the result's."""
    names, starred = int(shape[0]), bool(shape[1])
    now, tret, before, bret = shapes
    if not unpacks(before, names, starred) or unpacks(now, names, starred):
        return
    site = rc.site
    if (site.path, site.line) in seen:
        return
    seen.add((site.path, site.line))
    star = " and a starred name" if starred else ""
    if items:
        title = f"each item `{rc.label}(...)` returns now holds {now} values ({tret}); the loop unpacks it into {names}{star}"
        details, what = f"the baseline's items held {before} values ({bret})", f"each item of `{rc.label}` now holds"
    else:
        title = f"`{rc.label}(...)` now returns {now} values ({tret}); the result is unpacked into {names}{star}"
        details, what = f"the baseline returned {before} values ({bret})", f"`{rc.label}` now returns"
    yield Finding(
        rule_id="DRIFT032", kind=RuleKind.RETURN_SHAPE, severity=Severity.BREAKING,
        title=title,
        consumer_site=site,
        target_evidence=(ctx.evidence(rc.target),),
        baseline_evidence=(ctx.evidence(rc.baseline),),
        predicted_failure=unpack_error(now, names, starred),
        details=details,
        fix=_rest_fix(rc, now, tret, before, names, starred, what, items=items),
        symbol=rc.dotted,
    )


def _values(fn, *, items: bool) -> list[str] | None:
    """The values a function's result (each item of it, for a loop) holds, in order, as written:
    its tuple annotation's element types, or, where it declares none, its one `return` tuple
    literal's expressions (what `returned_shape` counts); None where neither says (a NamedTuple,
    several literals that differ)."""
    text = item_annotation(fn.returns) if items else fn.returns
    if text:
        head = next((h for h in _TUPLES if text.startswith(h)), None)
        return [v for v in _top_level_split(text[len(head):-1], ",") if v] if head and text.endswith("]") else None
    if items or fn.returns:
        return None
    rows = {tuple(map(str, row[1])) for row in fn.behaviour.tuple_returns if len(row) >= 2}
    return list(rows.pop()) if len(rows) == 1 else None


def _rest_fix(rc, now: int, tret: str, before: int, names: int, starred: bool, what: str,
              *, items: bool) -> Fix:
    """`a, b, *_ = f()` when the target only added values after the baseline's, type by type (or
    expression by expression): the edit takes the same values on both releases (unpack_rest);
    otherwise which of the new values the consumer needs is its own decision."""
    described = f"unpack the {now} values {what} ({tret})"
    old, new = _values(rc.baseline.as_function, items=items), _values(rc.target.as_function, items=items)
    callee = rc.label.rsplit(".", 1)[-1]
    if (not starred and names == before < now and old is not None and new is not None
            and len(old) == before and len(new) == now and new[:before] == old and callee.isidentifier()):
        path = (rc.rec.get("callee") or {}).get("path") or rc.rec.get("path") or [""]
        own = str(path[0]).startswith(("self:", "super:")) and len(path) == 2
        # a helper the consumer's class inherits, called on `self`: the class replays the target's own
        # protocol (a scheduler's `schedule` copy), whose new values the target's caller acts on
        return Fix(f"add `*_` after the {names} names that unpack `{rc.label}(...)`"
                   f"{chr(39) + 's items' if items else ''}: the target only appended values ({tret}), "
                   f"and `*_` takes the same {names} on both releases"
                   + (f"; the class inherits `{callee}` from the target, whose own caller uses the new "
                      "values: check this copy of its logic needs none of them" if own else ""),
                   codemod="unpack_rest", args={"callee": callee, "names": names}, tier=UNSAFE if own else SAFE)
    return Fix(described, manual_reason="which of the new values the consumer needs is its own decision")


def _indexed_beyond(ctx: CheckContext, rc, seen: set[tuple[str, int]]) -> Iterator[Finding]:
    """`res = f(...)` then `res[2]`: the baseline returned more values than the index, the target
    returns no more than it, so the read raises IndexError (the probe's `indexed`, the highest
    constant index read off the one local holding the result, and that read's line, where Python
    raises)."""
    shapes = _shapes(ctx, rc)
    if shapes is None:
        return
    index, at = int(rc.rec["indexed"][0]), int(rc.rec["indexed"][1])
    now, tret, before, bret = shapes
    if before <= index or now > index:
        return
    site = replace(rc.site, line=at, col=None, snippet=None) if at != rc.site.line else rc.site
    if (site.path, site.line) in seen:
        return
    seen.add((site.path, site.line))
    yield Finding(
        rule_id="DRIFT032", kind=RuleKind.RETURN_SHAPE, severity=Severity.BREAKING,
        title=f"`{rc.label}(...)` now returns {now} values ({tret}); its result is read at index {index}"
              + (f" (the call at line {rc.site.line})" if at != rc.site.line else ""),
        consumer_site=site,
        target_evidence=(ctx.evidence(rc.target),),
        baseline_evidence=(ctx.evidence(rc.baseline),),
        predicted_failure="IndexError: tuple index out of range",
        details=f"the baseline returned {before} values ({bret})",
        fix=Fix(f"read the values `{rc.label}` now returns ({tret})",
                manual_reason="where the old value went (another call, another position) is the target's to read"),
        symbol=rc.dotted,
    )


RULES = [unpacked_count_changed]
