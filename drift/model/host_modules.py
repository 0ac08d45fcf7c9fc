"""A host's demand-driven package as drift's rules see it: the modules the probe parsed, the
shape of the rest, and a second exchange for whatever the rules read that was left out.

The probe on a host parses only what the consumer reaches (probes/hostdemand.py) and answers the
text searches drift's rules will ask. `HostModules` is the `modules` mapping of that package:
iteration and membership cover every module (so "absent" and "not parsed" differ), a read of an
unparsed module or a search nobody answered goes to `fetch`, which asks the same host over the
same connection (drift/pipeline/scan.py) and is counted. PackageIndex treats it like a tree on disk
(`mentioning`, `load`), so queries read the answers instead of every module.

Collecting (`collecting = True`): a read of what the host left out is recorded instead of asked,
and answered with a placeholder (an empty module, no search hits), so one run of the rules names
everything it lacks and `fetch_wanted` asks for all of it in one exchange. Why: asked as read,
a big consumer's rules needed 30-60 exchanges, each a round trip and a new remote process. A run
that read a placeholder is discarded by its caller (drift/pipeline/scan.py), and runs with no store key,
so no answer built on a placeholder is memoised; a run that recorded nothing read only real facts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Iterable

Fetch = Callable[[list[str], list[tuple[str, str]], list[str]], tuple[dict[str, dict], dict[str, list[str]]]]


class ForkedRead(RuntimeError):
    """A forked child (drift.model.demand's worker answering questions ahead) read what the host left
    out: it can neither ask the host (the event loop and the connection live in the parent) nor
    record the read for the parent's collecting run, and a placeholder would be a wrong answer
    handed back to the parent. So it fails that question, and the parent asks it itself."""


class HostModules(Mapping):
    def __init__(self, parsed: Mapping[str, dict], shape: dict[str, list], answers: dict[str, list[str]],
                 fetch: Fetch | None, outlines: dict[str, dict] | None = None):
        self._parsed = parsed  # from the reply (or the store: lazily decoded)
        self.outlines = dict(outlines or {})  # name -> class outline the host sent (`outline`), for modules of `shape`
        self._outline_views: dict[str, dict] = {}
        self._extra: dict[str, dict] = {}  # fetched in a second exchange
        self.shape = dict(shape)
        self.answers = dict(answers)
        self._fetch = fetch
        self._order = sorted(set(parsed) | set(shape))  # the whole-package probe's order
        self.exchanges = 0
        self.fetched_modules = 0
        self.asked_needles = 0
        self.failed: str | None = None  # why a second exchange failed: the scan of this host fails
        self.failed_code = 2
        self.collecting = False
        self.exact = False  # drift/pipeline/scan.py: nothing to collect, the stored package served these reads
        self.runs = 0  # runs of the rules over this package (drift/pipeline/scan.py counts them)
        self.ahead_modules = 0  # modules a `more` asked ahead brought, as facts or outlines (drift/pipeline/scan.py)
        self.ahead_outlines = 0  # of them, outlines
        self.follow_ups: list[str] = []  # wire digest of each follow-up reply (drift/pipeline/scan.py keys the merge by them)
        self._want_modules: set[str] = set()
        self._want_needles: dict[str, str] = {}  # pattern -> literal, in the order first read
        self._pid = os.getpid()

    def __getitem__(self, name: str) -> dict:
        hit = self._extra.get(name)
        if hit is not None:
            return hit
        if name in self._parsed:
            return self._parsed[name]
        if name not in self.shape:
            raise KeyError(name)
        self._not_forked(name)
        if self.collecting:
            self._want_modules.add(name)
            return _placeholder(self.shape[name])
        self.load((name,))
        return self._extra[name]

    def __contains__(self, name: object) -> bool:
        return name in self._parsed or name in self.shape

    def outline(self, name: str) -> dict:
        """The module as `PackageIndex.outline` reads it (drift/model/demand.py `OutlineModules`): its
        facts when the host sent them, else the class outline the host sent (classes with
        bases and direct methods, functions, imports: probes/outline.py), whose every other
        key reads the module's facts (`self[name]`: fetched, or recorded when collecting),
        else the facts. Why: DRIFT040's family, asked ahead, is ~115 model modules of which
        the rule reads only outlines; the host outlines them for a tenth of a parse."""
        hit = self._extra.get(name)
        if hit is not None:
            return hit
        if name in self._parsed:
            return self._parsed[name]
        view = self._outline_views.get(name)
        if view is None:
            rec = self.outlines.get(name)
            if rec is None:
                return self[name]
            view = self._outline_views[name] = _outline_view(rec, lambda: self[name])
        return view

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def _missing(self, names: Iterable[str]) -> list[str]:
        return sorted({n for n in names if n in self.shape and n not in self._extra and n not in self._parsed})

    def load(self, names: Iterable[str]) -> None:
        """Make `names` available: one exchange for all those not parsed yet."""
        missing = self._missing(names)
        if missing:
            self._not_forked(missing[0])
        if missing and self.collecting:
            self._want_modules.update(missing)
        elif missing:
            self._ask(missing, [])

    def mentioning(self, needle: Any) -> list[str]:
        """The host's answer for this search (drift.model.index.Needle), asked now if it was not
        sent with the reply; its hits come back parsed in the same exchange."""
        key = needle.pattern.pattern.decode("utf-8", "surrogateescape")
        if key not in self.answers:
            literal = needle.literal.decode("utf-8", "surrogateescape")
            self._not_forked(literal)
            if self.collecting:
                self._want_needles.setdefault(key, literal)
                return []
            self._ask([], [(literal, key)])
        return list(self.answers[key])

    def _not_forked(self, what: str) -> None:
        if os.getpid() != self._pid:
            raise ForkedRead(f"{what}: not sent by the host, and this forked process cannot ask it")

    def wanted(self) -> int:
        """How many reads the collecting runs recorded and nobody has fetched yet."""
        return len(self._missing(self._want_modules)) + sum(1 for k in self._want_needles if k not in self.answers)

    def fetch_wanted(self) -> None:
        """Ask the host, in one exchange, for every module and search the collecting runs read
        and it left out; the record is cleared either way."""
        modules = self._missing(self._want_modules)
        needles = [(lit, key) for key, lit in self._want_needles.items() if key not in self.answers]
        self._want_modules.clear()
        self._want_needles.clear()
        if modules or needles:
            self._ask(modules, needles)

    def adopt(self, modules: dict[str, dict], wire_digest: str, outlines: dict[str, dict] | None = None) -> None:
        """Modules a `more` asked ahead brought (drift/pipeline/scan.py), checked against the first
        reply's shape (`reply.ahead_modules`, `reply.ahead_outlines`): read as if a follow-up
        had fetched them; outlines serve `outline` reads."""
        fresh = {n: m for n, m in modules.items() if n in self.shape and n not in self._parsed}
        sketched = {n: o for n, o in (outlines or {}).items()
                    if n in self.shape and n not in self._parsed and n not in fresh and n not in self.outlines}
        if fresh or sketched:
            self._extra.update(fresh)
            self.outlines.update(sketched)
            self.ahead_modules += len(fresh) + len(sketched)
            self.ahead_outlines += len(sketched)
            self.follow_ups.append(wire_digest)

    def fail(self, reason: str, code: int = 2):
        """Record why the host could not be asked, and stop the reader. Rules turn exceptions
        into notes, so the scan reads `failed` afterwards and fails the host with it."""
        if self.failed is None:
            self.failed, self.failed_code = reason, code
        raise LookupError(reason)

    def _ask(self, modules: list[str], needles: list[tuple[str, str]]) -> None:
        if self.failed is not None:
            raise LookupError(self.failed)
        if self._fetch is None:
            self.fail("facts of this host's modules are needed but there is no host to ask")
        have = sorted(set(self._parsed) | set(self._extra))
        facts, answers = self._fetch(modules, needles, have)
        self.exchanges += 1
        self.fetched_modules += len(facts)
        self.asked_needles += len(needles)
        self._extra.update(facts)
        self.answers.update(answers)
        for name in modules:
            if name not in self._extra:
                self.fail(f"the host did not send module {name} when asked for it")
        for _literal, pattern in needles:
            if pattern not in self.answers:
                self.fail("the host did not answer a search it was asked")

    def snapshot(self) -> tuple[dict[str, dict], dict[str, list], dict[str, list[str]], dict[str, dict]]:
        """(parsed modules, shape of the rest, answers, outlines of modules of that shape) with
        what the exchanges added: the package drift stores so a warm scan reads it without
        asking again."""
        parsed = {n: self[n] for n in self._order if n in self._parsed or n in self._extra}
        shape = {n: row for n, row in self.shape.items() if n not in parsed}
        outlines = {n: self.outlines[n] for n in sorted(self.outlines) if n in shape}
        return parsed, shape, dict(self.answers), outlines


def _outline_view(rec: dict, full: Callable[[], dict]) -> dict:
    """drift.model.demand's outline node over a host's outline record (`reply` checked its shape):
    only the keys an outline holds are taken from it, every other key reads `full()`."""
    from drift.model.demand import outline_node

    return outline_node(rec, full, _Names(full))


class _Names(Mapping):
    """An outlined module's assigned names, which the outline does not read: any question
    reads the module's facts (a `not in` is no cheaper: a host's outline brings no text)."""

    def __init__(self, full: Callable[[], dict]):
        self._full = full

    def __getitem__(self, name: str):
        return self._full()["names"][name]

    def __contains__(self, name: object) -> bool:
        return name in self._full()["names"]

    def __iter__(self):
        return iter(self._full()["names"])

    def __len__(self) -> int:
        return len(self._full()["names"])

    def __bool__(self) -> bool:  # `mod.get("names") or {}` must not read the facts
        return True


def _placeholder(row: list) -> dict:
    """What a collecting run reads for a module the host has not sent: the module with no
    facts (probes/ast_facts.empty_module's shape), so the rule goes on and records its next miss."""
    path = row[0] if row and isinstance(row[0], str) else ""
    return {"path": path, "sha256": None, "is_package": path.endswith("__init__.py"), "error": None, "all": None,
            "imports": {}, "names": {}, "functions": {}, "classes": {}}
