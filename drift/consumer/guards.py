"""Version branches in the consumer: code written for another vLLM is not checked against this one.

Plugins that support several vLLM releases branch on the version (`if vllm_version_is("0.11.0"):`,
`if vllm.__version__ >= "0.12":`, or a decorator of their own that names a range:
`@version_range(">=0.8.4,<0.9.0")`). The probe records each branch's test as data
(probes/reach.py `version_guard`); here a use whose branch is false for the target's version is
dropped before any rule runs, so the old branch's imports are not reported as breaks.
"""

from __future__ import annotations

import operator
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from drift.probes.consumer_scan import ir_guards, ir_of

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}


def _version(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def _compare(op: str, current: Version, literal: Version) -> bool:
    if op in ("==", "!=") and len(literal.release) < len(current.release):
        # "0.11" == 0.11.2: compare only the parts the literal names
        current = Version(".".join(str(p) for p in current.release[: len(literal.release)]))
    return _OPS[op](current, literal)


def _admitted(specs: list[str], version: Version) -> bool | None:
    """Whether one of the specifier sets admits `version` (pre-releases and nightlies count:
    a gate written `>=0.9.0` is meant for 0.10.0rc1 too). None when one does not parse."""
    try:
        sets = [SpecifierSet(s) for s in specs]
    except InvalidSpecifier:
        return None
    return any(s.contains(version, prereleases=True) for s in sets)


def as_version(text: str | None) -> Version | None:
    """A release string as the guards compare it (None when it is not one)."""
    return _version(text)


def holds(guard: dict[str, Any], version: Version, predicates: dict[str, dict[str, Any]]) -> bool | None:
    """Whether the branch runs on `version` (None: not a test drift can evaluate)."""
    if "any" in guard:  # `a or b` of version tests (probes/reach.py `compound_guards`): runs where one holds
        parts = [holds(g, version, predicates) for g in guard["any"] if isinstance(g, dict)]
        result = True if True in parts else (False if parts and all(p is False for p in parts) else None)
        return None if result is None else (not result if guard.get("negated") else result)
    if "const" in guard:  # a module-level True/False switch: the same answer on every version
        return (not guard["const"]) if guard.get("negated") else bool(guard["const"])
    if guard.get("specs"):  # the consumer's own gate: `@version_range(">=0.8.4,<0.9.0")`
        result = _admitted(guard["specs"], version)
        return None if result is None else (not result if guard.get("negated") else result)
    if "sides" in guard:  # the consumer's own version values compared (probes/reach.py `_folded_guard`)
        result = folded(guard, version, predicates)
        return None if result is None else (not result if guard.get("negated") else result)
    if guard.get("wrapper"):  # `if use_legacy_path():`, a helper returning one version test (probes/reach.py)
        inner = (predicates.get(guard.get("call") or "") or {}).get("guard")
        if not isinstance(inner, dict) or inner.get("wrapper"):
            return None
        result = holds(inner, version, predicates)
        return None if result is None else (not result if guard.get("negated") else result)
    literal = _version(guard.get("version"))
    if literal is None:
        return None
    op = guard.get("op")
    if op is None and _is_prefix_test(guard.get("call")):
        result = _starts_with(version, guard["version"])
        return not result if guard.get("negated") else result
    if op is None and guard.get("call"):
        op = _predicate_op(guard["call"], predicates)
    if op not in _OPS:
        return None
    result = _compare(op, version, literal)
    return not result if guard.get("negated") else result


def _side(side: Any, predicates: dict[str, dict[str, Any]]) -> tuple[str, Version | None] | None:
    """("literal", version) for a side whose value drift knows (a literal, or a consumer constant
    such as an enum member bound to one); ("running", None) for the running version (a consumer
    value computed from `__version__`, or a value that names a version, as version_guard takes
    one); None when it is neither."""
    if not isinstance(side, dict):
        return None
    if "version" in side:
        v = _version(side["version"])
        return ("literal", v) if v is not None else None
    if side.get("named"):
        return ("running", None)
    known = predicates.get(side.get("ref") or "") or {}
    if known.get("foreign"):
        return None  # computed from another package's version (`TORCH_VERSION = torch.__version__`)
    if known.get("running"):
        return ("running", None)
    if known.get("value"):
        v = _version(known["value"])
        return ("literal", v) if v is not None else None
    if "version" in str(side.get("ref") or "").rsplit(".", 1)[-1].lower():
        return ("running", None)  # `CURRENT_VLLM_VERSION` bound where drift cannot fold it: it names a version
    return None


def _equal(current: Version, literal: Version) -> bool | None:
    """`current == literal` for a value the consumer computed itself: None when only a suffix
    tells them apart (0.8.5.post1 against "0.8.5": the consumer may have cut it off, as
    `__version_tuple__[:3]` does), else the release comparison version branches make."""
    if current.release[:len(literal.release)] == literal.release and current != literal \
            and len(literal.release) >= len(current.release) and not (literal.pre or literal.post or literal.dev):
        return None
    return _compare("==", current, literal)


def folded(guard: dict[str, Any], version: Version, predicates: dict[str, dict[str, Any]]) -> bool | None:
    """A comparison of the consumer's own version values on `version` (before `negated`): one
    side must be the running version, the other(s) known values. None when that is not so."""
    op, sides = guard.get("op"), guard.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        return None
    left = _side(sides[0], predicates)
    if op == "in":
        items = [_side(i, predicates) for i in sides[1]] if isinstance(sides[1], list) else [None]
        if left != ("running", None) or any(i is None or i[0] != "literal" for i in items):
            return None
        answers = [_equal(version, i[1]) for i in items]
        return True if True in answers else (None if None in answers else False)
    if op == "in-text":
        if left != ("running", None) or not isinstance(sides[1], dict):
            return None
        return str(version) in str(sides[1].get("version"))
    right = _side(sides[1], predicates)
    if left is None or right is None or op not in _OPS:
        return None
    if left[0] == "literal" and right[0] == "running":
        left, right, op = right, left, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    if left[0] != "running" or right[0] != "literal":
        return None
    if op in ("==", "!="):
        same = _equal(version, right[1])
        return None if same is None else (same if op == "==" else not same)
    return _compare(op, version, right[1])


def _predicate_op(call: str, predicates: dict[str, dict[str, Any]]) -> str | None:
    """The comparison the consumer's version helper `call` makes. A helper called as a method
    (`self._version_ge("0.4.3")`, `cls.is_new(...)`) is named by the probe without its class,
    so it matches the recorded method of that name when every such method compares the same way."""
    found = predicates.get(call)
    if found is not None:
        return found.get("op")
    head, _, name = call.partition(".")
    if head in ("self", "cls") and name and "." not in name:
        ops = {p.get("op") for key, p in predicates.items() if key.endswith("." + name)}
        if len(ops) == 1:
            return ops.pop()
    return None


def _is_prefix_test(call: str | None) -> bool:
    """`vllm.__version__.startswith("0.16")`: the running version's text tested for a prefix."""
    return bool(call) and call.endswith("__version__.startswith")


def _starts_with(version: Version, prefix: str) -> bool:
    """Whether the release's text starts with `prefix` as Python's str.startswith answers it,
    on the release's own spelling (a dev or local build starts with its release's text too)."""
    return str(version).startswith(prefix)


def dead_on(guards: list[dict[str, Any]], version: Version, predicates: dict[str, dict[str, Any]],
            baseline: Version | None = None) -> bool:
    """Whether code under all of `guards` never runs on `version`. When only tests of the
    consumer's own version values (`CURRENT == VLLMVersion.v_0_6_3`, probes/reach.py
    `_folded_guard`) shut it out and every test holds on `baseline`, it is still live: it is the
    code the consumer runs today, picked by its own release table, and whether the target's API
    takes it as it is decides whether the port is a copy or a rewrite. Code those tests keep off
    both releases (the branch for a third, older release) is dead."""
    shut = [g for g in guards if holds(g, version, predicates) is False]
    if not shut:
        return False
    if baseline is None or any("sides" not in g for g in shut):
        return True
    return not all(holds(g, baseline, predicates) is not False for g in guards)


def live_on(usage: list[dict[str, Any]], version: str | None,
            baseline: str | None = None) -> tuple[list[dict[str, Any]], int]:
    """The usage with every record on a branch that is false for `version` removed, and how many
    (`baseline`: the release the consumer runs today, see `dead_on`).

    A record on a branch that is false for the baseline and true for `version` is marked
    `first_live`: code the consumer wrote for a newer vLLM (the `else` of
    `vllm_version_is("0.28.0")`, written against vLLM main), which first runs on this target. What it
    reads was never checked by running it on the baseline, so the rules hold it to the target alone:
    a name the target lacks fails there even though the baseline lacks it too."""
    current = _version(version)
    before = _version(baseline)
    if current is None:
        return usage, 0
    predicates: dict[str, dict[str, Any]] = {}
    for mod in usage:
        predicates.update(mod.get("version_predicates") or {})
    dropped = 0
    out = []
    newer = before is not None and before != current  # a baseline older than the target: branches may first run here
    for mod in usage:
        copy = None
        for key in ("imports", "calls", "uses", "patches", "string_paths"):
            recs = mod.get(key) or []
            keep = [r for r in recs if not r.get("guards") or  # most records are on no branch at all
                    not dead_on(r["guards"], current, predicates, before)]
            first = [r for r in keep if newer and r.get("guards") and dead_on(r["guards"], before, predicates, before)]
            if first:  # copies: the usage is the consumer's cached record, shared by every target
                ids = {id(r) for r in first}
                keep = [dict(r, first_live=True) if id(r) in ids else r for r in keep]
            if len(keep) != len(recs) or first:
                copy = copy or dict(mod)
                copy[key] = keep
                dropped += len(recs) - len(keep)
        ir = mod.get("ir")
        guards = ir_guards(mod)  # an IR kept as bytes is decoded only when a branch is dead on `version`
        if guards:
            live_ir = _ir_live(ir, guards, current, predicates, before)
            if live_ir is not ir:
                copy = copy or dict(mod)
                copy["ir"] = live_ir
        calls = (copy or mod).get("calls") or []
        if any(c.get("kw_guards") for c in calls):
            copy = copy or dict(mod)
            copy["calls"] = [_keywords_live(c, current, predicates, before) if c.get("kw_guards") else c
                             for c in calls]
        out.append(copy or mod)
    return out, dropped


_IR_EDGES = {"store": 3, "attrset": 2, "call": 3, "key": 2}  # relation -> where its row keeps the line


def _ir_live(ir: Any, guards: Any, version: Version, predicates: dict[str, dict[str, Any]],
             baseline: Version | None = None) -> Any:
    """The IR without the edges written on branches `version` never takes (`Cls.m = fn` under
    `if version_is("0.13"):` binds nothing on 0.18): the solver does not follow them. `ir` is
    returned as it is (a dict, or the usage cache's bytes) when no edge is dead."""
    try:
        dead = [(int(a), int(b)) for a, b, gs in guards
                if dead_on(gs, version, predicates, baseline)]
    except (TypeError, ValueError, AttributeError):
        return ir  # a malformed relation from a host: the solver's own checks judge the rest
    if not dead:
        return ir
    if type(ir) is bytes:
        ir = ir_of({"ir": ir})
    out = dict(ir)
    for rel, at in _IR_EDGES.items():
        rows = ir.get(rel)
        if isinstance(rows, list):
            out[rel] = [r for r in rows if not (isinstance(r, list) and len(r) > at and isinstance(r[at], int)
                                                and any(a <= r[at] <= b for a, b in dead))]
    rows = ir.get("dict")
    if isinstance(rows, list):  # keys written where a dead branch writes them (`d["k"] = v` under a version test)
        out["dict"] = [_live_keys(r, dead) for r in rows]
        out["dict"] = [r for r in out["dict"] if r is not None]
    return out


def _live_keys(row: Any, dead: list[tuple[int, int]]) -> Any:
    """A `dict` row without the keys written on dead lines; None when none is left."""
    if not (isinstance(row, list) and len(row) > 1 and isinstance(row[1], list)):
        return row
    keys = [k for k in row[1] if not (isinstance(k, list) and len(k) > 1 and isinstance(k[1], int)
                                      and any(a <= k[1] <= b for a, b in dead))]
    if len(keys) == len(row[1]):
        return row
    return [row[0], keys] + list(row[2:]) if keys else None


def _keywords_live(call: dict[str, Any], version: Version, predicates: dict[str, dict[str, Any]],
                   baseline: Version | None = None) -> dict[str, Any]:
    """The call without the keywords its `**d` holds only on other versions: a key set under
    `if version_is("1.0"):` is not passed on a 2.0 target."""
    gone = {k for k, gs in call["kw_guards"].items() if dead_on(gs, version, predicates, baseline)}
    first = sorted(k for k, gs in call["kw_guards"].items() if k not in gone and baseline is not None
                   and baseline != version and dead_on(gs, baseline, predicates, baseline))
    if first:  # keys passed only from the target on: held to the target alone, as `first_live` records
        call = dict(call, first_kws=first)
    if not gone:
        return call
    return dict(call, keywords=[k for k in call.get("keywords") or [] if k not in gone],
                kw_cols={k: v for k, v in (call.get("kw_cols") or {}).items() if k not in gone},
                via_dict=[k for k in call.get("via_dict") or [] if k not in gone])
