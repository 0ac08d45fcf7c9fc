"""Symbol resolution over one package's facts: re-exports, aliases, inheritance, constructors.

The facts are per module; users name symbols the way they import them
(`vllm.config.CacheConfig`, defined in `vllm.config.cache`). This index follows import
bindings to the defining module, walks base classes for inherited methods, and derives a
class's constructor parameters (its `__init__`, or its dataclass/pydantic fields).
"""

from __future__ import annotations

import hashlib
import re
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Pattern

from drift.model.facts import ClassFacts, FunctionFacts, InstanceAttr, ModuleFacts, Param, Record, node_of
from drift.probes import closure as _patterns

# Decorators that turn a class into a dataclass-like constructor. Rule packs add their own
# (vLLM's `@config` wraps pydantic.dataclasses.dataclass).
DEFAULT_DATACLASS_DECORATORS = frozenset({
    "dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass", "attr.s", "attrs.define",
    "attr.define", "define", "frozen",
})


_QUOTABLE = re.compile(rb"[A-Za-z0-9_]+")  # a name `writes_quoted` answers from the stored set
_STORED_INDEX = "stored-attrs.1"  # PackageIndex.stored_attribute_names's set, per package digest
_STORED_ATTR = re.compile(rb"\.([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")
_QUOTED_INDEX = "quoted-words.1"  # PackageIndex.writes_quoted's set, per package digest

# Bases whose subclasses take their annotated fields as constructor parameters.
FIELD_BASES = frozenset({"msgspec.Struct", "pydantic.BaseModel", "typing.NamedTuple", "typing.TypedDict"})


@dataclass(frozen=True)
class Symbol:
    """A resolved definition: where it is, and its record (`node`, a drift.model view; `facts`
    is the raw record, for identity and storage)."""

    dotted: str  # canonical: module + qualname of the definition
    kind: str  # "module" | "class" | "function" | "method" | "name" | "field" | "attribute"
    module: str
    path: str
    line: int
    facts: Mapping[str, Any] = field(compare=False, hash=False, repr=False)
    owner: "Symbol | None" = field(default=None, compare=False, hash=False, repr=False)

    @property
    def node(self) -> Record:
        """The record as the model's view for this kind of symbol."""
        return node_of(self.kind, self.facts)

    @property
    def as_class(self) -> ClassFacts:
        return ClassFacts(self.facts)

    @property
    def as_function(self) -> FunctionFacts:
        return FunctionFacts(self.facts)

    @property
    def as_module(self) -> ModuleFacts:
        return ModuleFacts(self.facts)


