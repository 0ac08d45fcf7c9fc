"""The demand-driven package on a host: only the modules the consumer reaches are parsed.

One round trip still: the probe reads the consumer's usage first, `closure.plan` picks the
target modules it reaches, and the reply carries their facts, the path and content hash of
every other module (so drift knows the package's shape and tells "not parsed" from "absent")
and the answers of the text searches drift's rules will ask (`answers`). The package digest is
the whole-package one. What drift finds missing it asks for in a second exchange (`more`).

The host cache is the whole-package probe's (probes/cache.py): its index lists every file
(size, change stamp, sha256), so `collect.scan_index` still answers "unchanged" for a warm scan; its
facts hold only the modules ever parsed here. Stdlib only, Python 3.9.
"""

import hashlib

from . import cache as _cache
from .ast_facts import empty_module
from .closure import TOKEN_INDEX_AT, answer, bounded_literals, is_defines, plan, search_text, token_index
from .collect import _parse_all, _read, digest_of, gc_paused
from .distinfo import dist_for
from .locate import module_name, stat_entries


def _defines(facts, name):
    return any(name in (facts.get(kind) or {}) for kind in ("classes", "functions", "names"))


class _Tree:
    """One package directory read once: rows, sources, search texts, and a cached parser."""

    def __init__(self, root_dir, package, cache_dir, max_file_bytes):
        self.root, self.package, self.cache_dir = root_dir, package, cache_dir
        entries, self.errors = stat_entries(root_dir, package)
        self.index = _cache.load_index(cache_dir, root_dir, package)
        self.rows = {}  # name -> [rel, sha or None, error or None]
        self.sources = {}
        self.new_index = {}
        for rel, path, size, mtime, error in entries:
            name = module_name(rel)
            if error is None and size > max_file_bytes:
                error = "too large: %d bytes" % size
            sha = None
            if error is None:
                source = _read(path, size, max_file_bytes + 1)
                if type(source) is str:
                    error = source
                else:
                    row = self.index.get(rel)
                    if row is not None and row[0] == size and row[1] == mtime:
                        sha = row[2]
                    else:
                        sha = hashlib.sha256(source).hexdigest()
                    self.sources[name] = source
                    self.new_index[rel] = (size, mtime, sha)
            self.rows[name] = [rel, sha, error]
        self.rows = {n: self.rows[n] for n in sorted(self.rows)}
        self.digest = digest_of({r[0]: {"path": r[0], "sha256": r[1]} for r in self.rows.values()})
        self._texts = None
        self._cached = None
        self.parsed, self.from_cache = {}, 0
        self.fresh = {}  # rel -> facts parsed in this run (written to the cache)
        self._outline_cache = {}  # name -> (names it may bind, outline or None), for `needs`

    def texts(self):
        if self._texts is None:
            self._texts = {n: search_text(s) for n, s in self.sources.items()}
        return self._texts

    def parse(self, names):
        """{name: facts} for `names`: from the host cache when the file is unchanged, else
        parsed by the probe's forked workers together."""
        if self._cached is None:
            self._cached = {}
            if self.index:
                for _blob, chunk in _cache.load_chunks(self.cache_dir, self.root, self.package):
                    self._cached.update(chunk)
        out, jobs = {}, []
        for name in names:
            if name in self.parsed:
                out[name] = self.parsed[name]
                continue
            row = self.rows.get(name)
            if row is None:
                continue
            rel, sha, error = row
            if error is not None:
                out[name] = empty_module(rel, sha256=None, is_package=rel.endswith("__init__.py"), error=error)
                continue
            old = self._cached.get(rel)
            if old is not None and old.get("sha256") == sha:
                out[name] = old
                self.from_cache += 1
                continue
            jobs.append((name, rel, sha, self.sources[name]))
        by_rel = {j[1]: j[0] for j in jobs}
        with gc_paused():
            for chunk, _blob in _parse_all(jobs, workers=None):
                for rel, facts in chunk.items():
                    out[by_rel[rel]] = facts
                    self.fresh[rel] = facts
        self.parsed.update(out)
        return out

    def defining(self, name, candidates):
        """The candidates (modules holding the word `name`) that define it at their top, in
        order: the modules `_names_index` finds it in (drift/model/index.py), which is what a
        `defines` needle asks (`needs`, then a parse of those, then `defined`)."""
        needed = self.needs(name, candidates)
        if needed:
            self.parse(needed)
        return self.defined(name, candidates)

    def needs(self, name, candidates):
        """The candidates only a parse can rule in or out: the outline says whether a class
        or function of that name is there (then its facts are what drift reads next,
        check/moves.py); an assigned name only a parse can say, and only where the text may
        bind it (`outline.may_bind`). Each module is outlined once for every name asked."""
        out = []
        for name_ in candidates:
            row = self.rows.get(name_)
            if name_ in self.parsed or row is None or row[2] is not None:
                continue
            binds, found = self._outlined(name_)
            if found is None or name in found["classes"] or name in found["functions"] or name in binds:
                out.append(name_)
        return out

    def _outlined(self, name):
        """(names the text may bind, outline or None) of a module, kept: a big consumer asks
        `needs` of hundreds of names whose words share modules (vllm-ascend: ~8 s outlining
        them again, ~3 s of `may_bind` one name at a time)."""
        hit = self._outline_cache.get(name)
        if hit is None:
            from .outline import bindable, masked, outline

            src = self.sources[name]
            text = masked(src)
            found = outline(src, module=name, path=self.rows[name][0], text=text) if text is not None else None
            hit = self._outline_cache[name] = (bindable(text) if found is not None else frozenset(), found)
        return hit

    def defined(self, name, candidates):
        """The candidates that define `name`, from the facts parsed (`needs` were parsed)."""
        return [n for n in candidates if n in self.parsed and _defines(self.parsed[n], name)]

    def save(self):
        """The cache index for every file and the facts of every module ever parsed here."""
        if self.cache_dir is None:
            return
        if not self.fresh and self.new_index == self.index:
            return
        import marshal

        kept = {}
        for rel, facts in (self._cached or {}).items():
            row = self.new_index.get(rel)
            if row is not None and facts.get("sha256") == row[2] and rel not in self.fresh:
                kept[rel] = facts
        blobs = [marshal.dumps(part) for part in (kept, self.fresh) if part]
        _cache.store(self.cache_dir, self.root, self.package, index=self.new_index, blobs=blobs)

    def shape(self, parsed):
        """name -> [path, sha256 or None, error or None] of every module not in `parsed`."""
        return {n: list(r) for n, r in self.rows.items() if n not in parsed}


