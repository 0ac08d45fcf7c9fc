"""Demand-driven facts of a package directory: a mapping that parses a module on first access.

A check of speculators against vLLM reads a few hundred of its 1,359 modules; parsing all of
them (~2.5 s of `ast.parse` and fact extraction) is most of a cold check. Here a package on
disk becomes `TreeModules`: every file is hashed up front (18 MB of sha256 is ~40 ms), so the
package digest is the very digest the whole-package probe computes, but a module is parsed
only when a rule or a lookup reads it. Whole-package questions ("which modules can contain a
call `.apply(`") are answered by a plain-text search of the sources first (`mentioning`), so
only the modules that can hold the answer get parsed, in parallel by the probe's own workers.

Parsed modules are cached by file content: `<cache>/modules/<sha[:2]>/<sha>-<relpath hash>.<tag>`
(facts name the module, so the relative path is part of the key). Another tree, or another
release, holding the same file at the same place reuses it. Each tree also keeps a small
`relpath -> (size, change stamp, sha256)` index so an unchanged tree is not even re-hashed (the
stamp adds ctime, device and inode to the mtime: a file rewritten with its old size and mtime
is hashed again).
"""

from __future__ import annotations

import contextvars
import hashlib
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable

from drift.probes.ast_facts import FACTS_VERSION, empty_module, function_facts, last_segment
from drift.probes.closure import search_text
from drift.probes.collect import MAX_FILE_BYTES, _parse_all, _read, digest_of, gc_paused
from drift.probes.distinfo import dist_for
from drift.probes.locate import module_name, stat_entries
from drift.sources.pack import Pack, pack_path

_WORD = re.compile(rb"[A-Za-z0-9_]+")  # the characters of `TreeModules.quoted_words` and of the word index

_TAG = f"f{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}"


def _outline():
    """drift.model.outline, imported when a module is first outlined: its patterns cost ~4 ms to
    compile, and a warm check reads every module from the cache and never outlines one."""
    from drift.model import outline

    return outline