class PackageIndex:
    """Lookups into one facts document (all packages in it)."""

    def __init__(self, facts: dict[str, Any], *, dataclass_decorators: frozenset[str] = DEFAULT_DATACLASS_DECORATORS,
                 store: Any = None):
        self.facts = facts
        self.versions: dict[str, str] = {}
        pkgs = facts.get("packages") or {}
        for name, pkg in pkgs.items():
            self.versions[name] = pkg.get("version") or "?"
        if len(pkgs) == 1:  # keep a lazy mapping lazy: no copy
            (self._pkg_name, only), = pkgs.items()
            self.modules: Mapping[str, dict[str, Any]] = only.get("modules") or {}
            self._digest = only.get("digest")
        else:
            self.modules = ChainMap(*[p.get("modules") or {} for p in pkgs.values()])
            self._pkg_name, self._digest = None, None
        self.dataclass_decorators = dataclass_decorators
        self._store = store
        self._derived: dict[str, Any] = {}
        self._cache: dict[str, Symbol | None] = {}

    def derived(self, name: str, build: "Callable[[PackageIndex], Any]", *, by_key: bool = False) -> Any:
        """A whole-package index (built by scanning every module), cached per digest on disk.

        Over demand-driven facts this parses every module first (in parallel); a rule that can
        say which text its answer needs asks `query` instead. `by_key`: a mapping is stored key
        by key and read back lazily (a question asks a few of its keys, not all)."""
        if name in self._derived:
            return self._derived[name]
        value = None
        keyed = self._store is not None and self._digest and self._pkg_name
        if keyed and by_key:
            value = self._store.get_keyed_index(self._pkg_name, self._digest, name)
        if keyed and value is None:
            value = self._store.get_index(self._pkg_name, self._digest, name)
            if by_key and isinstance(value, dict):  # stored whole before: kept key by key from now on
                self._store.put_keyed_index(self._pkg_name, self._digest, name, value)
        if value is None:
            self.prefetch(self.modules)
            value = build(self)
            if keyed and by_key and isinstance(value, dict):
                self._store.put_keyed_index(self._pkg_name, self._digest, name, value)
            elif keyed:
                self._store.put_index(self._pkg_name, self._digest, name, value)
        self._derived[name] = value
        return value

    # -- demand-driven facts (drift/model/demand.py) ----------------------------------------------------
    @property
    def demand(self) -> bool:
        """Whether modules are parsed on first access (a tree on disk) rather than all present."""
        return hasattr(self.modules, "mentioning")

    @property
    def from_sources(self) -> bool:
        """Whether the modules are read from their sources here (drift.model.demand.TreeModules): only
        then can a question read outlines, method spans or scoped views without asking a host."""
        return hasattr(self.modules, "scoped")

    def modules_mentioning(self, needle: "Needle") -> list[str]:
        """Modules whose source can match `needle` (`word`, `call_of`, `def_of`), in module order: a text search of the
        sources when facts are demand-driven, or when facts came whole (the store) for a release
        whose files are on this machine (`source_search`, kept per digest, in the facts' own
        module order); every module when drift does not have the sources (a host's reply, a
        snapshot).

        Why the search over whole facts: a warm check reads the target from the store, and a
        question asked of every module decodes every module (vllm-ascend 0.18 against vLLM 0.23:
        DRIFT004's sibling stubs alone decoded 7.7 MB of vLLM's facts for one `def_of`); a needle
        matches every module that can contribute to its answer, so the rest are never read."""
        if self.demand:
            if self.from_sources:
                return list(self.memo("mentioning", _needle_key(needle), lambda: self.modules.mentioning(needle)))
            return self.modules.mentioning(needle)
        if self._local_root() is not None:
            hits = set(self.source_search(needle))
            return [name for name in self.modules if name in hits]
        return list(self.modules)

    @property
    def has_sources(self) -> bool:
        """Whether the package's source text is at hand: demand-driven facts, or facts that came
        whole for a release whose files (a tree or a pack) are on this machine; a host's reply
        brings none."""
        return self.demand or self._local_root() is not None

    def source_search(self, needle: "Needle") -> list[str]:
        """Modules whose source text matches `needle`, for a question facts cannot answer (a
        pattern over the text itself); [] without sources (`has_sources`). Facts that came
        whole read the release's files through drift.model.demand, as a check reads them, once."""
        if self.demand:
            return self.modules_mentioning(needle)
        if self._local_root() is None:
            return []
        return list(self.memo("mentioning", _needle_key(needle), lambda: self._whole_sources().mentioning(needle)))

    def module_text(self, name: str) -> bytes | None:
        """The source bytes of module `name` where the package's files are at hand (demand-driven
        facts, or whole facts of a release on this machine), else None: for a question only the
        text answers (how the target rewrote a line of its own, drift.analysis.own_expressions)."""
        tree = self.modules if self.demand and self.from_sources else self._whole_sources() if self.has_sources else None
        return tree.source(name) if hasattr(tree, "source") else None

    def writes_quoted(self, name: str) -> bool:
        """Whether the package's text writes `name` between quote marks (`"name"`, `'name'`)
        somewhere: `bool(source_search(...))` of a `["']name["']` needle, the same answer.

        Why: over facts that came whole (a warm check) each such search read the release's every
        file, ~0.15-0.3 s of CPU per check; the set of every quoted identifier
        (drift.model.demand.TreeModules.quoted_words) is stored per digest instead, so a later
        check reads ~170 KB whatever names its consumer asks. Over demand-driven facts (a cold
        check) the needle runs as before: the text it reads is the one the other questions read."""
        word = name.encode()
        if self.demand or not name.isascii() or not _QUOTABLE.fullmatch(word):
            quoted = re.compile(rb"[\"']%s[\"']" % re.escape(word))
            return bool(self.source_search(Needle(word, quoted)))
        words = self.__dict__.get("_quoted_words")
        if words is None:
            keyed = self._store is not None and self._digest and self._pkg_name
            words = self._store.get_index(self._pkg_name, self._digest, _QUOTED_INDEX) if keyed else None
            if type(words) is not frozenset:
                sources = self._whole_sources()
                if sources is None:
                    return False  # as source_search: no sources, no match
                words = sources.quoted_words()
                if keyed:
                    self._store.put_index(self._pkg_name, self._digest, _QUOTED_INDEX, words)
            self.__dict__["_quoted_words"] = words
        return word in words

    def text_known(self) -> bool:
        """Whether `writes_quoted` reads the release's text (demand-driven facts, or sources on
        this machine): a False from it then means the text never quotes the name, not that no
        text was there to search."""
        return bool(self.demand) or self._whole_sources() is not None

    def stored_attribute_names(self) -> frozenset[str]:
        """Every attribute name the package's text assigns on some object (`x.name = ...`),
        over facts that came whole: one pass, stored per digest (as `writes_quoted`'s set), so
        asking it for many names costs one read of the release. Empty without sources."""
        keyed = self._store is not None and self._digest and self._pkg_name
        hit = self.__dict__.get("_stored_attrs")
        if hit is None and keyed:
            got = self._store.get_index(self._pkg_name, self._digest, _STORED_INDEX)
            hit = got if type(got) is frozenset else None
        if hit is None:
            sources = self._whole_sources()
            texts = sources._search_text().values() if sources is not None else ()
            hit = frozenset(m.decode() for text in texts for m in _STORED_ATTR.findall(text))
            if keyed and sources is not None:
                self._store.put_index(self._pkg_name, self._digest, _STORED_INDEX, hit)
        self.__dict__["_stored_attrs"] = hit
        return hit

    def _whole_sources(self):
        """The release's files read as drift.model.demand reads them (once), for facts that came
        whole; None when they are not on this machine."""
        if "_sources" not in self.__dict__:
            root = self._local_root()
            if root is None:
                self.__dict__["_sources"] = None
            else:
                from drift.model.demand import package_facts

                self.__dict__["_sources"] = package_facts(root, self._pkg_name, cache=None)["modules"]
        return self.__dict__["_sources"]

    def _local_root(self) -> str | None:
        if "_root_dir" not in self.__dict__:
            root = ((self.facts.get("target") or {}).get("root")) if isinstance(self.facts, dict) else None
            if root and self._pkg_name:
                from drift.model.demand import has_package

                root = root if has_package(root, self._pkg_name) else None
            self.__dict__["_root_dir"] = root if root and self._pkg_name else None
        return self.__dict__["_root_dir"]

    @property
    def outline(self) -> "PackageIndex":
        """This package read as class outlines (drift/model/outline.py: classes, bases, the methods
        they define, functions, imports), for questions that need no more: which classes
        define `m`, what a class's bases and direct methods are. Lookups and `mro` work as
        here and give the same answers; a read of anything an outline does not hold parses
        that module. Over facts that came whole it is this index itself.

        Why: DRIFT040's family question reads ~270 model modules; reading their outlines costs
        a tenth of parsing them."""
        if not self.demand or not hasattr(self.modules, "outline"):
            return self
        ix = self.__dict__.get("_outline")
        if ix is None:
            from drift.model.demand import OutlineModules

            (name, pkg), = self.facts["packages"].items()
            ix = PackageIndex({"packages": {name: {**pkg, "modules": OutlineModules(self.modules)}}},
                              dataclass_decorators=self.dataclass_decorators, store=self._store)
            ix.__dict__["_memo"] = self.__dict__.setdefault("_memo", {})  # one answer per question
            self.__dict__["_outline"] = ix
        return ix

    def prefetch(self, names: Iterable[str]) -> None:
        """Parse `names` now, together (the probe's workers), instead of one by one on access."""
        if self.demand:
            self.modules.load(names)

    def memo(self, name: str, key: str, compute: "Callable[[], Any]") -> Any:
        """One answer of a question about this package, computed once per digest and key."""
        memo = self.__dict__.setdefault("_memo", {})
        if (name, key) in memo:
            return memo[(name, key)]
        suffix = f"q-{name}-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}"
        keyed = self._store is not None and self._digest and self._pkg_name
        hit = self._store.get_index(self._pkg_name, self._digest, suffix) if keyed else None
        if type(hit) is tuple and len(hit) == 2 and hit[0] == key:
            value = hit[1]
        else:
            value = compute()
            if keyed:
                self._store.put_index(self._pkg_name, self._digest, suffix, (key, value))
        memo[(name, key)] = value
        return value

    def query(self, name: str, key: str, *, needle: "Needle",
              build: "Callable[[PackageIndex, Iterable[str]], Any]", default: Any = None,
              scoped: bool = False) -> Any:
        """`build(index, modules)[key]` of a whole-package index, parsing only what can hold it.

        `build` scans the modules it is given and returns a mapping (answer: the key's value)
        or a collection (answer: whether the key is in it). `needle` must match the source of
        every module that contributes to the key's answer, so the answer over the modules
        that mention it equals the answer over all. Facts that came whole answer from the
        whole-package index, exactly as `derived` does.

        `scoped`: `build` reads only the facts of functions and methods, and a function
        contributes to the key only where its own text holds `needle.literal` (an assert on
        `x.attr`, a call `C(...)`). Over sources on disk `build` then gets each module with
        only those functions (`TreeModules.scoped`), which are parsed by themselves rather than
        with their module."""
        if not self.demand:
            return _answer(self.derived(name, lambda ix: build(ix, ix.modules), by_key=True), key, default)

        def compute() -> Any:
            names = self.modules_mentioning(needle)
            if scoped and self.from_sources:
                return _answer(build(_Scoped(self, needle.literal), names), key, default)
            self.prefetch(names)
            return _answer(build(self, names), key, default)

        return self.memo(name, key, compute)

    # -- lookup -------------------------------------------------------------------------------
    def lookup(self, dotted: str, _depth: int = 0) -> Symbol | None:
        if dotted in self._cache:
            return self._cache[dotted]
        self._cache[dotted] = None  # cycle guard
        result = self._lookup(dotted, _depth)
        self._cache[dotted] = result
        return result

    def _lookup(self, dotted: str, depth: int) -> Symbol | None:
        if depth > 12:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            mod_name = ".".join(parts[:cut])
            mod = self.modules.get(mod_name)
            if mod is None:
                continue
            rest = parts[cut:]
            if not rest:
                return Symbol(mod_name, "module", mod_name, ModuleFacts(mod).path, 1, mod)
            return self._in_module(mod_name, ModuleFacts(mod), rest, depth)
        return None

    def _in_module(self, mod_name: str, mod: ModuleFacts, rest: list[str], depth: int) -> Symbol | None:
        head, tail = rest[0], rest[1:]
        path = mod.path
        cls = mod.classes.get(head)
        if cls is not None:
            sym = Symbol(f"{mod_name}.{head}", "class", mod_name, path, cls.line, cls.raw)
            return self._member(sym, tail, depth) if tail else sym
        fn = mod.functions.get(head)
        if fn is not None:
            return None if tail else Symbol(f"{mod_name}.{head}", "function", mod_name, path, fn.line, fn.raw)
        imp = mod.imports.get(head)
        if imp is not None and imp.target and (not imp.type_checking or "__getattr__" in mod.functions):
            # `if TYPE_CHECKING:` binds nothing at run time, unless a module `__getattr__` serves the
            # name lazily (vllm/__init__.py's `MODULE_ATTRS`)
            target = imp.target + ("." + ".".join(tail) if tail else "")
            if target != f"{mod_name}.{'.'.join(rest)}":
                found = self.lookup(target, depth + 1)
                if found:
                    return found
        # submodule not imported explicitly but present
        sub = f"{mod_name}.{head}"
        if sub in self.modules:
            return self._lookup(".".join([sub] + tail), depth + 1)
        for star in mod.star_imports:
            found = self.lookup(f"{star.target}.{'.'.join(rest)}", depth + 1)
            if found:
                return found
        n = mod.names.get(head) if not tail else None
        if n is not None:
            return Symbol(f"{mod_name}.{head}", "name", mod_name, path, n.line, n.raw)
        return None

    def _member(self, cls: Symbol, tail: list[str], depth: int) -> Symbol | None:
        name, more = tail[0], tail[1:]
        for owner in self.mro(cls):
            node = owner.as_class
            m = node.methods.get(name) if not more else None
            if m is not None:
                return Symbol(f"{owner.dotted}.{name}", "method", owner.module, owner.path, m.line, m.raw, owner)
            n = node.nested.get(name)
            if n is not None:
                sym = Symbol(f"{owner.dotted}.{name}", "class", owner.module, owner.path, n.line, n.raw)
                return self._member(sym, more, depth) if more else sym
        return None

    # -- classes ------------------------------------------------------------------------------
    def resolve_in(self, module: str, text: str) -> Symbol | None:
        """Resolve a name as written in `module` (a base class, a decorator)."""
        text = text.split("[", 1)[0].strip()
        mod = ModuleFacts(self.modules.get(module) or {})
        head, _, tail = text.partition(".")
        if head in mod.classes or head in mod.functions:
            return self.lookup(f"{module}.{text}")
        imp = mod.imports.get(head)
        if imp is not None and imp.target:
            return self.lookup(imp.target + ("." + tail if tail else ""))
        return self.lookup(text)

    def dotted_in(self, module: str, text: str) -> str:
        """The absolute dotted name a source name refers to, resolved or not."""
        head, _, tail = text.partition(".")
        imp = ModuleFacts(self.modules.get(module) or {}).imports.get(head)
        if imp is not None and imp.target:
            return imp.target + ("." + tail if tail else "")
        return text

    def mro(self, cls: Symbol) -> list[Symbol]:
        """The class and its resolvable bases, depth-first left-to-right without repeats.
        Memoised per class (the list is shared: never change it): a check asks for the same
        classes' MROs thousands of times (vllm_ascend: 7,776 walks of ~300 classes)."""
        memo = self.__dict__.setdefault("_mro_memo", {})
        hit = memo.get(cls.dotted)
        if hit is None or hit[0] is not cls.facts:
            hit = memo[cls.dotted] = (cls.facts, self._mro(cls))
        return hit[1]

    def _mro(self, cls: Symbol) -> list[Symbol]:
        seen: list[Symbol] = []
        stack = [cls]
        while stack:
            c = stack.pop(0)
            if any(s.dotted == c.dotted for s in seen) or len(seen) > 40:
                continue
            seen.append(c)
            bases = []
            for base in c.as_class.bases:
                b = self.resolve_in(c.module, base)
                if b is not None and b.kind == "class":
                    bases.append(b)
            stack = bases + stack
        return seen

    def is_typeddict(self, cls: Symbol) -> bool:
        """A TypedDict (or a subclass of one): at run time a plain dict, whatever keys it is given."""
        for owner in self.mro(cls):
            node = owner.as_class
            if node.kind == "typeddict":
                return True
            if any(b.split("[", 1)[0].strip().rsplit(".", 1)[-1] == "TypedDict" for b in node.bases):
                return True
        return False

    def is_dataclass_like(self, cls: Symbol) -> bool:
        node = cls.as_class
        if node.kind in ("dataclass", "pydantic", "namedtuple", "typeddict"):
            return True
        for owner in self.mro(cls)[1:]:  # fields of a pydantic model's subclass are fields too
            if owner.as_class.kind in ("pydantic", "namedtuple", "typeddict"):
                return True
        for base in node.bases:
            if self.dotted_in(cls.module, base.split("[", 1)[0]) in FIELD_BASES:
                return True
        for dec in node.decorators:
            if dec in self.dataclass_decorators or dec.split(".")[-1] == "dataclass":
                return True
            if self.dotted_in(cls.module, dec) in self.dataclass_decorators:
                return True
        return False

    def forbids_extra(self, cls: Symbol) -> bool:
        """Whether unknown keywords raise (pydantic `extra="forbid"`) rather than being dropped."""
        for owner in self.mro(cls):
            node = owner.as_class
            if any("forbid" in o for o in node.options):
                return True
            model_config = node.attrs.get("model_config")
            if model_config is not None and "forbid" in (model_config.value or ""):
                return True
            if any(d == "config" and "vllm" in owner.module for d in node.decorators):
                return True  # vLLM's @config merges ConfigDict(extra="forbid") into every config class
        return False

    def is_pydantic(self, cls: Symbol) -> bool:
        """A pydantic model, directly or through its bases (vLLM's OpenAIBaseModel subclasses)."""
        for owner in self.mro(cls):
            node = owner.as_class
            if node.kind == "pydantic":
                return True
            if any("pydantic" in self.dotted_in(owner.module, d) or d == "config" and "vllm" in owner.module
                   for d in node.decorators):
                return True
        return False

    def constructor(self, cls: Symbol) -> tuple[list[Param], Symbol | None]:
        """Constructor parameters (without self) and the symbol they come from."""
        chain = self.mro(cls)
        for owner in chain:
            init = owner.as_class.methods.get("__init__")
            if init is not None and owner is not chain[-1] and _passes_through(init):
                continue  # `__init__(self, *args, **kwargs): super().__init__(*args, **kwargs)`: the base's takes them
            if init is not None:
                sym = Symbol(f"{owner.dotted}.__init__", "method", owner.module, owner.path, init.line, init.raw, owner)
                params = init.params  # resolved on each read: once here
                return params[1:] if init.takes_self else params, sym
            if self.is_dataclass_like(owner):
                return self._fields_as_params(chain), owner
        return [], None

    def _fields_as_params(self, chain: list[Symbol]) -> list[Param]:
        ordered: dict[str, Param] = {}
        for owner in reversed(chain):
            if not self.is_dataclass_like(owner):
                continue
            for f in owner.as_class.fields:
                if f.classvar or not f.init:
                    continue
                ordered[f.name] = Param(
                    name=f.name, kind="KEYWORD_ONLY" if f.kw_only else "POSITIONAL_OR_KEYWORD",
                    required=not f.has_default, default=f.default, annotation=f.annotation,
                    line=f.raw.get("line", owner.line), source="initvar" if f.initvar else "field",
                )
        return list(ordered.values())

    # -- search -------------------------------------------------------------------------------
    def definitions_named(self, name: str) -> list[str]:
        """Dotted names of every class/function/constant defined with this name (for 'moved to').

        Over sources on disk the modules that mention the name are read as outlines: a class
        or function is there, and an assigned name is looked for only where the text can bind
        it (`drift.model.outline.may_bind`), so a module is parsed only when it may assign the name.
        Over a host's package the host answers `defines(name)` the same way, there, and sends
        the modules it names. The answer (and its stored key) is `_names_index`'s for that name."""
        if self.from_sources:  # never a host's modules, one exchange a module
            return self.memo("names", name, lambda: _defined_as(self, name))
        return self.query("names", name, needle=defines(name), build=_names_index, default=[])

    def iter_classes(self, modules: Iterable[str] | None = None) -> Iterator[Symbol]:
        """Top-level classes of every module, or of `modules` (names, in the order given)."""
        for mod_name in self.modules if modules is None else modules:
            mod = ModuleFacts(self.modules[mod_name])
            for name, c in mod.classes.items():
                yield Symbol(f"{mod_name}.{name}", "class", mod_name, mod.path, c.line, c.raw)

    # -- whole-surface queries (diff) -----------------------------------------------------------
    # `drift diff` walks every module of two snapshots; these answer its questions with the same
    # resolution rules `drift check` uses (re-exports, star imports, submodules, MRO).
    @classmethod
    def of_package(cls, name: str, pkg: dict[str, Any], **kwargs: Any) -> "PackageIndex":
        """An index over one package's facts (`packages[name]` of a facts document)."""
        return cls({"packages": {name: pkg}}, **kwargs)

    def defined_in(self, module: str, name: str) -> Symbol | None:
        """A top-level class, function or name that `module` defines itself (not one it imports)."""
        mod = self.modules.get(module)
        if mod is None:
            return None
        facts = ModuleFacts(mod)
        for table, kind in ((facts.classes, "class"), (facts.functions, "function"), (facts.names, "name")):
            node = table.get(name)
            if node is not None:
                return Symbol(f"{module}.{name}", kind, module, facts.path, node.line or 1, node.raw)
        return None

    def binds(self, module: str, name: str) -> bool:
        """Whether `from module import name` still works: a definition, an import (of anything,
        external too), a star import that provides it, or a submodule."""
        mod = self.modules.get(module)
        if mod is None:
            return False
        facts = ModuleFacts(mod)
        if name in facts.classes or name in facts.functions or name in facts.names or name in facts.imports:
            return True
        return self.lookup(f"{module}.{name}") is not None

    def served_by_getattr(self, module: str, name: str) -> bool:
        """Whether `module`'s PEP 562 `__getattr__` names `name` (a deprecation shim: vLLM 0.13's
        `vllm.entrypoints.openai.tool_parsers` serves `ToolParserManager` from its new home), so
        `from module import name` works there though nothing defines it."""
        raw = self.modules.get(module)
        if raw is None:
            return False
        facts = ModuleFacts(raw)
        return "__getattr__" in facts.functions and name in set(facts.getattr_names or ())

    def definitions_of(self, name: str, kinds: tuple[str, ...] = ("class", "function")) -> list[Symbol]:
        """Every top-level definition called `name`, of one of `kinds` (candidates for 'moved to')."""
        out = []
        for dotted in self.definitions_named(name):
            sym = self.defined_in(dotted.rpartition(".")[0], name)
            if sym is not None and sym.kind in kinds:
                out.append(sym)
        return out

    def class_member(self, cls: Symbol, name: str) -> Symbol | None:
        """What `cls.name` is through the MRO: a method (properties included), nested class,
        field or class attribute. Instance attributes are `instance_attrs`' business."""
        for owner in self.mro_of(cls):
            facts = owner.as_class
            node: Record | None = facts.methods.get(name)
            if node is not None:
                return Symbol(f"{owner.dotted}.{name}", "method", owner.module, owner.path, node.line, node.raw, owner)
            node = facts.nested.get(name)
            if node is not None:
                return Symbol(f"{owner.dotted}.{name}", "class", owner.module, owner.path, node.line, node.raw, owner)
            node = facts.field(name)
            if node is not None:
                return Symbol(f"{owner.dotted}.{name}", "field", owner.module, owner.path,
                              node.raw.get("line") or owner.line, node.raw, owner)
            node = facts.attrs.get(name)
            if node is not None:
                return Symbol(f"{owner.dotted}.{name}", "attribute", owner.module, owner.path,
                              node.raw.get("line") or owner.line, node.raw, owner)
        return None

    def mro_of(self, cls: Symbol) -> list[Symbol]:
        """`mro(cls)` (memoised there; the name `drift diff` and the rules call it by)."""
        return self.mro(cls)

    def instance_attrs(self, cls: Symbol) -> dict[str, tuple[Symbol, InstanceAttr]]:
        """attr -> (the class in the MRO that sets it on `self`, its facts), nearest class first."""
        memo = self.__dict__.setdefault("_instance_attrs_memo", {})
        hit = memo.get(cls.dotted)
        if hit is not None and hit[0] is cls.facts:
            return hit[1]
        out: dict[str, tuple[Symbol, InstanceAttr]] = {}
        for owner in self.mro_of(cls):
            for attr, info in owner.as_class.instance_attrs.items():
                out.setdefault(attr, (owner, info))
        memo[cls.dotted] = (cls.facts, out)
        return out

    def provides(self, cls: Symbol, name: str) -> bool:
        """Whether an instance of `cls` has `name`: set on self anywhere in the MRO, or declared
        (field, class attribute, method, property, nested class)."""
        return name in self.instance_attrs(cls) or self.class_member(cls, name) is not None

    def subclass_count(self, dotted: str) -> int:
        """How many classes of the package have `dotted` in their MRO (itself excluded)."""
        return self.derived("subclass_counts", _subclass_counts).get(dotted, 0)


