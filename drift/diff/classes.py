"""Class comparison: kind, bases, dataclass/pydantic fields, methods (through the new MRO, so a
method hoisted into a base class is not 'removed'), nested classes, class and instance
attributes."""

from __future__ import annotations

from typing import Iterator

from drift.diff.annotations import field_default
from drift.diff.attributes import compare_class_attrs, compare_instance_attrs
from drift.diff.behaviour import compare_behaviour
from drift.diff.kinds import ChangeKind
from drift.diff.model import Change
from drift.diff.signatures import compare_params, compare_returns, positional_shift
from drift.diff.site import Site
from drift.diff.surface import strip_subscript
from drift.index import PackageIndex, Symbol

FIELD_KINDS = frozenset({"dataclass", "pydantic", "namedtuple", "typeddict"})


def compare_function(
    old_fn: dict,
    new_fn: dict,
    *,
    site: Site,
    method: str | None = None,
    old_siblings: dict[str, dict] | None = None,
    new_siblings: dict[str, dict] | None = None,
) -> Iterator[Change]:
    if old_fn.get("params") != new_fn.get("params"):  # C-speed equality: most are unchanged
        yield from compare_params(old_fn, new_fn, site=site)
    if old_fn.get("returns") != new_fn.get("returns"):
        yield from compare_returns(old_fn, new_fn, site=site)
    yield from compare_behaviour(
        old_fn, new_fn, site=site, method=method, old_siblings=old_siblings, new_siblings=new_siblings
    )


def _base_key(text: str) -> str:
    return strip_subscript(text).rsplit(".", 1)[-1]


def compare_class(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    old_node, new_node = old.facts, new.facts
    old_line, new_line = old_node.get("line"), new_node.get("line")
    if old_node.get("kind") != new_node.get("kind"):
        yield site.change(
            ChangeKind.CLASS_KIND_CHANGED,
            f"{old_node.get('kind')} -> {new_node.get('kind')}",
            old=site.old(old_line), new=site.new(new_line),
        )
    old_bases = [_base_key(b) for b in old_node.get("bases") or ()]
    new_bases = [_base_key(b) for b in new_node.get("bases") or ()]
    if old_bases != new_bases:
        yield site.change(
            ChangeKind.BASE_CHANGED,
            f"({', '.join(old_node.get('bases') or ())}) -> ({', '.join(new_node.get('bases') or ())})",
            old=site.old(old_line), new=site.new(new_line),
        )
    if old_node.get("kind") in FIELD_KINDS or new_node.get("kind") in FIELD_KINDS:
        yield from _compare_fields(old_node, new_node, site=site)
    yield from _compare_methods(old, new, site=site, new_index=new_index)
    yield from _compare_nested(old, new, site=site, old_index=old_index, new_index=new_index)
    yield from compare_class_attrs(old, new, site=site, old_index=old_index, new_index=new_index)
    yield from compare_instance_attrs(old, new, site=site, old_index=old_index, new_index=new_index)


def _fields(node: dict) -> dict[str, dict]:
    return {f["name"]: f for f in node.get("fields") or () if not f.get("classvar")}


def _init_fields(node: dict) -> list[dict]:
    """The class's own fields as the generated `__init__`'s parameters, in order."""
    if node.get("kind") == "typeddict":
        return []  # keyword-only by construction
    return [{"name": f["name"], "default": f.get("default"),
             "kind": "KEYWORD_ONLY" if f.get("kw_only") else "POSITIONAL_OR_KEYWORD"}
            for f in node.get("fields") or () if not f.get("classvar") and f.get("init") is not False]


def _compare_fields(old_node: dict, new_node: dict, *, site: Site) -> Iterator[Change]:
    old_fields, new_fields = _fields(old_node), _fields(new_node)
    for name, field in old_fields.items():
        other = new_fields.get(name)
        if other is None:
            yield site.change(
                ChangeKind.FIELD_REMOVED, name,
                old=site.old(field.get("line")), new=site.new(new_node.get("line")),
            )
            continue
        if field.get("has_default") and not other.get("has_default"):
            yield site.change(
                ChangeKind.FIELD_DEFAULT_CHANGED,
                f"{name}: {field.get('default')} -> (no default: now required)",
                old=site.old(field.get("line")), new=site.new(other.get("line")),
            )
        elif field.get("has_default") and field_default(field.get("default")) != field_default(
            other.get("default")
        ):
            yield site.change(
                ChangeKind.FIELD_DEFAULT_CHANGED,
                f"{name}: {field.get('default')} -> {other.get('default')}",
                old=site.old(field.get("line")), new=site.new(other.get("line")),
            )
    shift = positional_shift(_init_fields(old_node), _init_fields(new_node))
    if shift is not None:
        init = site.child("__init__")
        yield init.change(
            ChangeKind.PARAM_MOVED, f"constructor fields: {shift}",
            old=init.old(old_node.get("line")), new=init.new(new_node.get("line")),
        )
    for name, field in new_fields.items():
        if name in old_fields or field.get("has_default"):
            continue
        what = "InitVar " if field.get("initvar") else ""
        kw = ", keyword-only" if field.get("kw_only") else ""
        ann = field.get("annotation")
        yield site.change(
            ChangeKind.FIELD_REQUIRED_ADDED,
            f"{what}{name}" + (f": {ann}" if ann else "") + kw,
            old=site.old(old_node.get("line")), new=site.new(field.get("line")),
        )


def _compare_methods(old: Symbol, new: Symbol, *, site: Site, new_index: PackageIndex) -> Iterator[Change]:
    new_methods = new.facts.get("methods") or {}
    old_methods = old.facts.get("methods") or {}
    for name, old_fn in old_methods.items():
        child = site.child(name)
        new_fn = new_methods.get(name)
        siblings = new_methods
        if new_fn is None:
            hit = new_index.class_member(new, name)
            if hit is None:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    "method is gone (not inherited from a base either)",
                    old=child.old(old_fn.get("line")), new=child.new(new.facts.get("line")),
                )
                continue
            if hit.kind != "method":
                continue
            new_fn = hit.facts
            child = site.child(name, new_path=hit.path)
            siblings = (hit.owner.facts.get("methods") or {}) if hit.owner is not None else {}
        yield from compare_function(
            old_fn, new_fn, site=child, method=name, old_siblings=old_methods, new_siblings=siblings
        )


def _compare_nested(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    new_nested = new.facts.get("nested") or {}
    for name, node in (old.facts.get("nested") or {}).items():
        child = site.child(name)
        other = new_nested.get(name)
        if other is None:
            if new_index.class_member(new, name) is None:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    "nested class is gone",
                    old=child.old(node.get("line")), new=child.new(new.facts.get("line")),
                )
            continue
        yield from compare_class(
            Symbol(f"{old.dotted}.{name}", "class", old.module, old.path, node.get("line", 0), node),
            Symbol(f"{new.dotted}.{name}", "class", new.module, new.path, other.get("line", 0), other),
            site=child, old_index=old_index, new_index=new_index,
        )
