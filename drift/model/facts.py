"""The facts model: typed, lazily read views over the probe's records (probes/SCHEMA.md).

One model for everything that reads a package's facts: `drift check`'s rules, `drift diff`'s
detectors, the resolver (drift/model/index.py) and the reports. A `Symbol` gives its record as
`sym.node` (`ModuleFacts`, `ClassFacts`, `FunctionFacts`, ...); every key the probe writes is an
attribute here with its type and its empty value, so a rule reads `cls.methods["forward"].params`,
never `cls.get("methods") or {}`.

Why views and not decoded objects: the probe is stdlib-only and runs on hosts, so facts travel
and are stored as plain records (JSON on the wire, marshal in the store, decoded per module on
first access). A warm check of the largest corpus consumer loads 392 modules; a view costs one
small object when a record is read and decodes nothing else, where building objects for every
record of those modules (50k of them) costs more than all the views and reads that check makes
(`benchmarks/bench_facts_model.py`; docs/architecture.md has the figures). Demand-driven
outlines (drift/model/outline.py) are records too, so a view over one reads the outline's keys and
parses the module for others.

`raw` is the record itself, for the storage and transport layers (drift/model/store.py,
drift/remote/reply.py) and for identity (two views of one record are equal).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Sequence, TypeVar, overload

R = TypeVar("R", bound="Record")
T = TypeVar("T")

_NO_TEXTS: tuple[str, ...] = ()


class Record:
    """A view of one facts record. Equal views hold the same record."""

    __slots__ = ("raw",)
    KEYS: frozenset[str] = frozenset()  # every key the probe may write in such a record

    def __init__(self, raw: Mapping[str, Any]):
        self.raw = raw

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.raw is self.raw  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return id(self.raw)

    def __repr__(self) -> str:
        name = self.raw.get("qualname") or self.raw.get("name") or self.raw.get("path") or ""
        return f"{type(self).__name__}({name!r}, line={self.raw.get('line')})"


class _Key(property, Generic[T]):
    """One key of a record read as an attribute: `empty` when absent or null, `wrap`ped when it
    holds records. A property (its getter a closure over the key), not a plain descriptor: the
    C-level property dispatch makes a read ~25 % cheaper, and `drift diff` reads ~570k of them."""

    def __init__(self, key: str, empty: Any = None, wrap: Callable[[Any], Any] | None = None, doc: str = ""):
        if wrap is None:
            def read(obj: Record, _key: str = key, _empty: Any = empty) -> Any:
                v = obj.raw.get(_key)
                return _empty if v is None else v
        else:
            def read(obj: Record, _key: str = key, _empty: Any = empty, _wrap: Callable[[Any], Any] = wrap) -> Any:
                v = obj.raw.get(_key)
                return _empty if v is None else _wrap(v)
        super().__init__(read, doc=doc or None)
        self.key, self.empty, self.wrap, self.doc = key, empty, wrap, doc

    if TYPE_CHECKING:  # what a read gives, for type checkers; at run time property.__get__ serves
        @overload
        def __get__(self, obj: None, owner: type | None = None) -> "_Key[T]": ...
        @overload
        def __get__(self, obj: Record, owner: type | None = None) -> T: ...
        def __get__(self, obj, owner=None): ...


def _keys(cls: type) -> frozenset[str]:
    return frozenset(v.key for k in cls.__mro__ for v in vars(k).values() if isinstance(v, _Key))


class Table(Mapping[str, R]):
    """A mapping of name -> record, read as views on access (`cls.methods`, `mod.classes`)."""

    __slots__ = ("raw", "of")

    def __init__(self, raw: Mapping[str, Any], of: type[R]):
        self.raw, self.of = raw, of

    def __getitem__(self, key: str) -> R:
        return self.of(self.raw[key])

    def get(self, key: str, default: Any = None) -> Any:
        v = self.raw.get(key)
        return default if v is None else self.of(v)

    def __contains__(self, key: object) -> bool:
        return key in self.raw

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __bool__(self) -> bool:
        return bool(self.raw)

    def items(self):  # type: ignore[override]
        of = self.of
        return [(k, of(v)) for k, v in self.raw.items()]

    def values(self):  # type: ignore[override]
        of = self.of
        return [of(v) for v in self.raw.values()]


def _table(of: type[R]) -> Callable[[Any], Table[R]]:
    return lambda raw: Table(raw, of)


def _rows(of: type[R]) -> Callable[[Any], list[R]]:
    return lambda raw: [of(r) for r in raw]


# -- small records -------------------------------------------------------------------------------
class Located(Record):
    __slots__ = ()
    line: _Key[int] = _Key("line", 1)


class NameFacts(Located):
    """A module- or class-level assignment (`X = 1`): its line and source text (cut short)."""

    __slots__ = ()
    value: _Key[str | None] = _Key("value", None)
    built: _Key[str | None] = _Key("built", None, doc="the dotted callee of a value too long to keep, one call")


class ImportFacts(Located):
    """A module-level import binding: local name -> absolute dotted target."""

    __slots__ = ()
    target: _Key[str] = _Key("target", "")
    type_checking: _Key[bool] = _Key("type_checking", False, doc="bound only under `if TYPE_CHECKING:`")


class InstanceAttr(Located):
    """An attribute a class sets on `self` (in `__init__` or another method)."""

    __slots__ = ()
    method: _Key[str] = _Key("method", "")
    value: _Key[Any] = _Key("value", None, doc="what kind of value, when the probe could tell")


class FieldFacts(Located):
    """An annotated class-level name: a dataclass / pydantic / NamedTuple / TypedDict field."""

    __slots__ = ()
    name: _Key[str] = _Key("name", "")
    annotation: _Key[str | None] = _Key("annotation", None)
    default: _Key[str | None] = _Key("default", None)
    has_default: _Key[bool] = _Key("has_default", False)
    initvar: _Key[bool] = _Key("initvar", False)
    classvar: _Key[bool] = _Key("classvar", False)
    kw_only: _Key[bool] = _Key("kw_only", False)

    @property
    def init(self) -> bool:
        """False for `field(init=False)`: not a constructor parameter."""
        return self.raw.get("init") is not False


class ParamFacts(Record):
    """A parameter as the probe recorded it; `Param` is the resolved form rules compare."""

    __slots__ = ()
    name: _Key[str] = _Key("name", "")
    kind: _Key[str] = _Key("kind", "POSITIONAL_OR_KEYWORD", doc="an inspect.Parameter kind name")
    default: _Key[str | None] = _Key("default", None, doc="the default's source text; None: required")
    annotation: _Key[str | None] = _Key("annotation", None)

    @property
    def required(self) -> bool:
        """No default and not *args/**kwargs: a caller must pass it (`Param.required`, unresolved)."""
        raw = self.raw
        return raw.get("default") is None and raw.get("kind") not in ("VAR_POSITIONAL", "VAR_KEYWORD")


@dataclass(frozen=True)
class Param:
    """A constructor or call parameter, from a signature or from a dataclass's fields."""

    name: str
    kind: str
    required: bool
    default: str | None
    annotation: str | None
    line: int
    source: str  # "param" | "field" | "initvar"


class RaiseFacts(Located):
    __slots__ = ()
    type: _Key[str | None] = _Key("type", None)
    message: _Key[str | None] = _Key("message", None)
    guard: _Key[str | None] = _Key("guard", None, doc="source of the nearest enclosing `if` test")


class AssertFacts(Located):
    __slots__ = ()
    subject: _Key[str] = _Key("subject", "", doc="the parameter the assert reads")
    attr: _Key[str] = _Key("attr", "")
    src: _Key[str] = _Key("src", "")


class CtorCall(Located):
    """A constructor call that passes keywords (`Scheduler(block_size=..., ...)`)."""

    __slots__ = ()
    callee: _Key[str] = _Key("callee", "")
    keywords: _Key[Mapping[str, str]] = _Key("keywords", {})
    locals: _Key[Mapping[str, str]] = _Key("locals", {})


class KwCall(Located):
    """A call of a lower-case name that passes keywords (`self._lora_model_cls.from_local_checkpoint(
    lora_path, ..., model_vocab_size=self.vocab_size)`): argument texts cut at 120 chars, `*`
    before a starred positional, `"**": "1"` when a `**dict` is passed too (facts +kwc)."""

    __slots__ = ()
    callee: _Key[str] = _Key("callee", "", doc="the callee as written, dotted")
    args: _Key[Sequence[str]] = _Key("args", _NO_TEXTS, doc="each positional argument's source text")
    keywords: _Key[Mapping[str, str]] = _Key("keywords", {})


class PosCall(Located):
    """`self.name(a, b)` / `self.x.name(a, b)` passing positional arguments only (facts +pc): the
    argument texts, and for each identifier argument its latest simple assignment above the call."""

    __slots__ = ()
    callee: _Key[str] = _Key("callee", "", doc="the callee as written, dotted (rooted at self)")
    args: _Key[Sequence[str]] = _Key("args", _NO_TEXTS, doc="each positional argument's source text")
    locals: _Key[Mapping[str, str]] = _Key("locals", {}, doc="identifier argument -> its assignment's text")


class FlagCall(Located):
    """`x.name(a, True, b)`: a method call on any receiver passing only plain names and constants
    positionally, one of them True/False/None (facts +fc): the argument texts."""

    __slots__ = ()
    callee: _Key[str] = _Key("callee", "", doc="the callee as written, dotted")
    args: _Key[Sequence[str]] = _Key("args", _NO_TEXTS, doc="each positional argument's source text")


class KwargsForward(Located):
    """A call a function makes with its own `**kwargs` passed on whole (probes/forwards.py): a
    factory handing the caller's keywords to the class it builds."""

    __slots__ = ()
    callee: _Key[str] = _Key("callee", "", doc="the callee's source text")
    positional: _Key[int] = _Key("positional", 0, doc="positional arguments the call passes (no *args)")
    star_args: _Key[bool] = _Key("star_args", False)
    keywords: _Key[Sequence[str]] = _Key("keywords", _NO_TEXTS, doc="keywords the call passes by name")
    drops: _Key[Sequence[str]] = _Key("drops", _NO_TEXTS, doc="keys taken out of the dict before the call")
    adds: _Key[Sequence[str]] = _Key("adds", _NO_TEXTS, doc="keys set in the dict before the call")
    returned: _Key[bool] = _Key("returned", False,
                                doc="the call's value is what the function returns (its annotation names it)")


class Choice(Located):
    """An `if` whose two arms build different classes (probes/choices.py); each arm is
    [[dotted as written, line, holder source or "return"]]."""

    __slots__ = ()
    test: _Key[str] = _Key("test", "", doc="the test's source text")
    then: _Key[Sequence[list[Any]]] = _Key("then", ())
    orelse: _Key[Sequence[list[Any]]] = _Key("else", (), doc="the `else` arm (`else` is a keyword)")


class EnvDefault(Located):
    """A setting of a settings module (`"NAME": lambda: <expr>` reading env NAME), for what it
    is when the variable is unset (probes/choices.py)."""

    __slots__ = ()
    expr: _Key[str] = _Key("expr", "", doc="the setting's expression")
    read: _Key[str] = _Key("read", "", doc="the variable's read inside it (`os.getenv(\"NAME\", \"0\")`)")
    default: _Key[str] = _Key("default", "None", doc="the read's default's source text")


class Behaviour(Record):
    """What a function does, read from its body (probes/behaviour.py; SCHEMA.md "behaviour").

    Lines are 1-based; tables map a name to the lines where it happens."""

    __slots__ = ()
    tail_return_none: _Key[int | None] = _Key("tail_return_none", None,
                                              doc="line of a last top-level `return None`")
    value_returns: _Key[Sequence[int]] = _Key("value_returns", ())
    self_sets: _Key[Mapping[str, list[int]]] = _Key("self_sets", {})
    self_resets: _Key[Mapping[str, list[int]]] = _Key("self_resets", {})
    self_reads: _Key[Mapping[str, list[int]]] = _Key("self_reads", {})
    self_calls: _Key[Mapping[str, list[int]]] = _Key("self_calls", {})
    unpacks: _Key[Mapping[str, list[list[int]]]] = _Key(
        "unpacks", {}, doc="method name -> [[call line, names unpacked, unpack line]]: `a, b = x.m(...)`")
    bare_calls: _Key[Mapping[str, int]] = _Key("bare_calls", {}, doc="name (dotted when imported inside the function) -> first line of `name()` (no arguments)")
    unset_checks: _Key[Sequence[str]] = _Key("unset_checks", (),
                                             doc="module names the function fails on when None (an ambient getter)")
    globals_set: _Key[Sequence[str]] = _Key("globals_set", (), doc="names the function declares `global`")
    held_tests: _Key[Mapping[str, list[int]]] = _Key(
        "held_tests", {}, doc="`self.x.f` read in an if/while test -> lines (a setting the method obeys)")
    self_types: _Key[Mapping[str, Any]] = _Key("self_types", {}, doc="self.x -> the type of what was stored")
    raises: _Key[list[RaiseFacts]] = _Key("raises", [], _rows(RaiseFacts))
    asserts: _Key[list[AssertFacts]] = _Key("asserts", [], _rows(AssertFacts))
    ctor_calls: _Key[list[CtorCall]] = _Key("ctor_calls", [], _rows(CtorCall))
    kw_calls: _Key[list[KwCall]] = _Key("kw_calls", [], _rows(KwCall),
                                        doc="calls of lower-case names passing keywords, with argument texts")
    pos_calls: _Key[list[PosCall]] = _Key("pos_calls", [], _rows(PosCall),
                                          doc="method calls on self (or what it holds) passing positional arguments only")
    flag_calls: _Key[list[FlagCall]] = _Key("flag_calls", [], _rows(FlagCall),
                                            doc="method calls passing names and a True/False/None flag positionally")
    kwarg_defaults: _Key[Mapping[str, Mapping[str, Any]]] = _Key("kwarg_defaults", {})
    return_shapes: _Key[Sequence[Mapping[str, Any]]] = _Key("return_shapes", ())
    returns_src: _Key[Sequence[Any]] = _Key("returns_src", (), doc="source of each returned value")
    call_sites: _Key[Mapping[str, Any]] = _Key("call_sites", {}, doc="the function's calls of names, by name")
    shape: _Key[Sequence[Sequence[Any]]] = _Key(
        "shape", (), doc="[[hash, line, calls, attributes]] a statement a row, nested bodies flattened (probes/copies.py; facts +cp17)")
    cli: _Key[Mapping[str, Any]] = _Key("cli", {}, doc="a parser builder's options: dests, fields_of, builders "
                                                      "(probes/cli_args.py)")
    by_name_calls: _Key[Mapping[str, list]] = _Key("by_name_calls", {},
                                                   doc="dispatcher -> [[line, method, npos, keywords]]: methods named by a string")
    probes: _Key[Mapping[str, Mapping[str, list[Any]]]] = _Key(
        "probes", {}, doc="subject -> {name: [line, the name it is a fallback for, or None]}: getattr/hasattr probes")
    param_derefs: _Key[Mapping[str, list[Any]]] = _Key("param_derefs", {},
                                                        doc="parameter -> [line, col, how, detail]")
    param_guards: _Key[Mapping[str, list[Any]]] = _Key("param_guards", {}, doc="parameter -> [line, how]")
    unread_params: _Key[Sequence[str]] = _Key("unread_params", (),
                                              doc="parameters a caller binds that the body never mentions")
    param_reads: _Key[Mapping[str, Mapping[str, int]]] = _Key(
        "param_reads", {}, doc="parameter -> {attr: first line}: every `param.attr` the body reads (facts +pr)")
    imported_calls: _Key[Mapping[str, list[list[Any]]]] = _Key(
        "imported_calls", {}, doc="dotted -> [[line, positional count, [keywords], 1 if starred]]: calls of a "
                                  "name a lazy import in the function binds (facts +ic)")
    result_calls: _Key[Mapping[str, Mapping[str, int]]] = _Key(
        "result_calls", {}, doc="method -> {called: first line}: methods the function calls on what a call "
                                "of `.method(...)` returned (facts +rc)")
    forwards: _Key[Mapping[str, Sequence[str]]] = _Key(
        "forwards", {}, doc="\"self.x\" -> [method]: `return self.x.method(...)` (facts +rc)")
    builds: _Key[Mapping[str, list[str]]] = _Key("builds", {})
    param_sets: _Key[Mapping[str, Mapping[str, list[Any]]]] = _Key(
        "param_sets", {}, doc="parameter -> {attr: [line, kind, 1 if on some paths only]}: `param.attr = v`")
    omit_warns: _Key[Mapping[str, int]] = _Key(
        "omit_warns", {}, doc="parameter -> line of `if param is None:` warning that omitting it is deprecated")
    param_hands: _Key[Sequence[list[Any]]] = _Key(
        "param_hands", (), doc="[callee, parameter, position or keyword, line, 1 if on some paths only]: "
                               "a parameter the function stores on, handed on to another function")
    held_calls: _Key[Mapping[str, Mapping[str, int]]] = _Key("held_calls", {})
    held_reads: _Key[Mapping[str, Mapping[str, int]]] = _Key(
        "held_reads", {}, doc="`self.x` -> {attr: first line} of `self.x.attr` reads (facts +pc2)")
    kwargs_into: _Key[list[KwargsForward]] = _Key("kwargs_into", [], _rows(KwargsForward),
                                                  doc="where **kwargs is passed on whole")
    tuple_returns: _Key[Sequence[Any]] = _Key("tuple_returns", ())
    choices: _Key[list[Choice]] = _Key("choices", [], _rows(Choice), doc="classes an `if` builds in its two arms")

    @property
    def knows_value_returns(self) -> bool:
        """Whether the probe recorded `value_returns` (facts 1.5): only then does an empty one
        prove that no path returns a value; an older probe's record says nothing either way."""
        return self.raw.get("value_returns") is not None


_NO_BEHAVIOUR = Behaviour({})


class Overload(Located):
    __slots__ = ()
    params: _Key[list[ParamFacts]] = _Key("params", [], _rows(ParamFacts))
    returns: _Key[str | None] = _Key("returns", None)


class FunctionFacts(Located):
    """A function or method."""

    __slots__ = ()
    name: _Key[str] = _Key("name", "")
    qualname: _Key[str] = _Key("qualname", "")
    end_line: _Key[int | None] = _Key("end_line", None)
    is_async: _Key[bool] = _Key("is_async", False)
    decorators: _Key[Sequence[str]] = _Key("decorators", _NO_TEXTS, doc="dotted source text, no call args")
    returns: _Key[str | None] = _Key("returns", None, doc="the return annotation's source text")
    param_facts: _Key[list[ParamFacts]] = _Key("params", [], _rows(ParamFacts))
    overloads: _Key[list[Overload]] = _Key("overloads", [], _rows(Overload))
    behaviour: _Key[Behaviour] = _Key("behaviour", _NO_BEHAVIOUR, Behaviour)
    setter: _Key[bool] = _Key("setter", False, doc="a property that has a setter")
    nested: _Key[Mapping[str, Any]] = _Key("nested", {}, doc="kept empty: nested behaviour is folded in")

    @property
    def params(self) -> list[Param]:
        return params_of(self.raw)

    @property
    def takes_self(self) -> bool:
        """Of a method: whether its first parameter is bound (it is not a staticmethod)."""
        params = self.raw.get("params") or ()
        return bool(params) and "staticmethod" not in (self.raw.get("decorators") or ()) and \
            params[0]["kind"] in ("POSITIONAL_OR_KEYWORD", "POSITIONAL_ONLY")

    @property
    def is_property(self) -> bool:
        return any(d.rsplit(".", 1)[-1] in ("property", "cached_property") for d in self.decorators)

    def same_params(self, other: "FunctionFacts") -> bool:
        """Whether two functions' parameters are recorded alike: one comparison of the records
        (C speed), so `drift diff` compares parameter by parameter only the few that changed."""
        return self.raw.get("params") == other.raw.get("params")


class ClassFacts(Located):
    """A class: bases as written, members, and what it sets on `self`."""

    __slots__ = ()
    name: _Key[str] = _Key("name", "")
    qualname: _Key[str] = _Key("qualname", "")
    end_line: _Key[int | None] = _Key("end_line", None)
    bases: _Key[Sequence[str]] = _Key("bases", _NO_TEXTS, doc="source text of each base")
    decorators: _Key[Sequence[str]] = _Key("decorators", _NO_TEXTS)
    kind: _Key[str] = _Key("kind", "class",
                           doc="class | dataclass | pydantic | namedtuple | typeddict | enum | protocol")
    fields: _Key[list[FieldFacts]] = _Key("fields", [], _rows(FieldFacts))
    methods: _Key[Table[FunctionFacts]] = _Key("methods", Table({}, FunctionFacts), _table(FunctionFacts))
    attrs: _Key[Table[NameFacts]] = _Key("attrs", Table({}, NameFacts), _table(NameFacts),
                                         doc="class-level names assigned without annotation")
    instance_attrs: _Key[Table[InstanceAttr]] = _Key("instance_attrs", Table({}, InstanceAttr),
                                                     _table(InstanceAttr))
    options: _Key[Sequence[str]] = _Key("options", _NO_TEXTS, doc="decorator calls and class keywords")
    metaclass: _Key[str | None] = _Key("metaclass", None, doc="the source text of a `metaclass=` keyword (facts +mc)")
    nested: _Key[Table["ClassFacts"]]  # nested classes; set below the class, which it refers to

    def field(self, name: str) -> FieldFacts | None:
        for f in self.raw.get("fields") or ():
            if f.get("name") == name:
                return FieldFacts(f)
        return None


ClassFacts.nested = _Key("nested", Table({}, ClassFacts), _table(ClassFacts))  # type: ignore[assignment]


class _Imports(Table[ImportFacts]):
    """A module's import bindings; a star import is not a binding (`ModuleFacts.star_imports`)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> ImportFacts:
        if key == "*":
            raise KeyError(key)
        return ImportFacts(self.raw[key])

    def get(self, key: str, default: Any = None) -> Any:
        v = self.raw.get(key) if key != "*" else None
        return default if v is None else ImportFacts(v)

    def __contains__(self, key: object) -> bool:
        return key != "*" and key in self.raw

    def __iter__(self) -> Iterator[str]:
        return (k for k in self.raw if k != "*")

    def __len__(self) -> int:
        return len(self.raw) - ("*" in self.raw)

    def __bool__(self) -> bool:
        return len(self) > 0

    def items(self):  # type: ignore[override]
        return [(k, ImportFacts(v)) for k, v in self.raw.items() if k != "*"]

    def values(self):  # type: ignore[override]
        return [ImportFacts(v) for k, v in self.raw.items() if k != "*"]


_NO_IMPORTS = _Imports({}, ImportFacts)


class ModuleFacts(Record):
    """One module: what it defines and imports at module level."""

    __slots__ = ()
    path: _Key[str] = _Key("path", "", doc="relative to the directory holding the top-level package")
    sha256: _Key[str | None] = _Key("sha256", None)
    is_package: _Key[bool] = _Key("is_package", False)
    error: _Key[str | None] = _Key("error", None, doc="why the module could not be read; then it is empty")
    all: _Key[Sequence[str] | None] = _Key("all", None, doc="a literal __all__")
    imports: _Key[_Imports] = _Key("imports", _NO_IMPORTS, lambda raw: _Imports(raw, ImportFacts))
    names: _Key[Table[NameFacts]] = _Key("names", Table({}, NameFacts), _table(NameFacts))
    functions: _Key[Table[FunctionFacts]] = _Key("functions", Table({}, FunctionFacts), _table(FunctionFacts))
    classes: _Key[Table[ClassFacts]] = _Key("classes", Table({}, ClassFacts), _table(ClassFacts))
    env_defaults: _Key[Table[EnvDefault]] = _Key("env_defaults", Table({}, EnvDefault), _table(EnvDefault),
                                                 doc="env settings' defaults (probes/choices.py)")
    env_exprs: _Key[Table[EnvDefault]] = _Key("env_exprs", Table({}, EnvDefault), _table(EnvDefault),
                                              doc="env settings' whole expressions, any read form (probes/choices.py)")
    getattr_names: _Key[Any] = _Key("getattr_names", None, doc="names a PEP 562 `__getattr__` still maps")
    deprecations: _Key[Any] = _Key("deprecations", (), doc="renames its deprecation code names (probes/deprecations.py)")
    name_checks: _Key[Any] = _Key("name_checks", {}, doc="functions that raise for a name their module's "
                                  "table lacks: {fn: {param, index, table, line, raises, raise_line}} (probes/name_tables.py)")
    name_tables: _Key[Any] = _Key("name_tables", {}, doc="{table: [key, ...]} of the tables name_checks names")

    @property
    def star_imports(self) -> list[ImportFacts]:
        return [ImportFacts(s) for s in (self.raw.get("imports") or {}).get("*") or ()]

    def every_function(self) -> Iterator[FunctionFacts]:
        """The module's functions, then every method of its classes and their nested classes.

        One walk for the rules that index a behaviour over all of a release's code (unpacked
        returns, RPC dispatches, constructor calls, setting guards): the order is the module's
        functions, then classes last-defined first, so an index built from it is the same on
        every run."""
        yield from self.functions.values()
        stack = self.classes.values()
        while stack:
            cls = stack.pop()
            yield from cls.methods.values()
            stack.extend(cls.nested.values())


for _cls in (Located, NameFacts, ImportFacts, InstanceAttr, FieldFacts, ParamFacts, RaiseFacts, AssertFacts,
             CtorCall, KwargsForward, Choice, EnvDefault, Behaviour, Overload, FunctionFacts, ClassFacts,
             ModuleFacts):
    _cls.KEYS = _keys(_cls) | ({"init"} if _cls is FieldFacts else frozenset())


def params_of(fn: Mapping[str, Any]) -> list[Param]:
    """A function record's parameters, resolved (`required`: no default and not *args/**kwargs)."""
    line = fn.get("line", 1)
    return [Param(name=p["name"], kind=p["kind"],
                  required=p.get("default") is None and p["kind"] not in ("VAR_POSITIONAL", "VAR_KEYWORD"),
                  default=p.get("default"), annotation=p.get("annotation"), line=line, source="param")
            for p in fn.get("params") or ()]


_BY_KIND: dict[str, type[Record]] = {
    "module": ModuleFacts, "class": ClassFacts, "function": FunctionFacts, "method": FunctionFacts,
    "name": NameFacts, "field": FieldFacts, "attribute": NameFacts,
}


def node_of(kind: str, raw: Mapping[str, Any]) -> Record:
    """The view of a symbol's record by the symbol's kind."""
    return _BY_KIND.get(kind, Record)(raw)