class _Scoped:
    """An index whose `modules` are `TreeModules.scoped` views for one literal; anything else
    is the index's own (a scoped builder reads functions' facts and may resolve names)."""

    def __init__(self, index: PackageIndex, literal: bytes):
        from drift.model.demand import OutlineModules

        self._index = index
        self.modules = OutlineModules(index.modules, literal)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._index, attr)


def _answer(value: Any, key: str, default: Any) -> Any:
    if isinstance(value, Mapping):
        return value.get(key, default)
    return key in value


# Needles for `PackageIndex.query`: each matches wherever the parser could have produced the fact.
_ID = _patterns.ID.encode()  # the host probe runs the same patterns (probes/closure.py)


@dataclass(frozen=True)
class Needle:
    """A text pattern with the literal every match contains: `literal in source` (memmem speed)
    rules out most modules before the pattern runs (a leading look-behind defeats the regex
    engine's own literal scan: ~0.3 s over 18 MB instead of ~10 ms).

    `pattern` is the whole test (a host probe runs it as it is). `after` is the same test
    starting at the literal, so the engine scans for the literal itself, with the look-behind
    checked by hand at each hit: an identifier boundary, then, for `def_of`, `behind` matching
    the text just before. Over the ~80 modules that hold the literal this is ~10x faster."""

    literal: bytes
    pattern: Pattern[bytes]
    after: "Pattern[bytes] | None" = field(default=None, compare=False)
    behind: "Pattern[bytes] | None" = field(default=None, compare=False)

    def search(self, text: bytes) -> bool:
        if self.literal not in text:
            return False
        if self.after is None:
            return self.pattern.search(text) is not None
        for m in self.after.finditer(text):
            s = m.start()
            if s and text[s - 1] in _IDENT_BYTES:
                continue
            if self.behind is None:
                return True
            window = text[max(0, s - _BEHIND):s]
            if self.behind.search(window) is not None:
                return True
            if s > _BEHIND and not window.strip(b" \t\n\r\f\v\\"):
                return True  # more blanks than the window holds: say yes (a needle may over-match)
        return False


