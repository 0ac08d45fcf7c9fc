"""Attributes a class's users read: class attributes and ClassVars, and what methods set on self.

A consumer reads `self.input_batch` in its subclass, `runner.kv_caches` on an instance, or a
mixin's `supports_x` ClassVar on a model class. Each attribute is reported once, at the class
that defined it in the old snapshot (with how many classes inherit it), unless a subclass
lost it by dropping that base. An attribute counts as still there when any class in the new
MRO sets it on self or declares it (field, class attribute, method, property, nested class);
a class with `__getattr__` in its new MRO is skipped, its attributes are dynamic.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.diff.annotations import normalise
from drift.analysis.diff.kinds import ChangeKind
from drift.analysis.diff.model import Change, Evidence
from drift.analysis.diff.site import Site
from drift.model.facts import ClassFacts, InstanceAttr
from drift.model.index import PackageIndex, Symbol

DYNAMIC = ("__getattr__", "__getattribute__")
FIELD_KINDS = frozenset({"dataclass", "pydantic", "namedtuple", "typeddict"})
_BUILTIN_CALLS = {"list": "lit:list", "dict": "lit:dict", "set": "lit:set", "tuple": "lit:tuple",
                  "str": "lit:str", "int": "lit:int", "float": "lit:float", "bool": "lit:bool"}


def _dynamic(index: PackageIndex, cls: Symbol) -> bool:
    return any(index.class_member(cls, name) is not None for name in DYNAMIC)


def _class_level(node: ClassFacts) -> dict[str, tuple[str, int]]:
    """name -> (what, line) of what the class body itself binds at class level."""
    out: dict[str, tuple[str, int]] = {}
    for name, attr in node.attrs.items():
        if not (name.startswith("__") and name.endswith("__")):
            out[name] = ("class attribute", attr.line)
    plain = node.kind not in FIELD_KINDS
    for f in node.fields:
        if f.classvar:
            out[f.name] = ("ClassVar", f.line)
        elif plain and f.has_default:  # `x: int = 0` in a plain class is a class attribute
            out.setdefault(f.name, ("class attribute", f.line))
    return out


def _inherited(index: PackageIndex, cls: Symbol) -> str:
    count = index.subclass_count(cls.dotted)
    return f" (inherited by {count} subclass{'es' if count != 1 else ''})" if count else ""


def compare_class_attrs(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    """Class attributes and ClassVars the old class defined that the new one no longer has."""
    declared = _class_level(old.as_class)
    if not declared or _dynamic(new_index, new):
        return
    for name, (what, line) in sorted(declared.items()):
        if new_index.provides(new, name):
            continue
        child = site.child(name)
        yield child.change(
            ChangeKind.CLASS_ATTRIBUTE_REMOVED,
            f"{what} {name} is gone{_inherited(old_index, old)}",
            old=child.old(line, f"{what} {name}"), new=child.new(new.as_class.line),
        )


def compare_inherited(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    """Methods, nested classes and class attributes the old class had only through a base that
    is no longer in its MRO (`LinearBase(CustomOp)` -> `LinearBase(PluggableLayer)` drops
    `forward_cuda`, `enabled`, ... for every linear layer). Asked only of a class whose own
    bases changed, and reported there once, with how many classes inherit it: a subclass
    that lost the member through that class is the same change. What the class sets on self
    is compare_instance_attrs' business; a member another class of the new MRO still
    provides is not lost. A base counts as kept when the new MRO holds a class of its name
    (a base that moved modules is still that base)."""
    old_mro = old_index.mro_of(old)
    if len(old_mro) < 2 or _dynamic(new_index, new):
        return
    kept = {s.dotted.rsplit(".", 1)[-1] for s in new_index.mro_of(new)[1:]}  # v1 `WorkerBase(WorkerBase)`
    own = old.as_class
    seen = set(own.methods) | set(own.nested) | set(_class_level(own)) | {f.name for f in own.fields}
    for base in old_mro[1:]:
        node = base.as_class
        members = [(n, "method", m.line) for n, m in node.methods.items()]
        members += [(n, "nested class", c.line) for n, c in node.nested.items()]
        members += [(n, what, line) for n, (what, line) in _class_level(node).items()]
        if old_index.is_dataclass_like(base):
            members += [(f.name, "field", f.line) for f in node.fields if not f.classvar]
        lost = base.dotted.rsplit(".", 1)[-1] not in kept
        for name, what, line in members:
            if name in seen or (name.startswith("__") and name.endswith("__")):
                continue
            seen.add(name)  # the nearest class of the old MRO is the one that provided it
            if not lost or new_index.provides(new, name):
                continue
            child = site.child(name)
            why = f"no longer inherited: it came from {base.dotted}, no longer a base{_inherited(old_index, old)}"
            evidence = dict(old=(Evidence(base.path, line, f"{what} {name}"),), new=site.new(new.as_class.line))
            if what == "field":  # reported at the class, as a removed field is (detail: the name first)
                yield site.change(ChangeKind.FIELD_REMOVED, f"{name}: {why}", **evidence)
                continue
            kind = ChangeKind.SYMBOL_REMOVED if what in ("method", "nested class") else \
                ChangeKind.CLASS_ATTRIBUTE_REMOVED
            yield child.change(kind, f"{what} {name} is {why}", **evidence)


def compare_instance_attrs(
    old: Symbol, new: Symbol, *, site: Site, old_index: PackageIndex, new_index: PackageIndex
) -> Iterator[Change]:
    """What the old class (or its bases) set on self that no class in the new MRO provides,
    and attributes it sets whose kind of value changed."""
    old_attrs = old_index.instance_attrs(old)
    if not old_attrs:
        return
    dynamic = None
    new_mro: set[str] | None = None
    new_attrs = None
    for name, (owner, info) in sorted(old_attrs.items()):
        own = owner.dotted == old.dotted
        if new_index.provides(new, name):
            if own:
                if new_attrs is None:
                    new_attrs = new_index.instance_attrs(new)
                hit = new_attrs.get(name)
                if hit is not None:
                    change = _type_change(site, name, owner, info, hit, old_index, new_index)
                    if change is not None:
                        yield change
            continue
        if not own:
            if new_mro is None:
                new_mro = {s.dotted for s in new_index.mro_of(new)}
            if owner.dotted in new_mro:
                continue  # the base still in the MRO lost it: reported there, once
        if dynamic is None:
            dynamic = _dynamic(new_index, new)
        if dynamic:
            return
        child = site.child(name)
        where = f"set in {info.method}" if own else f"set by {owner.dotted}.{info.method}, no longer a base"
        old_ev = (Evidence(owner.path, info.line, f"sets self.{name}"),)
        yield child.change(
            ChangeKind.ATTRIBUTE_REMOVED,
            f"self.{name} ({where}) is no longer set or declared by any class in the MRO"
            + (_inherited(old_index, old) if own else ""),
            old=old_ev, new=child.new(new.as_class.line),
        )


def _type_key(kind: str | None, index: PackageIndex, module: str) -> str | None:
    """A comparable form of a probe value kind, or None when it says nothing about the type
    (a parameter, another attribute, None)."""
    if not kind:
        return None
    prefix, _, rest = kind.partition(":")
    if prefix == "call":
        head = rest.split("(", 1)[0]
        if head in _BUILTIN_CALLS:
            return _BUILTIN_CALLS[head]
        return "call:" + index.dotted_in(module, head).rsplit(".", 1)[-1]
    if prefix == "lit":  # `lit:list[Scheduler]` is a list like `lit:list`: the element is no type change here
        return None if rest == "None" else kind.split("[", 1)[0]
    if prefix == "ann":
        return "ann:" + (normalise(rest) or rest)
    return None


def _type_change(
    site: Site, name: str, owner: Symbol, info: InstanceAttr, hit: tuple[Symbol, InstanceAttr],
    old_index: PackageIndex, new_index: PackageIndex,
) -> Change | None:
    new_owner, new_info = hit
    if info.value == new_info.value or not info.value or not new_info.value:
        return None
    before = _type_key(info.value, old_index, owner.module)
    after = _type_key(new_info.value, new_index, new_owner.module)
    if before is None or after is None or before == after:
        return None
    if before.startswith("ann:") != after.startswith("ann:"):
        return None  # an annotation and a constructor name the type differently; not comparable
    if not (_names_a_type(before) or _names_a_type(after)):
        return None  # two factory functions (torch.arange -> torch.zeros): the type is unknown
    child = site.child(name, new_path=new_owner.path)
    return child.change(
        ChangeKind.ATTRIBUTE_TYPE_CHANGED,
        f"self.{name}: {info.value} -> {new_info.value}",
        old=(Evidence(owner.path, info.line, f"sets self.{name}"),),
        new=(Evidence(new_owner.path, new_info.line, f"sets self.{name}"),),
    )


def _names_a_type(key: str) -> bool:
    """A literal, an annotation, or a call of a class (CamelCase by convention)."""
    if not key.startswith("call:"):
        return True
    return key[5:6].isupper()
