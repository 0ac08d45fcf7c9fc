"""Class comparison: kind, bases, dataclass/pydantic fields, methods (through bases in the
new snapshot, so a method hoisted into a base class is not 'removed'), nested classes."""

from __future__ import annotations

from typing import Iterator

from drift.diff.annotations import field_default
from drift.diff.behaviour import compare_behaviour
from drift.diff.index import Definition, SymbolIndex, strip_subscript
from drift.diff.kinds import ChangeKind
from drift.diff.model import Change
from drift.diff.signatures import compare_params, compare_returns
from drift.diff.site import Site

FIELD_KINDS = frozenset({"dataclass", "pydantic", "namedtuple", "typeddict"})


def compare_function(
    old_fn: dict,
    new_fn: dict,
    *,
    site: Site,
    method: str | None = None,
    new_siblings: dict[str, dict] | None = None,
) -> Iterator[Change]:
    if old_fn.get("params") != new_fn.get("params"):  # C-speed equality: most are unchanged
        yield from compare_params(old_fn, new_fn, site=site)
    if old_fn.get("returns") != new_fn.get("returns"):
        yield from compare_returns(old_fn, new_fn, site=site)
    yield from compare_behaviour(old_fn, new_fn, site=site, method=method, new_siblings=new_siblings)


def _base_key(text: str) -> str:
    return strip_subscript(text).rsplit(".", 1)[-1]


def compare_class(
    old: Definition, new: Definition, *, site: Site, new_index: SymbolIndex
) -> Iterator[Change]:
    old_node, new_node = old.node, new.node
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
    yield from _compare_nested(old, new, site=site, new_index=new_index)
    yield from _compare_attrs(old_node, new, site=site, new_index=new_index)


def _fields(node: dict) -> dict[str, dict]:
    return {f["name"]: f for f in node.get("fields") or () if not f.get("classvar")}


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


def _compare_methods(
    old: Definition, new: Definition, *, site: Site, new_index: SymbolIndex
) -> Iterator[Change]:
    new_methods = new.node.get("methods") or {}
    for name, old_fn in (old.node.get("methods") or {}).items():
        child = site.child(name)
        new_fn = new_methods.get(name)
        siblings = new_methods
        if new_fn is None:
            hit = new_index.find_member(new, name)
            if hit is None:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    "method is gone (not inherited from a base either)",
                    old=child.old(old_fn.get("line")), new=child.new(new.node.get("line")),
                )
                continue
            if hit.kind != "function":
                continue
            new_fn = hit.node
            child = site.child(name, new_path=hit.path)
            base = new_index.resolve(hit.module, hit.qualname.split(".")[0])
            siblings = (base.node.get("methods") or {}) if base and base.kind == "class" else {}
        yield from compare_function(old_fn, new_fn, site=child, method=name, new_siblings=siblings)


def _compare_nested(
    old: Definition, new: Definition, *, site: Site, new_index: SymbolIndex
) -> Iterator[Change]:
    new_nested = new.node.get("nested") or {}
    for name, node in (old.node.get("nested") or {}).items():
        child = site.child(name)
        other = new_nested.get(name)
        if other is None:
            hit = new_index.find_member(new, name)
            if hit is None:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    "nested class is gone",
                    old=child.old(node.get("line")), new=child.new(new.node.get("line")),
                )
            continue
        yield from compare_class(
            Definition(old.module, f"{old.qualname}.{name}", "class", node, old.path, node.get("line", 0)),
            Definition(new.module, f"{new.qualname}.{name}", "class", other, new.path, other.get("line", 0)),
            site=child,
            new_index=new_index,
        )


def _compare_attrs(
    old_node: dict, new: Definition, *, site: Site, new_index: SymbolIndex
) -> Iterator[Change]:
    new_attrs = new.node.get("attrs") or {}
    for name, attr in (old_node.get("attrs") or {}).items():
        if name in new_attrs or name.startswith("__"):
            continue
        if new_index.find_member(new, name) is not None:
            continue
        child = site.child(name)
        yield child.change(
            ChangeKind.SYMBOL_REMOVED,
            "class attribute is gone",
            old=child.old(attr.get("line")), new=child.new(new.node.get("line")),
        )