_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_BEHIND = 256


class _Lazy:
    """A compiled pattern that compiles on first use: a warm check asks `query` hundreds of
    questions whose answers are stored, and their needles never search (vllm_ascend: 733
    needles, ~0.1 s of `re.compile` for nothing). Reads as the `re.Pattern` it stands for."""

    __slots__ = ("pattern", "_re")

    def __init__(self, source: bytes):
        self.pattern = source
        self._re = None

    def _compiled(self) -> "Pattern[bytes]":
        if self._re is None:
            self._re = re.compile(self.pattern)
        return self._re

    def search(self, *args):
        return self._compiled().search(*args)

    def finditer(self, *args):
        return self._compiled().finditer(*args)

    @property
    def flags(self) -> int:
        return self._compiled().flags

    def __eq__(self, other) -> bool:
        if isinstance(other, (_Lazy, re.Pattern)):
            return self.pattern == other.pattern and self.flags == other.flags
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.pattern)


def _needle(name: str, before: bytes = b"", after: bytes = b"", behind: bytes = b"") -> Needle:
    lit = name.encode("utf-8", "surrogateescape")
    return Needle(lit, _Lazy(before + _ID % re.escape(lit) + after),
                  _Lazy(re.escape(lit) + rb"(?![A-Za-z0-9_])" + after),
                  _Lazy(behind + rb"\Z") if behind else None)