class ModuleCache:
    """Module facts keyed by (file content, relative path), shared by every tree and release."""

    def __init__(self, root: Path):
        self.root = root
        self._dirs: set[Path] = set()  # made already: one mkdir per shard, not per module

    def _path(self, sha: str, rel: str) -> Path:
        where = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return self.root / sha[:2] / f"{sha[:40]}-{where}.{_TAG}"

    def get(self, sha: str, rel: str) -> dict | None:
        try:
            facts = marshal.loads(self._path(sha, rel).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        return facts if type(facts) is dict and facts.get("sha256") == sha and facts.get("path") == rel else None

    def put(self, sha: str, rel: str, facts: dict) -> None:
        path = self._path(sha, rel)
        try:
            if path.parent not in self._dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._dirs.add(path.parent)
            _atomic_write(path, marshal.dumps(facts), mkdir=False)
        except (OSError, ValueError):
            pass  # a cache that cannot be written only costs the next run a parse

    def load_index(self, root: str, package: str) -> dict:
        try:
            data = marshal.loads(self._index_path(root, package).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if type(data) is not dict or data.get("root") != root or type(data.get("files")) is not dict:
            return {}
        return data["files"]

    def store_index(self, root: str, package: str, files: dict) -> None:
        try:
            _atomic_write(self._index_path(root, package), marshal.dumps({"root": root, "files": files}))
        except (OSError, ValueError):
            pass

    def _index_path(self, root: str, package: str) -> Path:
        key = hashlib.sha256(f"{root}\0{package}".encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return self.root / "trees" / f"{package}-{key}.{_TAG}"


class Stopped(BaseException):
    """A head start told to stop (`stoppable`): raised at its next read of a module. A
    BaseException, so the rule engine's per-rule `except Exception` lets it through."""


_STOP: contextvars.ContextVar = contextvars.ContextVar("drift_demand_stop", default=None)


@contextmanager
def stoppable(event: Any):
    """Reads of `TreeModules` in this thread (parses, outlines, methods, text searches) raise
    `Stopped` once `event` is set. Why: a scan's baseline warm-up is a head start while the
    host probes; for a consumer that reaches most of vLLM it is a whole check (~6 s for
    vllm-omni), and the scan waited for it after the host had replied. Stopped at a read, it
    leaves what it parsed and stored for the real check, and no half-built answer (a memo
    whose compute raised stores nothing)."""
    token = _STOP.set(event)
    try:
        yield
    finally:
        _STOP.reset(token)


def _check_stop() -> None:
    event = _STOP.get()
    if event is not None and event.is_set():
        raise Stopped()


class TreeModules(Mapping):
    """module name -> facts for one package directory, each parsed (or read from the module
    cache) the first time it is asked for. Iteration order is the whole-package probe's
    (sorted names), so a question answered over a subset visits modules in the same order."""

    def __init__(self, rows: dict[str, list], cache: ModuleCache | None, sources: dict[str, bytes]):
        self._rows = rows  # name -> [rel, path, sha or None, error or None]
        self._cache = cache
        self._sources = sources  # rel -> bytes read while hashing (others read when searched)
        self._done: dict[str, dict] = {}
        self._text: dict[str, bytes] | None = None
        self._words: dict[bytes, set[str]] | None = None  # identifier -> modules writing it (built on demand)
        self._word_asks = 0
        self._outlines: dict[str, dict] = {}
        self.parsed = 0  # modules parsed in this process (tests count them)
        self.from_cache = 0
        self.outlined = 0  # modules read by drift.model.outline instead of parsed
        self.alone = 0  # methods parsed by themselves (drift.model.outline.method_alone)
        self._methods: dict[tuple, dict] = {}
        self._placed: dict[str, tuple[bytes, dict]] = {}  # outlined module -> (source, method spans)

    def __getitem__(self, name: str) -> dict:
        hit = self._done.get(name)
        if hit is None:
            if name not in self._rows:
                raise KeyError(name)
            self.load((name,))
            hit = self._done[name]
        return hit

    def __contains__(self, name: object) -> bool:
        return name in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def load(self, names: Iterable[str]) -> None:
        """Make `names` available: from the module cache, else parsed by the probe's forked
        workers when there are enough of them to be worth a fork."""
        _check_stop()
        jobs = {}
        for name in names:
            if name in self._done or name in jobs or name not in self._rows:
                continue
            rel, path, sha, error = self._rows[name]
            if error is not None:
                self._done[name] = empty_module(rel, sha256=None, is_package=rel.endswith("__init__.py"), error=error)
                continue
            if sha is not None and self._cache is not None:
                hit = self._cache.get(sha, rel)
                if hit is not None:
                    self._done[name] = hit
                    self.from_cache += 1
                    continue
            source = self._source(rel, path)
            if type(source) is str:  # unreadable now
                self._done[name] = empty_module(rel, sha256=None, is_package=rel.endswith("__init__.py"), error=source)
                continue
            jobs[name] = (name, rel, sha, source)
        if not jobs:
            return
        by_rel = {job[1]: job for job in jobs.values()}
        with gc_paused():
            parsed = _parse_all(list(jobs.values()), workers=None)
        for chunk, _blob in parsed:
            for rel, facts in chunk.items():
                name = by_rel[rel][0]
                self._done[name] = facts
                self.parsed += 1
                if self._cache is not None and facts.get("sha256"):
                    self._cache.put(facts["sha256"], rel, facts)

    def source(self, name: str) -> bytes | None:
        """Module `name`'s source bytes (None for one that could not be read, or a name not here)."""
        row = self._rows.get(name)
        if row is None or row[3] is not None:
            return None
        src = self._source(row[0], row[1])
        return src if isinstance(src, bytes) else None

    def _source(self, rel: str, path: str) -> bytes | str:
        src = self._sources.get(rel)
        if src is None:
            src = _read(path, 0, MAX_FILE_BYTES + 1)
        return src

    def outline(self, name: str) -> dict:
        """The module's class outline (drift/model/outline.py), or its facts when they are loaded
        already, in the module cache, or the outline cannot be trusted. Every key the outline
        does not hold reads the parsed module (parsed then): it is never a wrong answer, only
        a later parse."""
        _check_stop()
        hit = self._done.get(name) or self._outlines.get(name)
        if hit is not None:
            return hit
        rel, path, sha, error = self._rows[name]
        if error is None and sha is not None and self._cache is not None:
            full = self._cache.get(sha, rel)
            if full is not None:
                self._done[name] = full
                self.from_cache += 1
                return full
        source = self._source(rel, path) if error is None else None
        if type(source) is not bytes:
            return self[name]
        text = _outline().masked(source)
        spans: dict = {}
        found = _outline().outline(source, module=name, path=rel, text=text, spans=spans) if text is not None else None
        if found is None:
            return self[name]
        self.outlined += 1
        full = lambda: self[name]  # noqa: E731
        mod = outline_node({**found, "path": rel, "sha256": sha, "is_package": rel.endswith("__init__.py")}, full,
                           _Names(text, lambda: full()["names"]), (self, name, source, spans))
        self._outlines[name] = mod
        self._placed[name] = (source, spans)
        return mod

    def scoped(self, name: str, literal: bytes) -> dict:
        """The module with only the functions and methods whose own text can hold `literal`,
        for a question answered function by function (`PackageIndex.query(scoped=True)`).

        Every occurrence of `literal` in the source is placed in the method span holding it
        (`drift.model.outline`'s spans of top-level classes' methods). When each lies in some span,
        the view holds those methods alone: no other function's text holds the literal, so no
        other function's facts can name it, and the methods are parsed by themselves. When
        one lies outside every span (module level, a top-level function, a nested class, a
        name defined twice), the view also keeps every function the spans cannot place, read
        from the parsed module as before. Parsed facts are returned as they are."""
        mod = self.outline(name)
        placed = self._placed.get(name)
        if type(mod) is not _Partial or placed is None:
            return mod
        source, spans = placed
        inside, loose = set(), False
        at = source.find(literal)
        while at >= 0:
            owner = next((k for k, span in spans.items() if span is not None and span[0] <= at < span[1]), None)
            if owner is None:
                loose = True
            else:
                inside.add(owner)
            at = source.find(literal, at + len(literal))
        classes = {}
        for cname, cls in dict.__getitem__(mod, "classes").items():
            methods = {k: m for k, m in dict.__getitem__(cls, "methods").items()
                       if (cname, k) in inside or loose and spans.get((cname, k)) is None}
            nested = dict.__getitem__(cls, "nested") if loose else {}
            if methods or nested:
                classes[cname] = _Partial({**dict(cls), "methods": methods, "nested": nested}, cls._full)
        functions = dict.__getitem__(mod, "functions") if loose else {}
        return _Partial({**dict(mod), "classes": classes, "functions": functions}, mod._full)

    def _method(self, name: str, cls: str, meth: str, source: bytes, span) -> dict:
        """Facts of `cls.meth` in module `name`: those of the parsed module when it is loaded,
        else the method's span parsed by itself (`drift.model.outline.method_alone`), else the module
        parsed. Kept, so every key read of the outline node costs one parse at most."""
        _check_stop()
        key = (name, cls, meth)
        hit = self._methods.get(key)
        if hit is not None:
            return hit
        done = self._done.get(name)
        got = _outline().method_alone(source, span) if done is None and span is not None else None
        if got is not None:
            node, text = got
            if node.name != meth:
                got = None
            else:
                facts = function_facts(node, text=text, qualprefix=cls + ".", method=True)
                if any(last_segment(d) == "overload" for d in facts["decorators"]):
                    got = None
                else:
                    facts["overloads"] = []  # `_place` of the only def of its name
                    self.alone += 1
        if got is None:  # records, not drift.model.facts views: this layer builds and keeps what the views read
            facts = self[name]["classes"][cls]["methods"][meth]
        self._methods[key] = facts
        return facts

    def mentioning(self, needle) -> list[str]:
        """Names of the modules whose source `needle.search`es true (drift.model.index.Needle), in
        iteration order.

        Identifiers are NFKC-normalised by the parser, so a module with non-ASCII text is
        searched in its normalised form; an unreadable one is never a match (it has no facts).
        """
        _check_stop()
        text = self._search_text()
        among = self._writing(needle.literal) if getattr(needle, "after", None) is not None else None
        if among is not None:
            return [name for name in self._rows if name in among and needle.search(text[name])]
        return [name for name in self._rows if (t := text.get(name)) is not None and needle.search(t)]

    WORD_INDEX_AFTER = 16  # identifier searches (each a scan of every file, ~15 ms on vLLM) before the index (~1.1 s) is built

    def _writing(self, literal: bytes) -> set[str] | None:
        """The modules whose text writes `literal` as a whole identifier, a superset of the
        matches of a needle that holds it as one (`drift.model.index._needle`: an identifier
        boundary on each side); None until enough such searches were asked to build the index.
        Why: one rule asks a call-site search for each of ~430 class names over vLLM's ~1,900
        files (vllm-ascend 0.18 → 0.23: 6 s of `in` scans); the index answers each in a lookup."""
        if not _WORD.fullmatch(literal):
            return None
        if self._words is None:
            self._word_asks += 1
            if self._word_asks <= self.WORD_INDEX_AFTER:
                return None
            words: dict[bytes, set[str]] = {}
            for name, t in self._search_text().items():
                for w in set(_WORD.findall(t)):
                    words.setdefault(w, set()).add(name)
            self._words = words
        return self._words.get(literal, set())

    def quoted_words(self) -> frozenset[bytes]:
        """Every run of identifier characters the package's text writes between two quote marks
        (`'name'`, `"name"`, `'name"`), over the same text `mentioning` searches: whether the
        text quotes an identifier `name` is then `name in` this set, the answer a
        `["']name["']` needle gives over every module. Why: DRIFT070 asks it for each method
        whose callers never run, and over facts that came whole each answer used to read and
        search the release's every file (drift.model.index.PackageIndex.writes_quoted stores
        the set per digest)."""
        to_double = bytes.maketrans(b"'", b'"')
        pieces: set[bytes] = set()
        for text in self._search_text().values():
            pieces.update(text.translate(to_double).split(b'"')[1:-1])  # the first and last piece are outside quotes
        return frozenset(p for p in pieces if _WORD.fullmatch(p))

    def _search_text(self) -> dict[str, bytes]:
        if self._text is None:
            text = {}
            for name, (rel, path, _sha, error) in self._rows.items():
                if error is not None:
                    continue
                src = self._source(rel, path)
                if type(src) is str:
                    continue
                text[name] = search_text(src)
            self._text = text
        return self._text


class OutlineModules(Mapping):
    """The same package as class outlines (`TreeModules.outline`), for questions about which
    classes exist, their bases and which methods they define directly; with `literal`, as
    `TreeModules.scoped` views (only the functions whose text can hold it)."""

    def __init__(self, tree: TreeModules, literal: bytes | None = None):
        self.tree, self.literal = tree, literal

    def __getitem__(self, name: str) -> dict:
        if name not in self.tree:
            raise KeyError(name)
        if self.literal is not None:
            return self.tree.scoped(name, self.literal)
        return self.tree.outline(name)

    def __contains__(self, name: object) -> bool:
        return name in self.tree

    def __iter__(self) -> Iterator[str]:
        return iter(self.tree)

    def __len__(self) -> int:
        return len(self.tree)

    def mentioning(self, needle) -> list[str]:
        return self.tree.mentioning(needle)

    def load(self, names: Iterable[str]) -> None:
        for name in names:
            if name in self.tree:
                self.tree.outline(name)


class _Partial(dict):
    """An outline node: the keys the outline read, every other key from the parsed node."""

    __slots__ = ("_full",)

    def __init__(self, data: dict, full):
        super().__init__(data)
        self._full = full

    def mentions(self, literal: bytes) -> bool | None:
        """Whether the node's own text holds `literal`; None when the outline cannot say."""
        return None

    def whole(self) -> dict:
        """The node as a parse gives it (a plain dict: marshal and `==` read it as the parse's)."""
        return self._full()

    def __getitem__(self, key):
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            return self._full()[key]

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self._full().get(key, default)

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or key in self._full()


class _MethodNode(_Partial):
    """A method of a top-level class in an outline: any other key from the method parsed by
    itself (`TreeModules._method`), so reading one method's facts never parses its module."""

    __slots__ = ("_where",)

    def __init__(self, data: dict, where: tuple):
        dict.__init__(self, data)
        self._where = where  # (tree, module, class, method, source, span or None)

    def _full(self) -> dict:  # noqa: D401 - shadows the slot: computed, not stored
        tree, module, cls, meth, source, span = self._where
        return tree._method(module, cls, meth, source, span)

    def mentions(self, literal: bytes) -> bool | None:
        span, source = self._where[5], self._where[4]
        return None if span is None else source.find(literal, span[0], span[1]) >= 0


def outline_node(rec: dict, full, names: Mapping, top: tuple | None = None) -> _Partial:
    """The outline node of a module: `rec`'s path, hash, classes, functions and imports (an
    outline, read here or sent by a host), `names` for its assigned names, every other key
    from `full()`. `top` = (tree, module, source, spans) when the source is here, so top-level
    classes' methods are read alone (`_partial_class`)."""
    return _Partial({"path": rec["path"], "sha256": rec["sha256"], "is_package": rec.get("is_package", False),
                     "error": None,
                     "classes": {k: _partial_class(v, lambda k=k: full()["classes"][k], top)
                                 for k, v in rec["classes"].items()},
                     "functions": {k: _Partial({"name": v["name"], "line": v["line"]}, lambda k=k: full()["functions"][k])
                                   for k, v in rec["functions"].items()},
                     "imports": rec["imports"], "names": names}, full)


def _partial_class(node: dict, full, top: tuple | None = None) -> _Partial:
    """`top` = (tree, module, source, spans) for a top-level class: its methods are
    `_MethodNode`s (nested classes read their methods from the parsed module)."""
    if top is None:
        methods = {k: _Partial(v, lambda k=k: full()["methods"][k]) for k, v in node["methods"].items()}
    else:
        tree, module, source, spans = top
        cls = node["name"]
        methods = {k: _MethodNode(v, (tree, module, cls, k, source, spans.get((cls, k))))
                   for k, v in node["methods"].items()}
    return _Partial({
        "name": node["name"], "line": node["line"], "bases": node["bases"], "methods": methods,
        "nested": {k: _partial_class(v, lambda k=k: full()["nested"][k]) for k, v in node["nested"].items()},
    }, full)


class _Names(Mapping):
    """A module's assigned names, which the outline does not read: whether one name is bound
    is answered from the masked text when the text cannot bind it (drift.model.outline.may_bind);
    anything else parses the module."""

    def __init__(self, text: bytes, full):
        self._text, self._full = text, full

    def __contains__(self, name: object) -> bool:
        return type(name) is str and _outline().may_bind(self._text, name) and name in self._full()

    def __getitem__(self, name: str):
        return self._full()[name]

    def __iter__(self):
        return iter(self._full())

    def __len__(self) -> int:
        return len(self._full())

    def __bool__(self) -> bool:  # `mod.get("names") or {}` must not parse the module
        return True


def package_facts(root: str, package: str, *, cache: ModuleCache | None,
                  max_file_bytes: int = MAX_FILE_BYTES) -> dict[str, Any]:
    """The per-package object of probes/SCHEMA.md for `root/<package>`, with lazy modules.

    The digest is computed from content exactly as `probes.collect.collect_package` does (a
    file too large or unreadable counts with no hash), so facts stored under it by a whole
    parse and these are interchangeable."""
    root = os.path.abspath(root)
    pack = _pack_of(root, package)
    if pack is not None:
        return _packed_facts(root, package, pack, cache, max_file_bytes)
    entries, errors = stat_entries(root, package)
    index = cache.load_index(root, package) if cache is not None else {}
    rows: dict[str, list] = {}
    sources: dict[str, bytes] = {}
    pairs, new_index = {}, {}
    for rel, path, size, mtime, error in entries:
        name = module_name(rel)
        if error is None and size > max_file_bytes:
            error = "too large: %d bytes" % size
        sha = None
        if error is None:
            row = index.get(rel)
            if type(row) is tuple and len(row) == 3 and row[0] == size and row[1] == mtime:  # mtime: the change stamp
                sha = row[2]
            else:
                source = _read(path, size, max_file_bytes + 1)
                if type(source) is str:
                    error = source
                else:
                    sha = hashlib.sha256(source).hexdigest()
                    sources[rel] = source
            if sha is not None:
                new_index[rel] = (size, mtime, sha)
        rows[name] = [rel, path, sha, error]
        pairs[rel] = {"path": rel, "sha256": sha}
    if cache is not None and new_index != index:
        cache.store_index(root, package, new_index)
    rows = {name: rows[name] for name in sorted(rows)}
    errors = sorted(errors + [{"path": r[0], "error": r[3]} for r in rows.values() if r[3]], key=lambda e: e["path"])
    info = dist_for(root, package, use_importlib=False)
    return {"name": package, "dist": info["dist"], "version": info["version"], "root": root,
            "digest": digest_of(pairs), "requires": info["requires"],
            "modules": TreeModules(rows, cache, sources), "errors": errors}


def has_package(root: Path | str, package: str) -> bool:
    """Whether `root` holds `package`, as files or in the release's pack (drift.sources.pack)."""
    root = Path(root)

    def files() -> bool:
        return (root / package).is_dir() or (root / f"{package}.py").is_file()

    # files asked again last: another process writing the tree out of the pack puts the files in
    # place before it removes the pack, so a pack gone since the first look means files there now
    return files() or _pack_of(str(root), package) is not None or files()


def _pack_of(root: str, package: str):
    """The pack holding `package` for the release at `root`, when its files are not there."""
    if os.path.isdir(os.path.join(root, package)) or os.path.isfile(os.path.join(root, package + ".py")):
        return None  # files on disk win: a tree written out from the pack, or never packed
    path = pack_path(Path(root))
    if not path.is_file():
        return None
    pack = Pack.open(path)
    if pack is None or not (pack.has_dir(package) or package + ".py" in pack.index):
        return None
    return pack


def _packed_facts(root: str, package: str, pack, cache: ModuleCache | None, max_file_bytes: int) -> dict[str, Any]:
    """`package_facts` of a release whose modules are in its pack: the same modules, rows and
    digest as the extracted tree gives (`Pack.entries` lists what `walk_tree` would), with
    the hashes the pack recorded when it was written, so nothing is hashed here, and the
    sources held as a tree's are (one bytes object per module)."""
    rows: dict[str, list] = {}
    pairs, sources = {}, {}
    for rel, size, sha in pack.entries(package):
        error = "too large: %d bytes" % size if size > max_file_bytes else None
        if error is not None:
            sha = None
        else:
            sources[rel] = pack.read(rel)  # sliced now, so the pack's 18 MB is not held twice
        rows[module_name(rel)] = [rel, os.path.join(root, rel), sha, error]
        pairs[rel] = {"path": rel, "sha256": sha}
    rows = {name: rows[name] for name in sorted(rows)}
    errors = sorted(({"path": r[0], "error": r[3]} for r in rows.values() if r[3]), key=lambda e: e["path"])
    info = dist_for(root, package, use_importlib=False)
    return {"name": package, "dist": info["dist"], "version": info["version"], "root": root,
            "digest": digest_of(pairs), "requires": info["requires"],
            "modules": TreeModules(rows, cache, sources), "errors": errors}


def default_module_cache() -> ModuleCache:
    from drift.sources.cache import cache_root

    return ModuleCache(cache_root() / "modules")


def _atomic_write(path: Path, data: bytes, *, mkdir: bool = True) -> None:
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
