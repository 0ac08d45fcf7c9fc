"""Class comparison: kind, bases, dataclass/pydantic fields, methods (through the new MRO, so a
method hoisted into a base class is not 'removed'), nested classes, class and instance
attributes."""

from __future__ import annotations

from typing import Iterator

from drift.analysis.diff.annotations import field_default
from drift.analysis.diff.attributes import compare_class_attrs, compare_inherited, compare_instance_attrs
from drift.analysis.diff.behaviour import compare_behaviour
from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change
from drift.analysis.diff.signatures import compare_params, compare_returns, positional_shift
from drift.analysis.diff.site import Site
from drift.analysis.diff.surface import strip_subscript
from drift.model.facts import ClassFacts, FieldFacts, FunctionFacts, Table
from drift.model.index import PackageIndex, Symbol

FIELD_KINDS = frozenset({"dataclass", "pydantic", "namedtuple", "typeddict"})


def compare_function(
    old_fn: FunctionFacts,
    new_fn: FunctionFacts,
    *,
    site: Site,
    method: str | None = None,
    old_siblings: Table[FunctionFacts] | None = None,
    new_siblings: Table[FunctionFacts] | None = None,
) -> Iterator[Change]:
    if not old_fn.same_params(new_fn):  # most are unchanged
        yield from compare_params(old_fn, new_fn, site=site)
    if old_fn.returns != new_fn.returns:
        yield from compare_returns(old_fn, new_fn, site=site)
    yield from compare_behaviour(
        old_fn, new_fn, site=site, method=method, old_siblings=old_siblings, new_siblings=new_siblings
    )


def _base_key(text: str) -> str:
    return strip_subscript(text).rsplit(".", 1)[-1]