def _needle_key(needle: Needle) -> str:
    """What a text search's answer depends on besides the package's text: every pattern of the
    needle, by its source (a `_Lazy` is not compiled for it) and flags.

    Why: `PackageIndex.modules_mentioning` keeps each answer per package digest (`memo`), as
    `query` keeps its answers: a release's text never changes under its digest, and a check of
    vllm-ascend 0.18 against vLLM 0.23 asks ~470 searches (DRIFT070's built-only-for-replaced
    test alone ~430 call-site searches), whose scans, regex compiles and word index (~1.5 s of
    CPU) a later check then skips."""
    def src(p: Any) -> str:
        if p is None:
            return "-"
        if isinstance(p, _Lazy):
            return repr(p.pattern)
        return f"{p.pattern!r}/{p.flags}"
    return "\0".join((repr(needle.literal), src(needle.pattern), src(needle.after), src(needle.behind)))


def word(name: str) -> Needle:
    """`name` as an identifier (a definition, an attribute, a keyword)."""
    return _needle(name)


def call_of(name: str) -> Needle:
    """A call of `name` or `x.name`: between the name and `(` only blanks, line continuations,
    comments and the `)` of a parenthesised callee can stand."""
    return _needle(name, after=_patterns.CALL_AFTER.encode())


def reference_of(name: str) -> Needle:
    """`x.name` read and not called there (`executor.submit(self.name, ...)`, `hook=self.name`):
    the method handed on as a value, for a caller drift's call sites do not show."""
    return _needle(name, before=rb"\.", after=rb"(?!\s*\()", behind=rb"\.")


