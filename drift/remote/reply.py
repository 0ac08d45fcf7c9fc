"""The shape of a probe reply, checked before anything reads it, and the key drift files it under.

A host is untrusted input: its reply may be `{}`, a digest of `/../../x`, another host's
digest, or facts shaped to crash the rules. So the reply is checked here, once, against the
shape the engine relies on (SCHEMA.md); what fails is one clear message for that host. And
the facts are filed under a key drift computes from the bytes it received (`content_key`),
never under the digest the host claims: a host cannot make its facts stand in for anyone else's.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["ReplyError", "ahead_modules", "ahead_outlines", "clean_display", "content_key", "is_digest", "merged_key", "printable",
           "safe_relpath", "validate_ahead", "validate_env", "validate_more", "validate_package_facts", "validate_reply", "wire_key"]

_DIGEST = re.compile(r"^[0-9a-f]{64}$")
_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # a path component from a host
_KEY_SALT = b"drift host facts v1\0"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class ReplyError(ValueError):
    """The reply is not what the probe sends; the message says where."""


def is_digest(value: Any) -> bool:
    return isinstance(value, str) and bool(_DIGEST.match(value))


def safe_relpath(value: Any) -> bool:
    """A host-supplied relative path drift may join to a root: `a/b_c.py`, never `..`, `/x`, `~`."""
    if not isinstance(value, str) or not value or len(value) > 4096:
        return False
    return all(_PART.match(part) for part in value.split("/"))


def printable(text: Any) -> Any:
    """`text` with control characters shown as `\\xNN`: a host's hostname, version or stderr must
    not reach the user's terminal as escape sequences (retitling it, hiding lines)."""
    if not isinstance(text, str) or not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), text)