def compare_class(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    old_node, new_node = old.as_class, new.as_class
    old_line, new_line = old_node.line, new_node.line
    old_kind, new_kind = old_node.kind, new_node.kind
    if old_kind != new_kind:
        yield site.change(
            ChangeKind.CLASS_KIND_CHANGED,
            f"{old_kind} -> {new_kind}",
            old=site.old(old_line), new=site.new(new_line),
        )
    old_written, new_written = old_node.bases, new_node.bases
    if [_base_key(b) for b in old_written] != [_base_key(b) for b in new_written]:
        yield site.change(
            ChangeKind.BASE_CHANGED,
            f"({', '.join(old_written)}) -> ({', '.join(new_written)})",
            old=site.old(old_line), new=site.new(new_line),
        )
    if old_kind in FIELD_KINDS or new_kind in FIELD_KINDS:
        if _field_bases(old_index, old) == _field_bases(new_index, new):  # the bases' own shifts are theirs
            shift = _constructor_shift(_init_fields(old_node), _init_fields(new_node))
        else:
            shift = _constructor_shift(_chain_init_fields(old_index, old), _chain_init_fields(new_index, new))
        yield from _compare_fields(old_node, new_node, site=site, shift=shift)
    yield from _compare_methods(old, new, old_node, new_node, site=site, new_index=new_index)
    yield from _compare_nested(old, new, old_node, new_node, site=site, old_index=old_index, new_index=new_index)
    yield from compare_class_attrs(old, new, site=site, old_index=old_index, new_index=new_index)
    yield from compare_instance_attrs(old, new, site=site, old_index=old_index, new_index=new_index)
    if [_base_key(b) for b in old_written] != [_base_key(b) for b in new_written]:
        yield from compare_inherited(old, new, site=site, old_index=old_index, new_index=new_index)


def _fields(node: ClassFacts) -> dict[str, FieldFacts]:
    return {f.name: f for f in node.fields if not f.classvar}


def _init_fields(node: ClassFacts) -> list[FieldFacts]:
    """The class's own fields that the generated `__init__` takes as parameters, in order."""
    if node.kind == "typeddict":
        return []  # keyword-only by construction
    return [f for f in node.fields if not f.classvar and f.init]


def _field_bases(index: PackageIndex, cls: Symbol) -> list[str]:
    """The names of the dataclass-like bases whose fields the generated `__init__` takes."""
    return [o.dotted.rsplit(".", 1)[-1] for o in index.mro_of(cls)[1:] if index.is_dataclass_like(o)]


def _chain_init_fields(index: PackageIndex, cls: Symbol) -> list[FieldFacts]:
    """The generated `__init__`'s parameters in order: the fields of every dataclass-like class
    of the MRO, bases first, as `dataclasses` collects them (a field a subclass redefines keeps
    its base's place). A base that leaves the MRO takes its fields' places with it, which moves
    the subclass's own fields for positional callers."""
    ordered: dict[str, FieldFacts] = {}
    for owner in reversed(index.mro_of(cls)):
        if owner.dotted != cls.dotted and not index.is_dataclass_like(owner):
            continue
        for f in _init_fields(owner.as_class):
            ordered[f.name] = f
    return list(ordered.values())


def _constructor_shift(old_init: list[FieldFacts], new_init: list[FieldFacts]) -> str | None:
    """`positional_shift` of the generated `__init__`s (a kw_only field is keyword-only)."""
    old_pos = [f.name for f in old_init if not f.kw_only]
    new_pos = [f.name for f in new_init if not f.kw_only]
    return positional_shift(old_pos, new_pos, {f.name for f in old_init}, new_init)


def _compare_fields(old_node: ClassFacts, new_node: ClassFacts, *, site: Site, shift: str | None) -> Iterator[Change]:
    old_fields, new_fields = _fields(old_node), _fields(new_node)
    for name, field in old_fields.items():
        other = new_fields.get(name)
        if other is None:
            yield site.change(
                ChangeKind.FIELD_REMOVED, name,
                old=site.old(field.line), new=site.new(new_node.line),
            )
            continue
        if not field.kw_only and other.kw_only and field.init and other.init and old_node.kind != "typeddict":
            init = site.child("__init__")  # `Spec(16, 8, ...)` now raises: the field is keyword-only
            yield init.change(
                ChangeKind.PARAM_KIND_CHANGED, f"{name}: positional-or-keyword -> keyword-only (field)",
                old=init.old(field.line), new=init.new(other.line),
            )
        if field.has_default and not other.has_default:
            yield site.change(
                ChangeKind.FIELD_DEFAULT_CHANGED,
                f"{name}: {field.default} -> (no default: now required)",
                old=site.old(field.line), new=site.new(other.line),
            )
        elif field.has_default and field_default(field.default) != field_default(other.default):
            yield site.change(
                ChangeKind.FIELD_DEFAULT_CHANGED,
                f"{name}: {field.default} -> {other.default}",
                old=site.old(field.line), new=site.new(other.line),
            )
    if shift is not None:
        init = site.child("__init__")
        yield init.change(
            ChangeKind.PARAM_MOVED, f"constructor fields: {shift}",
            old=init.old(old_node.line), new=init.new(new_node.line),
        )
    for name, field in new_fields.items():
        if name in old_fields or field.has_default:
            continue
        what = "InitVar " if field.initvar else ""
        kw = ", keyword-only" if field.kw_only else ""
        ann = field.annotation
        yield site.change(
            ChangeKind.FIELD_REQUIRED_ADDED,
            f"{what}{name}" + (f": {ann}" if ann else "") + kw,
            old=site.old(old_node.line), new=site.new(field.line),
        )


def _compare_methods(old: Symbol, new: Symbol, old_node: ClassFacts, new_node: ClassFacts, *, site: Site,
                     new_index: PackageIndex) -> Iterator[Change]:
    new_methods, old_methods = new_node.methods, old_node.methods
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
                    old=child.old(old_fn.line), new=child.new(new_node.line),
                )
                continue
            if hit.kind != "method":
                continue
            new_fn = hit.as_function
            child = site.child(name, new_path=hit.path)
            siblings = hit.owner.as_class.methods if hit.owner is not None else Table({}, FunctionFacts)
        yield from compare_function(
            old_fn, new_fn, site=child, method=name, old_siblings=old_methods, new_siblings=siblings
        )


def _compare_nested(
    old: Symbol, new: Symbol, old_node: ClassFacts, new_node: ClassFacts, *, site: Site, old_index: PackageIndex,
    new_index: PackageIndex,
) -> Iterator[Change]:
    new_nested = new_node.nested
    for name, node in old_node.nested.items():
        child = site.child(name)
        other = new_nested.get(name)
        if other is None:
            if new_index.class_member(new, name) is None:
                yield child.change(
                    ChangeKind.SYMBOL_REMOVED,
                    "nested class is gone",
                    old=child.old(node.line), new=child.new(new_node.line),
                )
            continue
        yield from compare_class(  # a Symbol holds its record (`raw`), as the resolver's do
            Symbol(f"{old.dotted}.{name}", "class", old.module, old.path, node.line, node.raw),
            Symbol(f"{new.dotted}.{name}", "class", new.module, new.path, other.line, other.raw),
            site=child, old_index=old_index, new_index=new_index,
        )