def def_of(name: str) -> Needle:
    """`def name` (or `async def name`), however it is spaced."""
    return _needle(name, before=_patterns.DEF_BEFORE.encode(), behind=_patterns.DEF_BEFORE.encode())


def base_of(name: str) -> Needle:
    """A `class X(..., name, ...)` statement: a class written with `name` among its bases."""
    return _needle(name, before=rb"class\s+\w+\s*\([^)]*", behind=rb"class\s+\w+\s*\([^)]*")


def defines(name: str) -> Needle:
    """The modules that define `name` at their top: as a text search, the word (a superset);
    a host probe answers it exactly (probes/closure.py `defines`), so `definitions_named` over
    a host's package reads those modules only."""
    return _needle(name, after=_patterns.DEFINES_MARK.encode())


def _names_index(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[str]]:
    idx: dict[str, list[str]] = {}
    for mod_name in index.modules if modules is None else modules:
        mod = index.modules[mod_name]
        for kind in ("classes", "functions", "names"):
            for n in mod.get(kind) or {}:
                idx.setdefault(n, []).append(f"{mod_name}.{n}")
    return idx


def _defined_as(index: PackageIndex, name: str) -> list[str]:
    """`_names_index(index, modules mentioning name)[name]`, read from outlines."""
    outlines = index.outline.modules
    out = []
    for mod_name in index.modules_mentioning(word(name)):
        mod = outlines[mod_name]
        for kind in ("classes", "functions", "names"):
            if name in (mod.get(kind) or {}):
                out.append(f"{mod_name}.{name}")
    return out


