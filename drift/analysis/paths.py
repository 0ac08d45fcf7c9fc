"""Evaluate a consumer's symbolic paths (probes/reach.py) in one install's facts.

`self.input_batch.req_ids` inside a subclass of `GPUModelRunner`, `get_forward_context().x`,
`_orig(self, ...)` after `_orig = Target.method`: the probe records each as a root and steps;
here each step is resolved with the one resolver (drift.model.index.PackageIndex) into a `Value`
(a module, a class, an instance of a class, a function, a bound method, ...). Evaluating the same
path in the baseline and in the target says where the consumer's code stops working.
"""

from __future__ import annotations

import builtins
import collections
import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Iterator

from drift.analysis.model_protocols import protocol_member, returns_torch_module
from drift.analysis.struct_base import is_struct_base, struct_defines
from drift.analysis.torch_module import is_module_base, module_defines, registered_somewhere
from drift.consumer.infer import Solution
from drift.consumer.solved import solved_model
from drift.model.facts import FunctionFacts, InstanceAttr, ModuleFacts, NameFacts
from drift.model.index import PackageIndex, Symbol
from drift.analysis.override_slots import DECLARED, SIBLING, slot_class, slot_container

# Bases that add no attributes a consumer would read; a class whose other bases all resolve is
# then fully known, so a missing attribute really is missing.
_INERT_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol",
                          "ABCMeta", "enum.Enum", "Enum", "NamedTuple", "typing.NamedTuple"})
# Bases whose only additions are a builtin type's own members (an IntEnum member is an int): a class
# built on them is still fully known, except for the names that builtin (or the enum machinery) has.
_ENUM_MACHINERY = frozenset({"name", "value", "_name_", "_value_", "_missing_", "_generate_next_value_",
                             "__members__", "_member_map_", "_member_names_", "_value2member_map_"})
_BUILTIN_BACKED = {"IntEnum": int, "IntFlag": int, "StrEnum": str, "Flag": None, "ReprEnum": None,
                   "int": int, "str": str}
# pydantic's BaseModel: an instance answers its fields, which the facts list, and the model API
# below (v1 and v2 names); anything else raises AttributeError (an `extra="allow"` model answers an
# extra key only when the builder passed one, and vLLM builds its models with its own fields).
_PYDANTIC_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.v1.BaseModel"})
_PYDANTIC_API = frozenset({"dict", "json", "copy", "parse_obj", "parse_raw", "parse_file", "from_orm", "construct",
                           "schema", "schema_json", "validate", "update_forward_refs", "fields", "Config"})


def _builtin_backed(text: str) -> bool:
    """`IntEnum`, `enum.StrEnum`, `str` (as in `class Mode(str, Enum)`): a base written as one of
    them adds the builtin's members and no others."""
    if text in ("int", "str"):
        return True
    head, _, last = text.rpartition(".")
    return last in _BUILTIN_BACKED and last not in ("int", "str") and head in ("", "enum")


def _builtin_may_hold(bases: list[str], name: str) -> bool:
    """Whether a class on these builtin-backed bases may answer `name` without defining it: a
    member of the builtin (`bit_length` on an IntEnum) or of the enum machinery (`value`)."""
    if not bases:
        return False
    if "BaseModel" in bases and (name in _PYDANTIC_API or name.startswith(("model_", "_"))):
        return True
    if name in _ENUM_MACHINERY or name.startswith("__"):
        return True
    return any(_BUILTIN_BACKED.get(b) is not None and hasattr(_BUILTIN_BACKED[b], name) for b in bases)


_CONTAINERS = {"deque": collections.deque, "list": list, "dict": dict, "set": set, "tuple": tuple,
               "OrderedDict": collections.OrderedDict, "defaultdict": collections.defaultdict}


def _abstract(cls: Symbol) -> bool:
    node = cls.as_class
    return any(b.split("[", 1)[0].strip().rsplit(".", 1)[-1] == "ABC" for b in node.bases) \
        or (node.metaclass or "").rsplit(".", 1)[-1] == "ABCMeta" \
        or any("abstractmethod" in d for m in node.methods.values() for d in m.decorators)


def _subclass_may_hold(index: PackageIndex, cls: Symbol, name: str) -> bool:
    """`PathEvaluator.subclass_may_hold`, uncached."""
    if not _abstract(cls) or cls.module not in index.modules:
        return False
    for other in ModuleFacts(index.modules[cls.module]).classes:
        sub = index.lookup(f"{cls.module}.{other}")
        if sub is None or sub.kind != "class" or sub.dotted == cls.dotted:
            continue
        mro = index.mro(sub)
        if not any(o.dotted == cls.dotted for o in mro):
            continue
        for o in mro:
            if name in o.as_class.methods or name in o.as_class.attrs:
                return True
            for base in o.as_class.bases:
                kind = _CONTAINERS.get(base.split("[", 1)[0].strip().rsplit(".", 1)[-1])
                if kind is not None and hasattr(kind, name):
                    return True
    return False


def _class_named(dotted: str) -> bool:
    """A function named as a class is (`def FusedMoE(...) -> MoERunner`): a factory kept where a
    class was, so a value annotated with that name is typed from what the factory returns."""
    name = dotted.rsplit(".", 1)[-1]
    return name[:1].isupper() and not name.isupper()


def is_soft(step: str) -> bool:
    """A soft step, `.?name` (probes/reach.py): read by `getattr(x, "name", default)`, so where the
    name is gone the value is the consumer's default, not an AttributeError; later reads through it
    are never judged as missing (the soft read itself is DRIFT065's, at its own line)."""
    return step[:2] == ".?"


@dataclass(frozen=True)
class Value:
    """What a path step evaluates to. `kind` is one of:
    module, class, instance, function, method (bound), unbound (a method read off its class),
    field, literal, external (e.g. the result of torch.zeros), consumer (the consumer's own),
    unknown, missing (the name is not there: `owner` says where it was looked up)."""

    kind: str
    sym: Symbol | None = None  # module/class/function/method symbol
    cls: Symbol | None = None  # instance: its class; missing: the class looked in
    owner: Symbol | None = None  # where a member was found (the defining class)
    name: str | None = None  # missing: the attribute; external/literal: a description
    via: str | None = None  # how the member is defined: method, property, field, instance, class
    evidence: tuple[str, int] | None = None  # (path, line) where the member is defined
    ckind: str | None = None  # consumer: "class" | "instance" | "function" | "method"
    cref: str | None = field(default=None)  # consumer: the qualified name

    @property
    def known(self) -> bool:
        return self.kind not in ("unknown", "missing")

    def describe(self) -> str:
        if self.kind == "instance" and self.cls is not None:
            return self.cls.dotted.rsplit(".", 1)[-1]
        if self.kind in ("class", "module", "function", "method", "unbound") and self.sym is not None:
            return self.sym.dotted
        return self.name or self.kind


UNKNOWN = Value("unknown")

# Keys whose value names a consumer class the target mixes into one of its own (vLLM appends the
# `worker_extension_cls` class to its worker's bases), with where that class lives by release.
MIXED_INTO = {"worker_extension_cls": ("vllm.v1.worker.gpu_worker.Worker", "vllm.worker.worker.Worker")}
# Keys whose value names a consumer class the target builds instead of its own default class
# (`worker_cls`: a platform's worker replaces vLLM's GPU worker), with that class by release.
BUILT_INSTEAD_OF = {"worker_cls": ("vllm.v1.worker.gpu_worker.Worker", "vllm.worker.worker.Worker")}


def strip_annotation(text: str | None) -> str | None:
    """The class an annotation names: `Optional[X]`, `X | None`, `"X"` -> `X`; containers -> None."""
    if not text:
        return None
    t = text.strip().strip("'\"")
    for _ in range(3):
        if t.startswith(("Optional[", "typing.Optional[")) and t.endswith("]"):
            t = t[t.index("[") + 1:-1].strip()
        parts = [p.strip() for p in t.split("|")]
        if len(parts) > 1:
            rest = [p for p in parts if p not in ("None", "NoneType")]
            if len(rest) != 1:
                return None
            t = rest[0]
        t = t.strip("'\"")
    if "[" in t or "(" in t or " " in t or not t:
        return None
    return t


_SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "deque", "Deque"})
_TUPLES = frozenset({"tuple", "Tuple"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"})
# Containers only iterated (`for x in c`), never indexed: what iterating them yields is their first argument
_ITERABLES = frozenset({"Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator",
                        "Collection", "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"})


# Builtin types an annotation may name: a value of one has that type's members and no others.
_SCALARS = frozenset({"str", "int", "float", "bytes", "bool", "complex"})
# What a literal the target stores (`self.x = [...]`, probes/behaviour.py "lit:<type>") may be.
_LITERAL_BUILTINS = _SCALARS | {"list", "dict", "tuple", "set"}
# The concrete builtin type a container annotation's head names (an abstract `Sequence` or
# `Mapping` may be any of several, so it names none).
_CONCRETE = {"list": list, "List": list, "tuple": tuple, "Tuple": tuple, "dict": dict, "Dict": dict,
             "set": set, "Set": set, "frozenset": frozenset, "FrozenSet": frozenset}
# Heads of annotations naming Python's own types (a union member that is one may be what the value is).
_BUILTIN_HEADS = _SCALARS | frozenset(_CONCRETE) | {"Any", "object", "Callable", "type", "Type"}


def builtin_type(v: Value) -> type | None:
    """The builtin type a value is known to be, where an annotation said so: `str` for a field
    annotated `str` (or a key iterated out of a `dict[str, X]`), `tuple` for a
    `tuple[list[int], ...]`. None for anything else, an abstract container included."""
    if v.kind == "external" and v.sym is None and v.name in _SCALARS:
        return getattr(builtins, v.name)
    if v.kind == "literal" and v.name in _LITERAL_BUILTINS:
        return getattr(builtins, v.name)  # `self.x = [...]` / a comprehension in the class's `__init__`
    if v.kind == "container" and v.name:
        return _CONCRETE.get(split_generic(v.name)[0])
    return None


def split_generic(text: str) -> tuple[str, list[str]]:
    """`typing.List[tuple[int, str]]` -> ("List", ["tuple[int, str]"]); no subscript -> (text, [])."""
    t = text.strip()
    if "[" not in t or not t.endswith("]"):
        return t.rsplit(".", 1)[-1], []
    head, body = t[:t.index("[")].strip(), t[t.index("[") + 1:-1]
    args, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += ch in "[(" and 1 or (-1 if ch in "])" else 0)
        cur += ch
    if cur.strip():
        args.append(cur.strip())
    return head.rsplit(".", 1)[-1], args


def container_annotation(text: str | None) -> str | None:
    """The container an annotation names, `Optional[...]` / `| None` aside: `list[KVCacheBlock]`,
    `tuple[list[KVCacheBlock], ...]`, `dict[str, Req]`; None for anything else."""
    if not text:
        return None
    t = text.strip().strip("'\"")
    for _ in range(3):
        head, args = split_generic(t)
        if head == "Optional" and len(args) == 1:
            t = args[0]
            continue
        parts = [p.strip() for p in _top_level_split(t, "|")]
        if len(parts) > 1:
            rest = [p for p in parts if p not in ("None", "NoneType")]
            if len(rest) != 1:
                return None
            t = rest[0].strip("'\"")
            continue
        break
    head, args = split_generic(t)
    return t if args and head in (_SEQUENCES | _TUPLES | _MAPPINGS | _ITERABLES) else None


def _top_level_split(text: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch in "[(" and 1 or (-1 if ch in "])" else 0)
        cur += ch
    out.append(cur)
    return out


class ConsumerModel:
    """The consumer's own classes, functions and helper calls, across all its modules."""

    def __init__(self, usage: list[dict[str, Any]], prefixes: tuple[str, ...] = ("vllm",)):
        self.usage, self.prefixes = usage, prefixes
        self.classes: dict[str, dict[str, Any]] = {}
        self.patchers: dict[str, list[int]] = {}
        self.helper_calls: dict[str, list[dict[str, Any]]] = {}
        self.patched_fns: dict[str, list[Any]] = {}  # consumer function -> owner path it is copied onto
        self.modules: dict[str, dict[str, Any]] = {}
        self.returns: dict[str, list[str]] = {}  # consumer function/method -> path of what it returns
        # an override's parameter (`over:` root) -> the path the consumer's own annotation gives
        self.over_annotations: dict[str, list[str]] = {}
        for mod in usage:
            name = mod.get("module") or ""
            self.modules[name] = mod
            for qual, path in (mod.get("returns") or {}).items():
                self.returns[f"{name}.{qual}"] = path
            self.over_annotations.update(mod.get("over_annotations") or {})
            for qual, cls in (mod.get("classes") or {}).items():
                self.classes[f"{name}.{qual}"] = dict(cls, module=name, qual=qual, path=mod.get("path"))
            for fn, idx in (mod.get("patchers") or {}).items():
                self.patchers[f"{name}.{fn}"] = idx
            for p in mod.get("patches") or []:
                value = p.get("value") or {}
                if value.get("function"):
                    self.patched_fns.setdefault(f"{name}.{value['function']}", p["path"])
        self._helper_mods: dict[int, dict[str, Any]] = {}  # id(call) -> the module it is in
        for mod in usage:
            for c in mod.get("calls") or []:
                path = (c.get("callee") or {}).get("path") or c.get("path")
                if path and len(path) == 1 and path[0].startswith("sym:") and c.get("args") is not None:
                    self.helper_calls.setdefault(path[0][4:], []).append(c)
                    self._helper_mods[id(c)] = mod
        self.helper_patches: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (module, patch record)
        for fn, idx in self.patchers.items():  # hijack(Target, "name", fn): fn is patched onto Target
            for c in self.helper_calls.get(fn, []):
                args = c.get("args") or []
                if max(idx) >= len(args):
                    continue
                owner, name, value = args[idx[0]], args[idx[1]], args[idx[2]]
                if not (owner and owner.get("path") and name and name.get("str")):
                    continue
                ref = value["path"][0][4:] if value and value.get("path") and len(value["path"]) == 1 else None
                if ref:
                    self.patched_fns.setdefault(ref, owner["path"])
                sig = self.signature(ref) if ref else None
                self.helper_patches.append((self._helper_mods[id(c)], {
                    "line": c["line"], "col": c.get("col"), "path": owner["path"], "name": name["str"],
                    "function": c.get("function"), "how": f"via {fn.rsplit('.', 1)[-1]}()",
                    "value": {"function": ref.rsplit(".", 1)[-1], "signature": sig, "line": sig.get("line")}
                    if sig else None}))

    @cached_property
    def inferred(self) -> Solution:
        """What the consumer's fields and parameters may hold, solved over every module's IR
        (drift/consumer/infer.py): the fallback where no pattern typed a value."""
        return solved_model(self.usage, self.prefixes)

    def signature(self, dotted: str) -> dict[str, Any] | None:
        """A consumer function's recorded signature, by its dotted name (nested helpers too)."""
        for module, mod in self.modules.items():
            if dotted.startswith(module + "."):
                found = (mod.get("functions") or {}).get(dotted[len(module) + 1:])
                if found is not None:
                    return found
        return None

    def arg_path(self, ref: str) -> list[str] | None:
        """The path a consumer function's parameter receives: from the patch that copies the
        function onto a target class (its first parameter), or what the solved model says every
        call site hands it (drift/consumer/infer.py), when that is one value."""
        parts = ref.split(":")
        func, i = parts[0], int(parts[1])
        if i == 0 and func in self.patched_fns:
            return list(self.patched_fns[func]) + ["()"]
        inferred = self.inferred.params.get(_param_key(parts))
        return list(inferred[0]) if inferred and len(inferred) == 1 else None

    def arg_paths(self, ref: str) -> list[list[str]]:
        """Every path the solved model says a consumer function's parameter may receive (one per
        call site or patch that hands it a different one)."""
        return [list(p) for p in self.inferred.params.get(_param_key(ref.split(":"))) or ()]


def _param_key(parts: list[str]) -> str:
    """The solved model's key of a parameter the probe names `fn:i:name`: `fn:i` by position, or
    `fn:-1:name` for a keyword-only one (the probe gives it no position)."""
    i = int(parts[1])
    return f"{parts[0]}:{i}" if i >= 0 or len(parts) < 3 else f"{parts[0]}:-1:{parts[2]}"


class PathEvaluator:
    """Evaluates paths in one model (target or baseline); memoised per path prefix."""

    def __init__(self, index: PackageIndex, consumer: ConsumerModel, *, target_prefixes: tuple[str, ...],
                 relocate: Callable[[str], Symbol | None] | None = None):
        self.index = index
        self.relocate = relocate  # a name gone from where the consumer imports it -> where it lives now
        self.consumer = consumer
        self.prefixes = target_prefixes
        self._memo: dict[tuple[str, ...], Value] = {}
        self.mixed_roots: set[str] = set()  # `arg:` roots that hold the consumer's own object on some paths
        self._steps: dict[tuple[str, ...], list[Value]] = {}
        self._steps_of: dict[int, tuple[Any, list[Value]]] = {}  # id(path) -> (path, steps)
        self._bases: dict[str, list[Symbol]] = {}
        self._depth = 0
        self._cutoffs = 0  # how many times the depth guard gave up (a result that did is not memoised)
        self._members: dict[tuple[str, str, bool], tuple[Any, Value]] = {}
        self._annotations: dict[tuple[str | None, str], Value] = {}
        self._sub_holds: dict[tuple[str, str], bool] = {}

    def is_target_name(self, dotted: str) -> bool:
        return any(dotted == p or dotted.startswith(p + ".") for p in self.prefixes)

    # -- paths -------------------------------------------------------------------------------------
    def steps(self, path: list[str]) -> list[Value]:
        """The value after each step: steps(p)[k] is the value of p[:k+1] (memoised: several rules
        walk the same paths). Also memoised by the path object itself, held here so its id stays
        its own: four rules ask for each of the consumer's ~11k paths (vllm_ascend), and hashing
        an id costs less than building and hashing the tuple."""
        by_id = self._steps_of.get(id(path))
        if by_id is not None and by_id[0] is path:
            return by_id[1]
        key = tuple(path)
        hit = self._steps.get(key)
        if hit is None:
            memo, value = self._memo, self.value
            hit = self._steps[key] = [memo.get(key[:k + 1]) or value(key[:k + 1]) for k in range(len(key))]
        self._steps_of[id(path)] = (path, hit)
        return hit

    def value(self, path: tuple[str, ...]) -> Value:
        hit = self._memo.get(path)
        if hit is not None:
            return hit
        if self._depth > 24:
            return UNKNOWN
        self._depth += 1
        try:
            self._memo[path] = UNKNOWN  # cycle guard
            out = self._root(path[0]) if len(path) == 1 else self._step(self.value(path[:-1]), path[-1])
        finally:
            self._depth -= 1
        self._memo[path] = out
        return out

    def _root(self, root: str) -> Value:
        kind, _, ref = root.partition(":")
        if kind == "sym":
            if self.is_target_name(ref):
                sym = self.index.lookup(ref)
                if sym is None and self.relocate is not None:
                    sym = self.relocate(ref)  # the import's own finding says it moved; uses follow it
                if sym is None:
                    served = self._stepwise(ref)
                    if served is not None:
                        return served
                return self._symbol_value(sym, ref)
            if ref in self.consumer.classes:
                return Value("consumer", ckind="class", cref=ref)
            aliased = self._consumer_alias(ref)
            if aliased is not None:
                return aliased
            held = getattr(self.consumer.inferred, "module_objects", {}).get(ref) or []
            if len(held) == 1 and held[0] in self.consumer.classes:  # a module-level object of one own class
                return Value("consumer", ckind="instance", cref=held[0])
            return Value("consumer", ckind="function", cref=ref) if ref.split(".")[0] in self._consumer_roots() \
                else UNKNOWN
        if kind == "self":
            return Value("consumer", ckind="instance", cref=ref) if ref in self.consumer.classes else UNKNOWN
        if kind == "super":
            return Value("consumer", ckind="super", cref=ref) if ref in self.consumer.classes else UNKNOWN
        if kind == "arg":
            path = self.consumer.arg_path(ref)
            v = self.value(tuple(path)) if path else self._one_of(self.consumer.arg_paths(ref), root)
            return UNKNOWN if v.kind == "missing" else v  # a failing argument is reported where it is passed
        if kind == "named":
            return self._named(ref)
        if kind == "over":
            return self._override_value(ref)
        return UNKNOWN

    def _stepwise(self, ref: str) -> Value | None:
        """A dotted target name no lookup finds, read as Python reads it: its longest prefix a
        lookup finds, then attribute by attribute (`vllm.AsyncLLMEngine.from_engine_args`, where
        the package serves `AsyncLLMEngine` from its `__getattr__`: the solver writes what a
        factory returns as one dotted name). None when that finds nothing either."""
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            if self.index.lookup(".".join(parts[:cut])) is None:
                continue
            v = self.value(tuple(["sym:" + ".".join(parts[:cut])] + ["." + p for p in parts[cut:]]))
            return v if v.known else None
        return None

    def _consumer_alias(self, ref: str) -> Value | None:
        """A consumer module-level name the solved model sees bound only to target names
        (`FusedMoEFactory = vllm_mod.FusedMoEFactory`, re-exported to the consumer's other
        modules): the one of them this side defines, as the consumer's own `hasattr` fallback
        picks it. None when the name binds nothing of the target's, or when this side has more
        than one of them (which one the consumer binds is its own decision)."""
        paths = self.consumer.inferred.names.get(ref)
        if not paths or self._depth > 20:
            return None
        self._depth += 1
        try:
            values = [self.value(tuple(p)) for p in paths]
        finally:
            self._depth -= 1
        found = [v for v in values if v.known and v.kind != "missing"]
        if len(found) != 1 and not (found and all(v.sym is not None and v.sym == found[0].sym for v in found)):
            return None
        return found[0]

    def mixed(self, path: tuple[str, ...]) -> bool:
        """Whether `path` starts at a parameter that holds the target's object on some paths and
        the consumer's own on others (`_one_of`): a use written for the consumer's object only
        (a call the baseline's target callable never accepted either) is not the target's."""
        if not path:
            return False
        self.value(path[:1])
        return path[0] in self.mixed_roots

    def _one_of(self, paths: list[list[str]], root: str | None = None) -> Value:
        """The value several candidate paths all evaluate to, when they are one object under two
        names (a function patched onto `a.InputBatch` and `b.InputBatch`, where `b` imports it
        from `a`): the same class or instance of the same class; else unknown. A candidate that
        is an instance of a target class this side lacks is set aside (`absent_class`), and so is
        the consumer's own object beside the target's: where the target's object is handed in,
        its uses meet the target, whatever the consumer's own class accepts on the other paths."""
        if len(paths) < 2 or self._depth > 20:
            return UNKNOWN
        self._depth += 1
        try:
            values = [self.value(tuple(p)) for p in paths if not self.absent_class(p)]
        finally:
            self._depth -= 1
        if not values:
            return UNKNOWN
        theirs = [v for v in values if v.kind != "consumer"]
        if theirs and len(theirs) < len(values):  # the consumer's own object on some paths, the
            values = theirs  # target's on the others (`engine` from either import): those paths meet the target
            if root is not None:
                self.mixed_roots.add(root)
        first = values[0]
        if first.kind not in ("instance", "class"):
            return UNKNOWN
        ident = (first.kind, (first.cls or first.sym).dotted if (first.cls or first.sym) else None)
        if ident[1] is None or any((v.kind, (v.cls or v.sym).dotted if (v.cls or v.sym) else None) != ident
                                   for v in values[1:]):
            return UNKNOWN
        return first

    def absent_class(self, path: list[str] | tuple[str, ...]) -> bool:
        """Whether a candidate value is an instance of a target class this side does not have at
        all (`engine: AsyncLLMEngine | OldClient` where `OldClient` is gone, or never was), or is
        read off one (`self.cache_config` of a consumer worker whose base module is gone): no
        object of it can reach the parameter here, so the other candidates say what it holds."""
        return len(path) >= 2 and path[1] == "()" and path[0].startswith("sym:") \
            and self.is_target_name(path[0][4:]) and self.value((path[0],)).kind == "missing"

    def _override_value(self, ref: str) -> Value:
        """An override's parameter: the class this side's declaration of the overridden method
        names for the slot; else the consumer's own annotation; else the class the declaring
        class's other methods name for that parameter (drift/analysis/override_slots.py)."""
        typed = self.override_slot(ref)
        if typed is not None and typed[1] == DECLARED:
            return Value("instance", cls=typed[0])
        own = self.consumer.over_annotations.get(ref)
        if own:
            v = self.value(tuple(own))
            return UNKNOWN if v.kind == "missing" else v  # a gone annotation is the import's finding
        if typed is not None:
            return Value("instance", cls=typed[0])
        return slot_container(self, ref) or UNKNOWN  # `kv_caches: dict[str, Tensor]` declared here

    def slot_inferred(self, ref: str) -> bool:
        """This side types the override's parameter `ref` only from the declaring class's other
        methods (SIBLING): a likelihood, not a declaration."""
        typed = self.override_slot(ref)
        return typed is not None and typed[1] == SIBLING and not self.consumer.over_annotations.get(ref)

    def override_slot(self, ref: str) -> tuple[Symbol, str] | None:
        """What this side hands a consumer override's parameter (`over:` roots, probes/reach.py)
        and how that is known (drift/analysis/override_slots.py); memoised per parameter."""
        memo = self.__dict__.setdefault("_slots", {})
        if ref not in memo:
            memo[ref] = slot_class(self, ref)
        return memo[ref]

    def _named(self, ref: str) -> Value:
        """`self._get_target_class(mod)` (probes/reach.py, `named:` roots): when the method the
        receiver's class inherits is a name getter (`return getattr(mod, self.target_class)`),
        what the argument holds under the name the receiver's class sets; otherwise the plain
        call's value, as if no name were involved."""
        try:
            spec = json.loads(ref)
            recv, method, args = spec["recv"], spec["m"], list(spec.get("args") or [])
        except (ValueError, KeyError, TypeError):
            return UNKNOWN
        rkind, _, cref = recv.partition(":")
        definer = self._consumer_chain_find(cref, lambda c: method in (c.get("methods") or {}))
        getter = ((definer or {}).get("name_getters") or {}).get(method)
        if getter is None or (rkind == "sym" and not getter.get("classmethod")):  # Cls.m(mod): m must take cls
            return self.value((recv, "." + method, "()"))
        holder = self._consumer_chain_find(
            cref, lambda c: getter["attr"] in (c.get("class_attrs") or {}) or getter["attr"] in (c.get("self_attrs") or {}))
        rec = ((holder or {}).get("class_attrs") or {}).get(getter["attr"]) or {}
        name = rec.get("str")
        i = getter.get("arg")
        if "arg" in getter:  # the module handed in, by position or by the parameter's name
            base = args[i - 1] if isinstance(i, int) and 0 < i <= len(args) else \
                (spec.get("kwargs") or {}).get(getter.get("name") or "")
        else:
            base = getter.get("path")
        if not name or not base:
            return UNKNOWN
        v = self.value(tuple(base) + ("." + name,))
        return UNKNOWN if v.kind == "missing" else v  # the getter's own default covers a missing name

    def _consumer_chain_find(self, cref: str, pred: Callable[[dict], bool]) -> dict | None:
        """The first of a consumer class and its consumer bases (depth first, own first, across
        modules) that satisfies `pred`; None when none does or a target base comes first."""
        seen: set[str] = set()
        todo = [cref]
        while todo and len(seen) < 40:
            ref = todo.pop(0)
            if ref in seen:
                continue
            seen.add(ref)
            cls = self.consumer.classes.get(ref)
            if cls is None:
                continue
            if pred(cls):
                return cls
            nxt = []
            for b in cls.get("bases") or []:
                v = self.value(tuple(b)) if b else UNKNOWN
                if v.kind == "consumer" and v.ckind == "class" and v.cref:
                    nxt.append(v.cref)
            todo[:0] = nxt
        return None

    def _consumer_roots(self) -> set[str]:
        roots = self.__dict__.get("_roots")
        if roots is None:
            roots = self._roots = {m.split(".")[0] for m in self.consumer.modules}
        return roots

    def _symbol_value(self, sym: Symbol | None, ref: str) -> Value:
        if sym is None:
            mod, _, name = ref.rpartition(".")
            owner = self.index.lookup(mod) if mod else None
            return Value("missing", cls=owner, name=name)
        if sym.kind == "name":
            sym = self._alias_of(sym) or sym
        if sym.kind == "method" and "." in ref:  # `Sub.method` where the method is a base's: read off `Sub`
            head, _, member = ref.rpartition(".")
            owner = self.index.lookup(head)
            if owner is not None and owner.kind == "class":
                got = self._member(owner, member, on_class=True)
                if got.kind in ("function", "unbound") and got.sym is not None:
                    return got
        kind = {"module": "module", "class": "class", "function": "function", "method": "unbound"}.get(sym.kind)
        if kind is None:
            built = self._singleton_of(sym) if sym.kind == "name" else None
            if built is not None:
                return Value("instance", cls=built, evidence=(sym.path, sym.line))
            return Value("external", sym=sym, name=sym.dotted)
        return Value(kind, sym=sym, evidence=(sym.path, sym.line))

    def _singleton_of(self, sym: Symbol) -> Symbol | None:
        """The class a module-level instance is built from (`MULTIMODAL_REGISTRY =
        MultiModalRegistry()`): an object of that class, so a consumer's call of a method the
        class lost is seen through the shared instance. Only a whole value that is one call of a
        (dotted) name resolving to a class; a function's result stays unknown."""
        facts = NameFacts(sym.facts) if sym.facts is not None else None
        value = (facts.value or "").strip() if facts is not None else ""
        if not value and facts is not None and facts.built:  # a long call: only its callee was kept
            value = facts.built + "()"
        head, paren, rest = value.partition("(")
        if not paren or not rest.endswith(")") or not head.replace(".", "").replace("_", "").isalnum() \
                or head[:1].isdigit() or not _one_call(paren + rest):
            return None
        found = self.index.resolve_in(sym.module, head)
        return found if found is not None and found.kind == "class" else None

    def _alias_of(self, sym: Symbol, hops: int = 0) -> Symbol | None:
        """What a module-level alias of the target names (`OldName = NewClass`, kept for backward
        compatibility): the class or function itself, so members and calls through the old name
        are judged as through the new one. Only a plain (dotted) name is followed, a few hops."""
        value = (NameFacts(sym.facts).value or "").strip() if sym.facts is not None else ""
        if not value or hops > 4 or not value.replace(".", "").replace("_", "").isalnum() or value[0].isdigit():
            return None
        found = self.index.resolve_in(sym.module, value)
        if found is None or found.dotted == sym.dotted:
            return None
        return self._alias_of(found, hops + 1) if found.kind == "name" else found

    def _step(self, base: Value, step: str) -> Value:
        if not base.known:
            return UNKNOWN
        if step == "()":
            return self._call(base)
        if step in ("[with]", "[awith]"):  # `with x as v` / `async with x as v`
            return self._entered(base, step == "[awith]")
        if step == "[]":  # an element of a container the target annotates (`list[KVCacheBlock]`), or of an
            if base.kind == "instance" and base.cls is not None:  # object what its `__getitem__` returns
                return self._sliced(base)
            return self._element(base) if base.kind == "container" else UNKNOWN
        if step == "[:]":  # a slice: the same kind of container, or what the class's `__getitem__` builds
            if base.kind == "container":
                return base
            return self._sliced(base) if base.kind == "instance" and base.cls is not None else UNKNOWN
        if step == "[*]":  # what iterating it yields (`for x in c`, probes/reach.py `_bind_iterated`)
            return self._iterated(base) if base.kind == "container" else UNKNOWN
        if step[:1] == "[" and step[1:-1].isdigit():  # one position of an unpacked element (`for a, b in c`)
            return self._position(base, int(step[1:-1])) if base.kind == "container" else UNKNOWN
        if is_soft(step):  # `getattr(x, "name", default)`: the member, or the default where it is gone
            out = self._step(base, "." + step[2:])
            return UNKNOWN if out.kind == "missing" else out
        name = step[1:]
        if base.kind == "module":
            return self._symbol_value(self.index.lookup(f"{base.sym.dotted}.{name}"), f"{base.sym.dotted}.{name}")
        if base.kind == "class":
            return self._member(base.sym, name, on_class=True)
        if base.kind == "instance":
            out = self._member(base.cls, name, on_class=False)
            if out.kind == "missing" and out.via == "torch-module" and base.via == "factory":
                return UNKNOWN  # what a factory standing in for a class builds may hold the old class's object
            return out
        if base.kind == "consumer":
            return self._consumer_member(base, name)
        if base.kind == "container":
            return self._container_method(base, name)
        if base.kind == "external" and base.via == "loaded-model":
            sym = protocol_member(self.index, name)
            return self._member(sym.owner, name, on_class=False) if sym is not None and sym.owner is not None \
                else UNKNOWN
        return UNKNOWN

    def _container_method(self, base: Value, name: str) -> Value:
        """`d.get` / `d.pop` / `d.values` ... of a container the target annotates (`self.requests:
        dict[str, Request]`): a callable whose result is what that method of a builtin container
        gives back, written as `Callable[..., R]` so `_call` reads R like any annotation (`d.get(k)`
        -> a Request, `d.values()` -> an iterable of them, `q.popleft()` -> an element)."""
        head, args = split_generic(base.name or "")
        if head in _MAPPINGS and len(args) == 2:
            key, value = args
            gives = {"get": value, "pop": value, "setdefault": value, "values": f"Iterable[{value}]",
                     "keys": f"Iterable[{key}]", "items": f"Iterable[tuple[{key}, {value}]]", "copy": base.name}
        elif head in _SEQUENCES and len(args) == 1:
            gives = {"pop": args[0], "popleft": args[0], "copy": base.name}
        else:
            return UNKNOWN
        out = gives.get(name)
        return Value("container", name=f"Callable[..., {out}]", cref=base.cref) if out else UNKNOWN

    def _entered(self, base: Value, is_async: bool) -> Value:
        """What `with x as v` binds: the element a `@contextmanager` / `@asynccontextmanager`
        function's declared iterator yields (`-> AsyncIterator[EngineClient]`), or what the
        object's `__enter__` / `__aenter__` returns (`-> Self`: the object itself). Else unknown."""
        if base.kind == "container":
            head, args = split_generic(base.name or "")
            ok = ("AsyncIterator", "AsyncGenerator") if is_async else ("Iterator", "Generator")
            return self._annotation_value(args[0], base.cref or "") if head in ok and args else UNKNOWN
        if base.kind == "instance" and base.cls is not None:
            enter = self._member(base.cls, "__aenter__" if is_async else "__enter__", on_class=False)
            return self._call(enter) if enter.kind == "method" else UNKNOWN
        return UNKNOWN

    def _sliced(self, base: Value) -> Value:
        """`obj[a:b]` (or `obj[i]`) of a target object: what its class's `__getitem__` declares it returns, else,
        when every value it returns is a construction of its own class (`return
        PoolingMetadata(prompt_lens=self.prompt_lens[indices], ...)`, vLLM's batch metadata), an
        object of that class. Anything else is unknown."""
        for owner in self.index.mro(base.cls):
            fn = owner.as_class.methods.get("__getitem__")
            if fn is None:
                continue
            if fn.returns:
                out = self._annotation_value(fn.returns, owner.module)
                return out if out.kind == "instance" else UNKNOWN
            beh = fn.behaviour
            built = {c.line: c.callee.rsplit(".", 1)[-1] for c in beh.ctor_calls}
            own = owner.dotted.rsplit(".", 1)[-1]
            if beh.value_returns and all(built.get(line) == own for line in beh.value_returns):
                return Value("instance", cls=owner, evidence=(owner.path, fn.line))
            return UNKNOWN
        return UNKNOWN

    def _call(self, base: Value) -> Value:
        if base.kind == "class":
            return Value("instance", cls=base.sym)
        if base.kind in ("function", "method") and base.cls is not None:  # `-> Self`, read off a class
            return Value("instance", cls=base.cls)  # or an object of it: an object of that very class
        if base.kind in ("function", "method", "unbound"):
            out = self._annotation_value(base.sym.as_function.returns, base.sym.module)
            if base.kind == "function" and out.kind == "instance" and _class_named(base.sym.dotted):
                return replace(out, via="factory")
            if out.kind == "unknown" and returns_torch_module(self.index, base.sym):
                # `get_model(...) -> nn.Module`: a model vLLM loaded, typed by its protocols (model_protocols.py)
                return Value("external", name="torch.nn.Module", via="loaded-model",
                             evidence=(base.sym.path, base.sym.line))
            return out
        if base.kind == "consumer" and base.ckind == "class":
            return Value("consumer", ckind="instance", cref=base.cref)
        if base.kind == "consumer" and base.ckind in ("function", "method"):
            return self._consumer_return(base.cref or "")
        if base.kind == "container":  # a builtin container's method (`_container_method`)
            head, args = split_generic(base.name or "")
            return self._annotation_value(args[-1], base.cref or "") if head == "Callable" and args else UNKNOWN
        return UNKNOWN

    def _consumer_return(self, ref: str) -> Value:
        """What a consumer function or method returns (`def make(): return Foo(...)`)."""
        path = self.consumer.returns.get(ref)
        v = self.value(tuple(path)) if path else UNKNOWN
        if not path or v.kind == "consumer" and v.ckind == "function" and v.cref not in self.consumer.inferred.signatures:
            # no return the probe recorded (a module it read for its classes only), or one it read
            # as a name it could not type (`return _current`, a module global): the solver's answer, the one consumer class the annotation names (`-> Config`),
            # else the one every return gives. (An untyped `cls(...)` stays unknown: which subclass
            # a classmethod builds is the caller's.)
            solved = self.consumer.inferred
            objects = solved.annotated_objects.get(ref) or solved.returned_objects.get(ref) or []
            if len(objects) == 1 and not solved.returned_functions.get(ref):
                return self.value(("self:" + objects[0],))
        if v.kind == "unknown" or not path:  # nothing the returns tell: the one target class the annotation names
            promised = self._annotated_target(ref)
            if promised is not None:
                return promised
        return UNKNOWN if v.kind == "missing" else v  # a failing return is reported where it is computed

    def _annotated_target(self, ref: str) -> Value | None:
        """An object of the one target class a consumer function's return annotation names
        (`def engine(request) -> LLMEngine: return request.app.state.engine`): an accessor of an
        object stored where drift cannot follow promises what its callers hold, as an annotated
        parameter does."""
        paths = getattr(self.consumer.inferred, "annotated_targets", {}).get(ref) or []
        if len(paths) != 1:
            return None
        cls = self.value(tuple(paths[0]))
        return Value("instance", cls=cls.sym, evidence=(cls.sym.path, cls.sym.line)) if cls.kind == "class" else None

    def _annotation_value(self, text: str | None, module: str) -> Value:
        """What a value annotated `text` in `module` is (memoised: fields and parameters of the
        same classes are read again and again)."""
        key = (text, module)
        hit = self._annotations.get(key)
        if hit is None:
            hit = self._annotations[key] = self._annotation_uncached(text, module)
        return hit

    def _annotation_uncached(self, text: str | None, module: str) -> Value:
        t = (text or "").strip().strip("'\"")
        for head in ("type[", "Type[", "typing.Type["):  # type[X]: the class itself
            if t.startswith(head) and t.endswith("]"):
                inner = self._annotation_value(t[len(head):-1], module)
                return Value("class", sym=inner.cls) if inner.kind == "instance" else UNKNOWN
        name = strip_annotation(text)
        if not name:
            inner = container_annotation(text)
            if inner:
                return Value("container", name=inner, cref=module)
            return self._one_class_of_union(t, module)
        if name in ("None", "Any", "object", "Self"):
            return UNKNOWN
        sym = self.index.resolve_in(module, name)
        if sym is not None and sym.kind == "class":
            return Value("instance", cls=sym)
        if sym is None and name in _SCALARS:  # `str`, `int`: what Python's own type has, nothing else
            return Value("external", name=name, via="builtin")
        return UNKNOWN

    def _one_class_of_union(self, text: str, module: str) -> Value:
        """`Union[_AsyncLLMEngine, "ray.ObjectRef"]` (or `A | B`): the one member that names a
        class of the package, when every other member names nothing the package or Python's
        builtins define (a handle of another library, `None`). Members read on the value are then
        held to that class: the rules still require the baseline's class to have had them, so a
        member only the other library's object has is never reported. Unknown otherwise."""
        head, args = split_generic(text)
        members = args if head in ("Union", "typing.Union") else \
            ([p.strip() for p in _top_level_split(text, "|")] if "|" in text else [])
        members = [m for m in (m.strip().strip("'\"") for m in members) if m not in ("None", "NoneType")]
        if len(members) < 2:
            return UNKNOWN
        found = None
        for m in members:
            v = self._annotation_value(m, module)
            if v.kind == "instance" and v.cls is not None:
                if found is not None:
                    return UNKNOWN  # two classes of the package: which one is not said
                found = v
            elif v.kind != "unknown" or m.split("[", 1)[0].rsplit(".", 1)[-1] in _BUILTIN_HEADS:
                return UNKNOWN  # a builtin or a container: the value may be that
        return found or UNKNOWN

    def _element(self, base: Value) -> Value:
        """`x[i]` where x is a `list[C]`, `Sequence[C]`, `tuple[C, ...]` (or a tuple whose items
        are all C) or a `dict[K, C]`: an instance of C (or the next container in)."""
        head, args = split_generic(base.name or "")
        if head in _SEQUENCES and len(args) == 1:
            return self._annotation_value(args[0], base.cref or "")
        if head in _TUPLES and args and (args[1:] == ["..."] or len(set(args)) == 1):
            return self._annotation_value(args[0], base.cref or "")
        if head in _MAPPINGS and len(args) == 2:
            return self._annotation_value(args[1], base.cref or "")
        return UNKNOWN

    def _iterated(self, base: Value) -> Value:
        """What `for x in c` binds when c is annotated a container: an element of a sequence, a
        set or an iterator (`Iterator[tuple[str, C]]` -> the tuple), a key of a mapping."""
        head, args = split_generic(base.name or "")
        if head in _MAPPINGS and len(args) == 2:
            return self._annotation_value(args[0], base.cref or "")
        if head in (_SEQUENCES | _ITERABLES) and args:
            return self._annotation_value(args[0], base.cref or "")
        return self._element(base) if head in _TUPLES else UNKNOWN

    def _position(self, base: Value, i: int) -> Value:
        """Position `i` of an element unpacked in a loop: `tuple[str, C]` -> C at 1; a homogeneous
        tuple or a sequence gives its element at any position."""
        head, args = split_generic(base.name or "")
        if head in _TUPLES and args and args[1:] != ["..."]:
            return self._annotation_value(args[i], base.cref or "") if i < len(args) else UNKNOWN
        return self._element(base) if head in (_SEQUENCES | _TUPLES) else UNKNOWN

    # -- members -----------------------------------------------------------------------------------
    def _member(self, cls: Symbol, name: str, *, on_class: bool) -> Value:
        """`cls.name` (`on_class`) or `instance.name`: what the MRO defines it as, missing, or
        unknown. Memoised per class and name (a third of the asks repeat); an answer the depth
        guard cut short is not kept, so a cycle of `self.a = self.b...` is still cut where it is."""
        key = (cls.dotted, name, on_class)
        hit = self._members.get(key)
        if hit is not None and hit[0] is cls.facts:
            return hit[1]
        cutoffs = self._cutoffs
        out = self._member_uncached(cls, name, on_class)
        if out.kind == "missing" and not on_class:
            out = self._installed_member(cls, name) or out
        if self._cutoffs == cutoffs:
            self._members[key] = (cls.facts, out)
        return out

    def _member_uncached(self, cls: Symbol, name: str, on_class: bool) -> Value:
        mro = self.index.mro(cls)
        for owner in mro:
            node = owner.as_class  # one view per class looked in, its tables read from it
            m = node.methods.get(name)
            if m is not None:
                ev = (owner.path, m.line)
                if not on_class and m.is_property:
                    return _found(self._annotation_value(m.returns, owner.module), owner, "property", ev)
                sym = Symbol(f"{owner.dotted}.{name}", "method", owner.module, owner.path, m.line, m.raw, owner)
                decos = m.decorators
                receiver = cls if _returns_self(m.returns) else None  # `-> Self`: what it was called on
                if receiver is None and "classmethod" in decos and _names_class(m.returns, owner):
                    # `def from_cli_args(cls, args) -> "EngineArgs": return cls(...)`, read off a subclass
                    # (`AsyncEngineArgs.from_cli_args(args)`): an alternative constructor builds `cls`
                    receiver = cls
                if "staticmethod" in decos or "classmethod" in decos:
                    return Value("function", sym=sym, cls=receiver, owner=owner, via="method", evidence=ev)
                return Value("unbound" if on_class else "method", sym=sym, cls=receiver, owner=owner, via="method",
                             evidence=ev)
            n = node.nested.get(name)
            if n is not None:
                sym = Symbol(f"{owner.dotted}.{name}", "class", owner.module, owner.path, n.line, n.raw)
                return Value("class", sym=sym, owner=owner, via="class", evidence=(owner.path, n.line))
            fld = node.field(name)
            if fld is not None:
                if fld.initvar and not on_class:  # only an __init__ argument: not kept on the instance
                    return Value("initvar", owner=owner, name=name, via="initvar", evidence=(owner.path, fld.line))
                v = self._annotation_value(fld.annotation, owner.module)
                return _found(v, owner, "field", (owner.path, fld.line))
            a = node.attrs.get(name)
            if a is not None:
                return _found(self._class_attr_value(a, owner), owner, "class", (owner.path, a.line))
            if not on_class:
                ia = node.instance_attrs.get(name)
                if ia is not None:
                    return _found(self._instance_attr_value(ia, owner), owner, "instance", (owner.path, ia.line))
        seen, module_based = self._bases_seen(mro)
        if on_class and self._meta_dynamic(mro):
            return UNKNOWN  # `_Backend.FLASH_ATTN` through a metaclass `__getattribute__` (a renamed enum's alias)
        if not on_class and self.subclass_may_hold(cls, name):
            return UNKNOWN  # an abstract class: the object is one of its concrete kinds, which may have it
        if self._dynamic(mro) or not seen or (module_based and self._module_may_hold(name)) \
                or (self._struct_based(mro) and struct_defines(name)) \
                or _builtin_may_hold(self._builtin_bases(mro), name):
            return UNKNOWN
        return Value("missing", cls=cls, name=name, via="torch-module" if module_based else None)

    def _installed_member(self, cls: Symbol, name: str) -> Value | None:
        """`instance.name` that no class of the MRO sets but a consumer function installed on
        one of them (`Cls.__init__ = new_init`, `Cls.m = fn`) stores on `self`: the one value the
        solved model says it holds, evaluated on this side. None when the model says nothing,
        more than one thing, or the value is unknown here (the read stays as it was)."""
        installed = self.consumer.inferred.target_attrs
        if not installed:
            return None
        for owner in self.index.mro(cls):
            paths = installed.get(owner.dotted, {}).get(name)
            if paths:
                if len(paths) != 1 or self._depth > 20:
                    return None
                self._depth += 1
                try:
                    v = self.value(tuple(paths[0]))
                finally:
                    self._depth -= 1
                return v if v.known else None
        return None

    def _class_attr_value(self, a: NameFacts, owner: Symbol) -> Value:
        value = (a.value or "").strip()
        if value and value.replace(".", "").replace("_", "").isalnum():
            sym = self.index.resolve_in(owner.module, value)
            if sym is not None:
                return self._symbol_value(sym, sym.dotted)
        return Value("external", name=value[:60] or "a class attribute")

    def _instance_attr_value(self, ia: InstanceAttr, owner: Symbol) -> Value:
        value = ia.value or ""
        kind, _, text = value.partition(":")
        if kind == "call":
            sym = self.index.resolve_in(owner.module, text)
            if sym is None:
                if text.startswith("self."):  # self._make_buffer(...): what the class's own method returns
                    return self._self_call_value(owner, text[len("self."):])
                if text.isidentifier() and not hasattr(builtins, text) \
                        and self.index.dotted_in(owner.module, text) == text:
                    # `executor_class(vllm_config)` of a parameter annotated `type[Executor]`: an
                    # object of that class (or of a subclass, which the member lookup allows for)
                    made = self._annotation_value(
                        _param_annotation(owner.as_class.methods.get(ia.method), text), owner.module)
                    if made.kind == "class" and made.sym is not None:
                        return Value("instance", cls=made.sym)
                    return UNKNOWN  # `attn_cls(...)`: nothing imported: a class chosen into a local
                return Value("external", name=f"{text}()")
            if sym.kind == "class":
                return Value("instance", cls=sym)
            if sym.kind in ("function", "method"):
                return self._annotation_value(sym.as_function.returns, sym.module)
            return UNKNOWN
        if kind == "ann":
            return self._annotation_value(text, owner.module)
        if kind == "param":
            return self._annotation_value(_param_annotation(owner.as_class.methods.get(ia.method), text), owner.module)
        if kind == "lit" and text.startswith("list[") and text.endswith("]"):
            return Value("container", name=text, cref=owner.module)  # a comprehension of constructions
        if kind == "lit" and text != "None":
            return Value("literal", name=text)
        if kind == "attr":  # self.x = vllm_config.lora_config: follow the parameter's (or self's) type
            head, *rest = text.split(".")
            if head == "self":
                cur = Value("instance", cls=owner)
            else:
                cur = self._annotation_value(_param_annotation(owner.as_class.methods.get(ia.method), head), owner.module)
            for name in rest:
                if cur.kind != "instance":
                    return UNKNOWN
                if self._depth > 20:
                    self._cutoffs += 1
                    return UNKNOWN
                self._depth += 1
                try:
                    cur = self._member(cur.cls, name, on_class=False)
                finally:
                    self._depth -= 1
            return cur if cur.kind in ("instance", "class") else UNKNOWN
        return UNKNOWN

    def _self_call_value(self, owner: Symbol, name: str) -> Value:
        """`self.<name>(...)` stored by `owner`'s code: the return annotation of the method its
        class (or a base) defines, looked up the way the instance would find it."""
        if "." in name:
            return UNKNOWN
        if self._depth > 20:
            self._cutoffs += 1
            return UNKNOWN
        self._depth += 1
        try:
            m = self._member(owner, name, on_class=False)
        finally:
            self._depth -= 1
        if m.kind == "method" and m.sym is not None:
            return self._annotation_value(m.sym.as_function.returns, m.sym.module)
        return UNKNOWN

    def _dynamic(self, mro: list[Symbol]) -> bool:
        for o in mro:
            methods = o.as_class.methods
            if "__getattr__" in methods or "__getattribute__" in methods:
                return True
        return False

    def subclass_may_hold(self, cls: Symbol, name: str) -> bool:
        """Whether `cls` is abstract (an `ABC`, an `ABCMeta` metaclass, an `@abstractmethod`) and a
        concrete subclass beside it (in its module) has `name`: its own member, or a builtin
        container it extends (vLLM 0.9.2's `create_request_queue() -> RequestQueue` builds an
        `FCFSRequestQueue(deque[Request], RequestQueue)`, which indexes and `popleft`s)."""
        key = (cls.dotted, name)
        hit = self._sub_holds.get(key)
        if hit is None:
            hit = self._sub_holds[key] = _subclass_may_hold(self.index, cls, name)
        return hit

    def _meta_dynamic(self, mro: list[Symbol]) -> bool:
        """Whether a class of the MRO names a metaclass (of the target's) that defines
        `__getattr__` or `__getattribute__`: what `Cls.name` gives is that method's answer."""
        for o in mro:
            text = o.as_class.metaclass
            meta = self.index.resolve_in(o.module, text) if text else None
            if meta is not None and meta.kind == "class" and self._dynamic(self.index.mro(meta)):
                return True
        return False

    def unseen_miss(self, cls: Symbol, name: str) -> tuple[str, ...] | None:
        """`instance.name` on `cls` that no class of its MRO defines and nothing makes dynamic,
        left unknown (not missing) only because some bases resolve to nothing drift read
        (`torch.nn.Module`): those bases' texts. None when a class defines it, the MRO is
        dynamic, or every base is known (then the lookup already says missing)."""
        mro = self.index.mro(cls)
        if self._dynamic(mro) or self._member(cls, name, on_class=False).kind != "unknown":
            return None
        return self.unresolved_bases(cls) or None

    def unresolved_bases(self, cls: Symbol) -> tuple[str, ...]:
        """The bases in `cls`'s MRO that resolve to no class drift has facts for, as written."""
        out = set()
        for o in self.index.mro(cls):
            for base in o.as_class.bases:
                text = base.split("[", 1)[0].strip()
                if text in _INERT_BASES or text.rsplit(".", 1)[-1] in _INERT_BASES:
                    continue
                b = self.index.resolve_in(o.module, text)
                if (b is None or b.kind != "class") and not is_struct_base(self.index.dotted_in(o.module, text)):
                    out.add(self.index.dotted_in(o.module, text))
        return tuple(sorted(out))

    def _struct_based(self, mro: list[Symbol]) -> bool:
        """Whether a class of the MRO names `msgspec.Struct` as a base (drift/analysis/struct_base.py)."""
        return any(is_struct_base(self.index.dotted_in(o.module, base.split("[", 1)[0].strip()))
                   for o in mro for base in o.as_class.bases)

    def _bases_seen(self, mro: list[Symbol]) -> tuple[bool, bool]:
        """(every base of every class in the MRO resolves or adds nothing, so nothing unseen can
        provide the attribute; one of them is `torch.nn.Module`). nn.Module provides only its own
        names and what is registered on the instance (drift/analysis/torch_module.py), so it
        counts as seen; `_module_may_hold` says which names it may still answer."""
        module_based = False
        for o in mro:
            for base in o.as_class.bases:
                text = base.split("[", 1)[0].strip()
                if text in _INERT_BASES or text.rsplit(".", 1)[-1] in _INERT_BASES:
                    continue
                b = self.index.resolve_in(o.module, text)
                if b is not None and b.kind == "class":
                    continue
                if is_struct_base(self.index.dotted_in(o.module, text)):  # closed: its fields only
                    continue
                if _builtin_backed(text) or self.index.dotted_in(o.module, text) in _PYDANTIC_BASES:
                    continue
                if not is_module_base(self.index.dotted_in(o.module, text)):
                    return False, module_based
                module_based = True
        return True, module_based

    def _builtin_bases(self, mro: list[Symbol]) -> list[str]:
        """The builtin-backed bases (`IntEnum`, `str`) and pydantic's BaseModel written in `mro`'s
        classes that resolve to no class drift read: their members are the builtin's or the model
        API's, which no facts list."""
        out = []
        for o in mro:
            for base in o.as_class.bases:
                text = base.split("[", 1)[0].strip()
                pydantic = self.index.dotted_in(o.module, text) in _PYDANTIC_BASES
                if _builtin_backed(text) or pydantic:
                    b = self.index.resolve_in(o.module, text)
                    if b is None or b.kind != "class":
                        out.append("BaseModel" if pydantic else text.rsplit(".", 1)[-1])
        return out

    def _module_may_hold(self, name: str) -> bool:
        """Whether an nn.Module-based instance may have `name` though no class of it sets it:
        nn.Module's own, or a name the target registers by string somewhere."""
        return module_defines(name) or registered_somewhere(self.index, name)

    # -- the consumer's own classes ----------------------------------------------------------------
    def _consumer_member(self, base: Value, name: str) -> Value:
        cls = self.consumer.classes.get(base.cref or "")
        if cls is None or base.ckind == "function":
            return UNKNOWN
        skip_own = base.ckind == "super"
        on_class = base.ckind == "class"
        return self._consumer_lookup(cls, name, skip_own=skip_own, on_class=on_class, seen={},
                                     receiver=base.cref if base.ckind == "instance" else None)

    def _consumer_lookup(self, cls: dict, name: str, *, skip_own: bool, on_class: bool, seen: dict,
                         receiver: str | None = None) -> Value:
        """`name` looked up on the consumer class `cls` and its bases. `receiver`: the class of the
        instance read (`cls` or a subclass), on which a value a base stored from `self` is evaluated
        (`_late_bound`). `seen`: each class already looked up in this lookup, with its answer: a
        class two bases share (a diamond, `class R(Own, Mixin, Core)` with `Mixin(Core)`) answers
        the second time as the first (unknown only while its own lookup is under way: a cycle)."""
        key = f"{cls['module']}.{cls['qual']}"
        if key in seen:
            return seen[key] or UNKNOWN
        if len(seen) > 20:
            return UNKNOWN
        seen[key] = None
        out = self._consumer_lookup_once(cls, name, key, skip_own=skip_own, on_class=on_class, seen=seen,
                                         receiver=receiver)
        seen[key] = out
        return out

    def _consumer_lookup_once(self, cls: dict, name: str, key: str, *, skip_own: bool, on_class: bool,
                              seen: dict, receiver: str | None) -> Value:
        own_unknown = False  # the class stores `name` itself, with a value drift cannot type
        if not skip_own:
            method = (cls.get("methods") or {}).get(name)
            if method is not None:
                if not on_class and any(d.rsplit(".", 1)[-1] in ("property", "cached_property")
                                        for d in method.get("decorators") or []):
                    return self._consumer_return(f"{key}.{name}")  # a property: what its getter returns
                return Value("consumer", ckind="method", cref=f"{key}.{name}")
            for table in ("class_attrs", "self_attrs"):
                rec = (cls.get(table) or {}).get(name)
                if rec is not None:
                    if table == "self_attrs" and on_class:
                        continue
                    path = rec.get("path")
                    v = self._late_bound(path, key, receiver) if table == "self_attrs" else None
                    if v is None:
                        v = self.value(tuple(path)) if path else None
                    if v is None:  # a value the probe's pass could not type (`a() if c else other.llm`, a
                        inferred = self._inferred_member(key, name)  # record's `f: Any = None`): the solver's
                        if inferred is not None:
                            return inferred
                    if v is None or v.kind == "missing":  # the consumer's own copy exists even when its
                        return Value("consumer", ckind="attr", cref=f"{key}.{name}")  # source fails (reported there)
                    if table == "class_attrs" and not on_class and v.kind == "unbound":
                        return Value("method", sym=v.sym, owner=v.owner, via=v.via, evidence=v.evidence)  # bound
                    if v.known or table == "class_attrs":
                        return v
                    own_unknown = True
                    break
        inferred = self._inferred_member(key, name)
        if inferred is not None:
            return inferred
        if own_unknown:
            return self._redeclared(cls, name)
        results = []
        patch_bases = set(cls.get("patch_bases") or ())
        for i, b in enumerate((cls.get("bases") or []) + (cls.get("generic") or []) + (cls.get("decorated_with") or [])
                              + self.mixed_into(key)):
            if not b:
                results.append(UNKNOWN)
                continue
            bv = self.value(tuple(b))
            if i in patch_bases and not (bv.kind == "class" or (bv.kind == "consumer" and bv.ckind == "class")):
                continue  # `Patch[Target]` made by a factory drift cannot see: the instance is Target's
            if bv.kind == "class":
                results.append(self._member(bv.sym, name, on_class=on_class))
            elif bv.kind == "consumer" and bv.ckind == "class":
                sub = self.consumer.classes.get(bv.cref or "")
                results.append(self._consumer_lookup(sub, name, skip_own=False, on_class=on_class, seen=seen,
                                                     receiver=receiver)
                               if sub else UNKNOWN)
            else:
                results.append(UNKNOWN)
        for r in results:
            if r.known:
                return r
        if not skip_own and any(m in (cls.get("methods") or {}) for m in ("__getattr__", "__getattribute__")):
            return UNKNOWN  # answers any name its MRO lacks
        if not results:  # a consumer class of its own with no bases: it has what it defines
            return Value("missing", name=name)
        missing = [r for r in results if r.kind == "missing"]
        if len(missing) == len(results):
            return next((r for r in missing if r.cls is not None), missing[0])
        return UNKNOWN

    def _late_bound(self, path: list | None, key: str, receiver: str | None) -> Value | None:
        """`self.batch = self.build_batch()` stored by the base `key`, read on an instance of its
        subclass `receiver`: Python runs the subclass's `build_batch` (its override, annotated
        `-> PoolBatch` where the base's says only `-> BatchT`), so the stored path is evaluated
        from `self` of `receiver`. None when that types nothing (the base's own reading stands)."""
        if not path or len(path) < 2 or receiver is None or receiver == key or path[0] != "self:" + key:
            return None
        v = self.value(("self:" + receiver,) + tuple(path[1:]))
        return v if v.known else None

    def _redeclared(self, cls: dict, name: str) -> Value:
        """`self.running = remove_all(self.running, done)` in a subclass of a target class that
        declares `running` (`self.running: list[Request] = []`): the value the consumer stores is
        one drift cannot type, but it replaces the base's attribute, which the base's own methods
        go on reading as the type they declare; that type is the attribute's. Only a known
        member of a target base counts (never `missing`: the consumer's store makes it exist)."""
        for b in (cls.get("bases") or []):
            bv = self.value(tuple(b)) if b else UNKNOWN
            if bv.kind == "class":
                out = self._member(bv.sym, name, on_class=False)
                if out.kind in ("instance", "container") and out.via in ("field", "instance"):
                    return out
        return UNKNOWN

    def _inferred_member(self, cref: str, name: str) -> Value | None:
        """What the solved model says `cref.name` holds, where the class's own records do not
        say (a function bound after the class set it, a helper stored it): the one value it
        may hold, evaluated on this side; None when the model says nothing or more than one."""
        paths = self.consumer.inferred.attrs.get(cref, {}).get(name)
        if not paths or len(paths) != 1:
            return None
        v = self.value(tuple(paths[0]))
        return v if v.known else None

    def mixed_into(self, cref: str) -> list[list[str]]:
        """Target classes the target makes `cref` part of at run time, as base paths: a class
        whose dotted name reaches `worker_extension_cls` is appended to the worker's bases
        (the solved model says which names reach which key). The first class of the key's list
        that this side defines."""
        table = self.__dict__.get("_mixed")
        if table is None:
            table = self._mixed = {}
            for key, refs in self.consumer.inferred.named.items():
                for dotted in MIXED_INTO.get(key, ()):
                    if self.index.lookup(dotted) is not None:
                        for ref in refs:
                            table.setdefault(ref, []).append(["sym:" + dotted])
                        break
            for mixin, later in self._combined_mixins():
                table.setdefault(mixin, []).extend(later)
        return table.get(cref, [])

    def _combined_mixins(self) -> Iterator[tuple[str, list[list[str]]]]:
        """(mixin, the bases that follow it) for each consumer class that lists a consumer class
        with no base of its own but such classes (`_pure_mixin`) ahead of other bases (`class Chat(MyMixin, OpenAIServingChat)`,
        module-level or made inside a function): in that class's MRO the mixin's methods override
        the later bases' and its `super().m(...)` reaches theirs, so the mixin is checked as part of
        each class it is combined with."""
        for cls in self.consumer.classes.values():
            bases = cls.get("bases") or []
            for i, b in enumerate(bases[:-1]):
                v = self.value(tuple(b)) if b else UNKNOWN
                later = [list(x) for x in bases[i + 1:] if x]
                if v.kind == "consumer" and v.ckind == "class" and v.cref and later and self._pure_mixin(v.cref):
                    yield v.cref, later

    def _pure_mixin(self, cref: str, depth: int = 0) -> bool:
        """A consumer class whose bases are none, or only such classes: nothing but the classes it
        is combined with can come after it in an MRO. A base drift cannot resolve on this side (a
        target class gone from it, a third party's) may itself define what the mixin's methods
        override or what its `super()` reaches, so such a class is no mixin here."""
        cls = self.consumer.classes.get(cref)
        if cls is None or depth > 8 or cls.get("generic") or cls.get("decorated_with"):
            return False
        for b in cls.get("bases") or []:
            v = self.value(tuple(b)) if b else UNKNOWN
            if not (v.kind == "consumer" and v.ckind == "class" and v.cref and self._pure_mixin(v.cref, depth + 1)):
                return False
        return True

    def constructed_base(self, cref: str) -> Symbol | None:
        """The target class whose constructor builds the consumer class `cref`: a subclass that
        writes no `__init__` of its own is built by its base's, so `Sub(..., kw=...)` is a call of
        the target's `__init__` (or its fields, for a dataclass or a struct). Found as Python's MRO
        finds `__init__` for the usual shapes: bases in order, depth first. None when a consumer
        class on the way defines or is given one (`__init__`/`__new__`, bound after the class: the
        solved model), is decorated (a decorator may write one), or a base is neither the
        target's nor the consumer's (it may have its own)."""
        if self.consumer.inferred.init_of(cref) is not None:
            return None
        stop = object()

        def walk(ref: str, seen: set[str]) -> Any:
            cls = self.consumer.classes.get(ref)
            if cls is None or ref in seen:
                return stop
            seen.add(ref)
            methods = cls.get("methods") or {}
            if "__init__" in methods or "__new__" in methods or cls.get("decorated_with") or cls.get("decorators"):
                return stop
            for b in cls.get("bases") or []:
                v = self.value(tuple(b)) if b else UNKNOWN
                if v.kind == "class" and v.sym is not None:
                    return v.sym
                if not (v.kind == "consumer" and v.ckind == "class" and v.cref):
                    return stop
                found = walk(v.cref, seen)
                if found is not None:
                    return found
            return None  # only `object` above: the next base's constructor runs

        found = walk(cref, set())
        return None if found is stop else found

    def target_bases(self, cref: str) -> list[Symbol]:
        """The target classes a consumer class extends (directly, through its own bases, or as
        the class it patches: generic arguments and decorator arguments). Memoised per class
        (rules ask thousands of times for a few hundred classes); each caller gets its own list."""
        hit = self._bases.get(cref)
        if hit is None:
            hit = self._bases[cref] = self._target_bases(cref)
        return list(hit)

    def _target_bases(self, cref: str) -> list[Symbol]:
        out: list[Symbol] = []
        seen: set[str] = set()

        def walk(ref: str) -> None:
            if ref in seen:
                return
            seen.add(ref)
            cls = self.consumer.classes.get(ref)
            if cls is None:
                return
            for b in (cls.get("bases") or []) + (cls.get("generic") or []) + (cls.get("decorated_with") or []) \
                    + self.mixed_into(ref):
                if not b:
                    continue
                v = self.value(tuple(b))
                if v.kind == "class" and all(s.dotted != v.sym.dotted for s in out):
                    out.append(v.sym)
                elif v.kind == "consumer" and v.ckind == "class":
                    walk(v.cref or "")

        walk(cref)
        return out


def _param_annotation(method: FunctionFacts | None, name: str) -> str | None:
    """The annotation of `method`'s parameter `name`; None when it has none, or there is no such
    method or parameter (all three leave the value unknown)."""
    for p in method.param_facts if method is not None else ():
        if p.name == name:
            return p.annotation
    return None


_SELF = ("Self", "typing.Self", "typing_extensions.Self")


def _returns_self(text: str | None) -> bool:
    """Whether a method is declared `-> Self` (PEP 673): it returns an object of the class it is
    called on, which for a classmethod read off an alias or a subclass is that class, not the
    declaring one."""
    return (text or "").strip().strip("'\"") in _SELF


def _names_class(text: str | None, owner: Symbol) -> bool:
    """Whether a classmethod's return annotation names the class that declares it (`-> "EngineArgs"`
    on `EngineArgs.from_cli_args`): the idiom of an alternative constructor, which returns `cls(...)`,
    an object of whichever class it is called on, as `-> Self` says."""
    return (text or "").strip().strip("'\"") == owner.dotted.rsplit(".", 1)[-1]


def _one_call(args: str) -> bool:
    """Whether `(...)` is one balanced argument list closing at its last character (`()` of
    `X()`, never `(a)(b)` or `(a).b`). Brackets inside strings are rare in such values: not parsed."""
    depth = 0
    for i, ch in enumerate(args):
        depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        if depth == 0:
            return i == len(args) - 1
    return False


def _found(v: Value, owner: Symbol, via: str, evidence: tuple[str, int]) -> Value:
    """A member that exists: keep its type when known, else say it exists (so the next step is
    unknown rather than missing)."""
    if v.kind == "unknown":
        return Value("external", owner=owner, via=via, evidence=evidence)
    return Value(v.kind, sym=v.sym, cls=v.cls, owner=owner, name=v.name, via=via, evidence=evidence,
                 ckind=v.ckind, cref=v.cref)