def _clean(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return printable(value)
    if depth > 8:
        return value
    if isinstance(value, list):
        return [_clean(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {printable(k): _clean(v, depth + 1) for k, v in value.items()}
    return value


def clean_display(doc: dict[str, Any]) -> None:
    """Make the strings a report shows about the host printable, in place: the environment and
    each package's and consumer's name, version, dist, root and requirements."""
    if isinstance(doc.get("env"), dict):
        doc["env"] = _clean(doc["env"])
    blocks = list((doc.get("packages") or {}).values()) + list((doc.get("usage") or {}).values())
    for block in blocks:
        for key in ("name", "dist", "version", "root"):
            if key in block:
                block[key] = printable(block[key])
        if isinstance(block.get("requires"), list):
            block["requires"] = [printable(r) for r in block["requires"]]


def content_key(pkg: dict[str, Any]) -> str:
    """sha256 of the package facts as received (the host's own digest left out), so equal facts
    share one stored copy and different facts can never share a key."""
    body = {k: v for k, v in pkg.items() if k != "digest"}
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=_no_json)
    return hashlib.sha256(_KEY_SALT + data.encode("utf-8", "surrogatepass")).hexdigest()


def wire_key(package: str, wire_digest: str) -> str:
    """drift's key of one package of a reply, from the sha256 of the reply's facts line as
    received (`bundle.decode_reply`): different facts can never share it, equal facts (two
    hosts with the same vLLM) always do, and the host cannot pick it. Why not `content_key`:
    re-encoding a 9 MB package as JSON to hash it cost ~0.35 s of every cold scan; hashing
    the text that came costs ~15 ms."""
    return hashlib.sha256(_KEY_SALT + b"wire\0" + package.encode("utf-8", "surrogateescape") + b"\0"
                          + wire_digest.encode("ascii")).hexdigest()


def merged_key(key: str, follow_ups: list[str]) -> str:
    """drift's key of a package after follow-up exchanges added to it: its first key and the
    wire digests of every follow-up reply, in order (each is what the host sent)."""
    return hashlib.sha256(_KEY_SALT + b"merged\0" + "\0".join([key, *follow_ups]).encode("ascii")).hexdigest()


def _no_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} in facts")


def _fail(where: str, what: str) -> None:
    raise ReplyError(f"{where}: {what}")


def _type(value: Any, types: type | tuple[type, ...], where: str, *, none: bool = False) -> Any:
    if value is None and none:
        return value
    if not isinstance(value, types) or isinstance(value, bool) and bool not in _as_tuple(types):
        names = "/".join(t.__name__ for t in _as_tuple(types)) + (" or null" if none else "")
        _fail(where, f"expected {names}, got {type(value).__name__}")
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _strings(value: Any, where: str) -> None:
    _type(value, list, where)
    for i, item in enumerate(value):
        _type(item, str, f"{where}[{i}]")


# The wire shape is checked on the raw records, not through drift.model.facts views: a view reads an
# absent or null key as its empty value, which is just what this check must not paper over.
def _function(fn: Any, where: str) -> None:
    _type(fn, dict, where)
    _type(fn.get("name"), str, f"{where}.name")
    params = _type(fn.get("params", []), list, f"{where}.params")
    for i, p in enumerate(params):
        _type(p, dict, f"{where}.params[{i}]")
        _type(p.get("name"), str, f"{where}.params[{i}].name")
        _type(p.get("kind"), str, f"{where}.params[{i}].kind")
    _type(fn.get("behaviour", {}), dict, f"{where}.behaviour")
    _type(fn.get("decorators", []), list, f"{where}.decorators")


def _class(cls: Any, where: str, depth: int = 0) -> None:
    _type(cls, dict, where)
    _type(cls.get("name"), str, f"{where}.name")
    _strings(cls.get("bases", []), f"{where}.bases")
    for i, f in enumerate(_type(cls.get("fields", []), list, f"{where}.fields")):
        _type(f, dict, f"{where}.fields[{i}]")
        _type(f.get("name"), str, f"{where}.fields[{i}].name")
    for name, fn in _type(cls.get("methods", {}), dict, f"{where}.methods").items():
        _function(fn, f"{where}.methods.{name}")
    if depth > 20:
        _fail(where, "classes nested more than 20 deep")
    for name, sub in _type(cls.get("nested", {}), dict, f"{where}.nested").items():
        _class(sub, f"{where}.nested.{name}", depth + 1)


def _module(mod: Any, where: str) -> None:
    _type(mod, dict, where)
    path = mod.get("path")
    if not safe_relpath(path):
        _fail(f"{where}.path", f"not a plain relative path: {str(path)[:80]!r}")
    _type(mod.get("sha256"), str, f"{where}.sha256", none=True)
    _type(mod.get("error"), str, f"{where}.error", none=True)
    _type(mod.get("is_package", False), bool, f"{where}.is_package")
    if mod.get("all") is not None:
        _strings(mod["all"], f"{where}.all")
    for key in ("imports", "names"):
        for name, entry in _type(mod.get(key, {}), dict, f"{where}.{key}").items():
            _type(entry, (dict, list), f"{where}.{key}.{name}")
    for name, fn in _type(mod.get("functions", {}), dict, f"{where}.functions").items():
        _function(fn, f"{where}.functions.{name}")
    for name, cls in _type(mod.get("classes", {}), dict, f"{where}.classes").items():
        _class(cls, f"{where}.classes.{name}")


_OUTLINE_DEF = {"name", "line"}
_OUTLINE_CLASS = {"name", "line", "bases", "methods", "nested"}


def _outline_def(fn: Any, where: str) -> None:
    _type(fn, dict, where)
    if set(fn) != _OUTLINE_DEF:
        _fail(where, "an outline's def holds its name and line only")
    _type(fn["name"], str, f"{where}.name")
    _type(fn["line"], int, f"{where}.line")


def _outline_class(cls: Any, where: str, depth: int = 0) -> None:
    _type(cls, dict, where)
    if set(cls) != _OUTLINE_CLASS:
        _fail(where, "an outline's class holds its name, line, bases, methods and nested classes only")
    _type(cls["name"], str, f"{where}.name")
    _type(cls["line"], int, f"{where}.line")
    _strings(cls["bases"], f"{where}.bases")
    for name, fn in _type(cls["methods"], dict, f"{where}.methods").items():
        _outline_def(fn, f"{where}.methods.{name}")
    if depth > 20:
        _fail(where, "classes nested more than 20 deep")
    for name, sub in _type(cls["nested"], dict, f"{where}.nested").items():
        _outline_class(sub, f"{where}.nested.{name}", depth + 1)


def _outline(rec: Any, where: str) -> None:
    """A module's class outline (probes/outline.py, sent for a family asked ahead): the module's
    path, hash and package flag, and classes, functions and imports shaped as an outline has
    them, nothing else (drift's view of it takes only those keys: drift/model/host_modules.py)."""
    _type(rec, dict, where)
    if not safe_relpath(rec.get("path")):
        _fail(f"{where}.path", f"not a plain relative path: {str(rec.get('path'))[:80]!r}")
    _type(rec.get("sha256"), str, f"{where}.sha256", none=True)
    _type(rec.get("is_package", False), bool, f"{where}.is_package")
    for name, entry in _type(rec.get("imports"), dict, f"{where}.imports").items():
        _type(entry, (dict, list), f"{where}.imports.{name}")
    for name, fn in _type(rec.get("functions"), dict, f"{where}.functions").items():
        _outline_def(fn, f"{where}.functions.{name}")
    for name, cls in _type(rec.get("classes"), dict, f"{where}.classes").items():
        _outline_class(cls, f"{where}.classes.{name}")


def _outlines(block: Any, where: str, known, why: str) -> None:
    for name, rec in _type(block, dict, where).items():
        at = f"{where}.{str(name)[:80]}"
        if not known(name):
            _fail(at, why)
        _outline(rec, at)


def _answers(block, asked, missing, where, check) -> None:
    """A block keyed by name holds an answer for each name asked (or said missing), and nothing else."""
    block = _type(block, dict, where)
    for name in asked:
        if name not in block and name not in missing:
            _fail(where, f"no answer for {name}")
    for name, value in block.items():
        if name not in asked:
            _fail(where, f"{str(name)[:80]!r} was not asked for")
        check(name, value, f"{where}.{name}")


def _package(name: str, pkg: Any, where: str) -> None:
    _type(pkg, dict, where)
    if not is_digest(pkg.get("digest")):
        _fail(f"{where}.digest", f"not a sha256 hex digest: {str(pkg.get('digest'))[:80]!r}")
    if pkg.get("unchanged") is True:
        if set(pkg) != {"unchanged", "digest"}:
            _fail(where, "an unchanged answer carries only the digest")
        return
    validate_package_facts(pkg, where)


def validate_env(env: Any, where: str) -> None:
    """Raise ReplyError unless `env` is the probe's environment block as the reports read it: a
    dict; `packages` a dict of dicts; `gpus` a list of dicts (a snapshot carries one too)."""
    env = _type(env, dict, where)
    for name, info in _type(env.get("packages", {}), dict, f"{where}.packages").items():
        _type(info, dict, f"{where}.packages.{name}")
    for i, gpu in enumerate(_type(env.get("gpus", []), list, f"{where}.gpus", none=True) or ()):
        _type(gpu, dict, f"{where}.gpus[{i}]")


def validate_package_facts(pkg: Any, where: str) -> None:
    """Raise ReplyError unless `pkg` is one package's facts, every field typed as the probe sends
    it. Also what a snapshot file is held to (drift/sources/snapshot.py): a field of the wrong
    type there must be an error, not a module whose findings silently vanish."""
    _type(pkg, dict, where)
    for key in ("name", "root"):
        _type(pkg.get(key), str, f"{where}.{key}")
    for key in ("dist", "version"):
        _type(pkg.get(key), str, f"{where}.{key}", none=True)
    _strings(pkg.get("requires", []), f"{where}.requires")
    for i, e in enumerate(_type(pkg.get("errors", []), list, f"{where}.errors")):
        _type(e, dict, f"{where}.errors[{i}]")
    modules = _type(pkg.get("modules"), dict, f"{where}.modules")
    for mod_name, mod in modules.items():
        _module(mod, f"{where}.modules.{mod_name}")
    if "demand" in pkg:
        _demand(pkg["demand"], modules, f"{where}.demand")


_MODNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _demand(block: Any, modules: dict, where: str) -> None:
    """A demand-driven package (probes/hostdemand.py): `shape` names every module not parsed
    (path, content hash, error), never one of `modules`; `answers` map a search pattern to
    module names the package has, in order."""
    _type(block, dict, where)
    shape = _type(block.get("shape"), dict, f"{where}.shape")
    for name, row in shape.items():
        at = f"{where}.shape.{str(name)[:80]}"
        if not _MODNAME.match(name):
            _fail(at, "not a module name")
        if name in modules:
            _fail(at, "is both parsed and not parsed")
        if not isinstance(row, list) or len(row) != 3:
            _fail(at, "expected [path, sha256 or null, error or null]")
        if not safe_relpath(row[0]):
            _fail(at, f"not a plain relative path: {str(row[0])[:80]!r}")
        if row[1] is not None and not is_digest(row[1]):
            _fail(at, f"not a sha256 hex digest: {str(row[1])[:80]!r}")
        _type(row[2], str, f"{at}[2]", none=True)
    _answer_block(block.get("answers"), lambda n: n in modules or n in shape, f"{where}.answers")
    _type(block.get("stats", {}), dict, f"{where}.stats")
    if "outlines" in block:  # outlines of unparsed modules (a stored package keeps those that came ahead)
        _outlines(block["outlines"], f"{where}.outlines", known=lambda n: n in shape, why="is not a module left unparsed")


def _answer_block(answers: Any, known, where: str) -> None:
    for pattern, names in _type(answers, dict, where).items():
        at = f"{where}[{str(pattern)[:60]!r}]"
        _strings(names, at)
        for n in names:
            if not known(n):
                _fail(at, f"names a module the package does not have: {n[:80]!r}")


def _is_error(doc: Any) -> bool:
    """Whether `doc` is a probe's error answer (checked); otherwise it must be a schema-1 reply."""
    _type(doc, dict, "reply")
    if doc.get("error") is not None:
        _type(doc["error"], str, "reply.error")
        return True
    if doc.get("schema") != 1:
        _fail("reply.schema", f"expected 1, got {str(doc.get('schema'))[:40]!r}")
    return False


def _more_answer(doc: dict, package: str) -> dict:
    """The `more` block's answer for `package`, shaped as one (a dict with a digest), else ReplyError."""
    block = _type(doc.get("more"), dict, "reply.more")
    if set(block) != {package}:
        _fail("reply.more", f"expected an answer for {package} only")
    ans = _type(block[package], dict, f"reply.more.{package}")
    if not is_digest(ans.get("digest")):
        _fail(f"reply.more.{package}.digest", "not a sha256 hex digest")
    return ans


def validate_more(doc: Any, request: dict[str, Any], package: str, shape: dict, have,
                  digest: str | None = None) -> None:
    """Raise ReplyError unless `doc` answers a second exchange (`request["more"]`) for
    `package`: facts only of modules the first reply said exist and were not parsed, answers
    only of the patterns asked, the same package digest as before."""
    if _is_error(doc):
        return
    ans = _more_answer(doc, package)
    if digest is not None and ans["digest"] != digest:
        raise ReplyError(f"the {package} on the host changed during the scan ({ans['digest'][:12]} after "
                         f"{digest[:12]}); scan it again")
    for name, mod in _type(ans.get("modules"), dict, f"reply.more.{package}.modules").items():
        at = f"reply.more.{package}.modules.{str(name)[:80]}"
        if name not in shape:
            _fail(at, "was not a module left unparsed")
        _module(mod, at)
        if mod.get("path") != shape[name][0] or mod.get("sha256") != shape[name][1]:
            _fail(at, "path or content hash differs from the first reply")
    asked = {p for _l, p in request["more"].get("needles") or []}
    answers = _type(ans.get("answers"), dict, f"reply.more.{package}.answers")
    if set(answers) != asked:
        _fail(f"reply.more.{package}.answers", "does not answer exactly the patterns asked")
    _answer_block(answers, lambda n: n in shape or n in have, f"reply.more.{package}.answers")


def validate_ahead(doc: Any, request: dict[str, Any], package: str) -> None:
    """Raise ReplyError unless `doc` is shaped like the answer to a `more` asked ahead, before
    the first reply came (drift/pipeline/scan.py): modules shaped as facts, answers of the patterns
    asked. What the modules must match (the first reply's shape and digest) is checked when
    that reply is in (`ahead_modules`)."""
    if _is_error(doc):
        return
    ans = _more_answer(doc, package)
    for name, mod in _type(ans.get("modules"), dict, f"reply.more.{package}.modules").items():
        _module(mod, f"reply.more.{package}.modules.{str(name)[:80]}")
    if _type(ans.get("answers"), dict, f"reply.more.{package}.answers"):
        _fail(f"reply.more.{package}.answers", "answers searches nobody asked")
    if "outlines" in ans:
        asked = set((request.get("more") or {}).get("outlines") or [])
        _outlines(ans["outlines"], f"reply.more.{package}.outlines", known=lambda n: n in asked, why="was not asked for")


def ahead_modules(ans: dict[str, Any], shape: dict, digest: str | None) -> dict[str, dict]:
    """The modules of an answer asked ahead (`validate_ahead`) that the first reply left
    unparsed, with that reply's path and content hash; {} when its package digest differs.
    What does not match is dropped, not trusted: the check asks for it again if it reads it."""
    if digest is None or ans.get("digest") != digest:
        return {}
    return {name: mod for name, mod in ans["modules"].items()
            if name in shape and mod.get("path") == shape[name][0] and mod.get("sha256") == shape[name][1]}


def ahead_outlines(ans: dict[str, Any], shape: dict, digest: str | None) -> dict[str, dict]:
    """The outlines of an answer asked ahead (`validate_ahead`), kept as `ahead_modules` keeps
    modules: only of modules the first reply left unparsed, with its path and content hash."""
    if digest is None or ans.get("digest") != digest:
        return {}
    return {name: rec for name, rec in (ans.get("outlines") or {}).items()
            if name in shape and rec.get("path") == shape[name][0] and rec.get("sha256") == shape[name][1]}


def _usage_module(mod: Any, where: str) -> None:
    _type(mod, dict, where)
    _type(mod.get("module"), str, f"{where}.module")
    if mod.get("error") and not mod.get("module") and not any(mod.get(k) for k in ("imports", "calls", "binds", "subclasses")):
        _type(mod.get("path"), str, f"{where}.path")  # a file set aside: a name to show, never a path to join
    elif not safe_relpath(mod.get("path")):
        _fail(f"{where}.path", f"not a plain relative path: {str(mod.get('path'))[:80]!r}")
    _type(mod.get("error"), str, f"{where}.error", none=True)
    for key in ("imports", "calls", "binds", "subclasses"):
        for i, item in enumerate(_type(mod.get(key, []), list, f"{where}.{key}")):
            _type(item, dict, f"{where}.{key}[{i}]")
    _type(mod.get("ir", {}), dict, f"{where}.ir")  # its rows are checked as the solver reads them (consumer/infer.py)


def _usage(use: Any, where: str) -> None:
    _type(use, dict, where)
    _type(use.get("name"), str, f"{where}.name")
    _type(use.get("root"), str, f"{where}.root")
    for key in ("dist", "version"):
        _type(use.get(key), str, f"{where}.{key}", none=True)
    _strings(use.get("requires", []), f"{where}.requires")
    for i, mod in enumerate(_type(use.get("modules"), list, f"{where}.modules")):
        _usage_module(mod, f"{where}.modules[{i}]")


def _odd_file_name(path: str) -> bool:
    """A path in plain directories whose last part only is odd (`pkg/n\\n::x.py`): a file someone
    named strangely. An absolute path, `..`, `~` or an odd directory is still a lying host."""
    *dirs, name = path.split("/")
    return (0 < len(path) <= 4096 and bool(dirs) and all(_PART.match(d) for d in dirs)
            and name not in ("", ".", "..") and not name.startswith("~"))


def _set_aside_unplain_files(doc: dict[str, Any]) -> None:
    """A consumer file whose name is not a plain relative path (`n\\n::add-mask::X.py`) becomes a
    skipped file, in place: its uses are dropped, the report notes it (escaped), and the rest of
    the consumer is checked. Why not refuse the reply: one odd name in someone's checkout is not a
    host lying, and refusing it left the whole host unchecked. Nothing is ever joined to its
    name: a skipped record holds no use, so no finding (and no patch) can point at it."""
    for use in (doc.get("usage") or {}).values() if isinstance(doc.get("usage"), dict) else ():
        mods = use.get("modules") if isinstance(use, dict) else None
        for i, mod in enumerate(mods if isinstance(mods, list) else ()):
            path = mod.get("path") if isinstance(mod, dict) else None
            if isinstance(path, str) and not safe_relpath(path) and _odd_file_name(path):
                shown = printable(path[:200]).replace("\n", "\\x0a")
                mods[i] = {"module": "", "path": shown, "imports": [], "calls": [], "binds": [], "subclasses": [],
                           "error": "its name is not a plain relative path, so drift did not read it"}


def validate_reply(doc: Any, request: dict[str, Any]) -> None:
    """Raise ReplyError unless `doc` has the shape of an answer to `request`. A consumer file
    with an unplain name is set aside first (`_set_aside_unplain_files`), not a reason to refuse."""
    if _is_error(doc):
        return
    _set_aside_unplain_files(doc)
    wanted = list(request.get("packages") or [])
    users = list((request.get("usage") or {}).get("packages") or [])
    missing = _type(doc.get("missing", []), list, "reply.missing")
    for i, m in enumerate(missing):
        if not isinstance(m, str) or m not in wanted + users:
            _fail(f"reply.missing[{i}]", f"{str(m)[:80]!r} was not asked for")
    _answers(doc.get("packages"), wanted, missing, "reply.packages", lambda name, pkg, where: _package(name, pkg, where))
    if users:
        _answers(doc.get("usage"), users, missing, "reply.usage", lambda _name, use, where: _usage(use, where))
    validate_env(doc.get("env", {}), "reply.env")
    probe = _type(doc.get("probe", {}), dict, "reply.probe")
    _type(probe.get("cache_dir"), str, "reply.probe.cache_dir", none=True)