def _subclass_counts(index: PackageIndex) -> dict[str, int]:
    """dotted class -> number of classes that inherit from it (one MRO walk per class)."""
    counts: dict[str, int] = {}
    for cls in index.iter_classes():
        for base in index.mro_of(cls)[1:]:
            counts[base.dotted] = counts.get(base.dotted, 0) + 1
    return counts


def classes_in(index: "PackageIndex", modules) -> Iterator[tuple[str, ModuleFacts, str, Any]]:
    """(module name, its facts, dotted, class facts) of every class `modules` define, nested
    classes included: the walk rules make when they index what the target's classes hold or return."""
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        stack = [(f"{mod_name}.{n}", c) for n, c in mod.classes.items()]
        while stack:
            dotted, c = stack.pop()
            stack.extend((f"{dotted}.{n}", sub) for n, sub in c.nested.items())
            yield mod_name, mod, dotted, c


def functions_in(index: "PackageIndex", modules) -> Iterator[tuple[str, ModuleFacts, str | None, Any]]:
    """(module name, its facts, owning class's dotted name or None, function facts) of every
    function and method `modules` define, nested classes' methods included: the walk rules make
    when they index what the target's functions do."""
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.functions.values():
            yield mod_name, mod, None, fn
        stack = [(f"{mod_name}.{n}", c) for n, c in mod.classes.items()]
        while stack:
            dotted, c = stack.pop()
            for m in c.methods.values():
                yield mod_name, mod, dotted, m
            stack.extend((f"{dotted}.{n}", sub) for n, sub in c.nested.items())


def _passes_through(init) -> bool:
    """Whether an `__init__` takes only `*args, **kwargs` and hands both, untouched, to
    `super().__init__(*args, **kwargs)`: what its class accepts is what the next `__init__` in the
    MRO accepts (vLLM's `ServingEmbedding(PoolingServing)` over `PoolingServingBase`), so a call
    is judged against that one, not against a signature that takes anything."""
    params = init.params
    params = params[1:] if init.takes_self else params
    if [p.kind for p in params] != ["VAR_POSITIONAL", "VAR_KEYWORD"]:
        return False
    return any(f.callee == "super().__init__" and f.star_args and not f.positional and not f.keywords
               and not f.drops and not f.adds for f in init.behaviour.kwargs_into)