def demand_package(root_dir, package, usage, prefixes, *, cache_dir, max_file_bytes, words, stats,
                   use_importlib):
    """The per-package object with only the reached modules parsed (see the module doc)."""
    tree = _Tree(root_dir, package, cache_dir, max_file_bytes)
    modules, answers, plan_stats = plan(package, usage, prefixes, list(tree.rows), tree.texts(), tree.parse,
                                        words=words, defining=tree)
    tree.save()
    stats["parsed"] = stats.get("parsed", 0) + len(tree.fresh)
    stats["cached"] = stats.get("cached", 0) + tree.from_cache
    info = dist_for(root_dir, package, use_importlib=use_importlib)
    errors = sorted(tree.errors + [{"path": r[0], "error": r[2]} for r in tree.rows.values() if r[2]],
                    key=lambda e: e["path"])
    plan_stats.update(modules=len(tree.rows), sent=len(modules))
    whole = {"name": package, "dist": info["dist"], "version": info["version"], "root": root_dir,
             "digest": tree.digest, "requires": info["requires"], "errors": errors,
             "modules": {n: modules[n] for n in sorted(modules)}}
    if plan_stats.get("whole"):  # most of it was reached (closure.WHOLE_SHARE): the whole-package
        # probe's package, which drift checks as one, in one run and with no follow-up
        return whole
    return dict(whole, demand={"shape": tree.shape(modules), "answers": answers, "stats": plan_stats})


def more(root_dir, package, ask, *, cache_dir, max_file_bytes):
    """The second exchange: facts of the modules drift names, plus the answers of the needles
    it names and the facts of their hits it does not hold yet (`ask["have"]`)."""
    tree = _Tree(root_dir, package, cache_dir, max_file_bytes)
    have = set(ask.get("have") or [])
    answers, wanted = {}, [n for n in ask.get("modules") or [] if n in tree.rows]
    needles, order = ask.get("needles") or [], list(tree.rows)
    tokens = (token_index(tree.texts(), order, bounded_literals(tuple(n) for n in needles))
              if len(needles) >= TOKEN_INDEX_AT else None)
    holding = {}
    for literal, pattern in needles:
        found = answer((literal, pattern), tree.texts(), order, holding, tokens)
        if is_defines((literal, pattern)):
            found = tree.defining(literal, found)
        answers[pattern] = found
        wanted.extend(n for n in found if n not in have)
    outlines = {}
    for name in ask.get("outlines") or []:
        if name in tree.rows and name not in outlines:
            found = _outline_of(tree, name)
            if found is None:
                wanted.append(name)  # only a parse can say: its facts instead
            else:
                outlines[name] = found
    modules = tree.parse(sorted(set(wanted)))
    tree.save()
    out = {"digest": tree.digest, "modules": {n: modules[n] for n in sorted(modules)}, "answers": answers}
    if ask.get("outlines"):
        out["outlines"] = {n: outlines[n] for n in sorted(outlines) if n not in modules}
    return out


def _outline_of(tree, name):
    """The module's class outline (probes/outline.py: classes with their bases and direct
    methods, functions, imports) as drift's `TreeModules.outline` reads it, or None when only
    a parse can say (the caller parses it).

    Why: DRIFT040's family, asked ahead (drift/pipeline/scan.py), is ~115 model modules whose outlines
    are all the rule reads; `ast.parse` and facts of them were ~1.2 s of the host's CPU, their
    outlines ~0.05 s (and a tenth of the bytes)."""
    from .outline import masked, outline

    rel, sha, error = tree.rows[name]
    if error is not None:
        return None
    source = tree.sources[name]
    text = masked(source)
    found = outline(source, module=name, path=rel, text=text) if text is not None else None
    if found is None:
        return None
    return {"path": rel, "sha256": sha, "is_package": rel.endswith("__init__.py"), "error": None,
            "classes": found["classes"], "functions": found["functions"], "imports": found["imports"]}
