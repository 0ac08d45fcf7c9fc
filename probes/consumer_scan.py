"""The consumer side of a probe run: usage facts of every module that imports the target.

Cheap by design: a file that does not mention a target prefix is not parsed, and with a cache
dir, a file whose size and mtime are unchanged since the last run is not even read. Each file
is decoded by its own coding cookie and extracted under probes.guard, so one file that cannot
be walked is reported as skipped instead of taking the probe (and the host's scan) down.
"""

import hashlib
import marshal
import os
import re
import sys
import tempfile
import time

from . import background
from .distinfo import dist_for
from .guard import decode_source, guarded
from .links import package_reach, text_links, unnamed_methods
from .locate import consumer_module as module_name, walk_tree
from .mro_bases import base_modules
from .reexports import export_map, linked
from .usage import NAME_GETTER, NAMES_A_CLASS, SERVES_NAMES, usage_facts

_GETTER = re.compile(NAME_GETTER.pattern.encode())
_NAMING = re.compile(NAMES_A_CLASS.pattern.encode())
_SERVES = re.compile(SERVES_NAMES.pattern.encode())
# a branch on a version (`if CURRENT_VERSION == Release.v_0_6_3:`) in a file that names no target module: it may
# import the package's own per-release modules, which load only where the test holds (probes/links.py `loaded_under`)
_VERSION_BRANCH = re.compile(rb"(?m)^[ \t]*(?:el)?if\b[^\n]*(?i:version)")

# The usage cache's key: any change to what the probe records about the consumer (probes/ir.py,
# consumer_scan.py, reach.py, ...) must change this value, or a warm check reads records the new
# code would not have written. Append a short tag per change; the history of what each tag meant
# is in `git log -p -S_USAGE_VERSION probes/consumer_scan.py`.
_USAGE_VERSION = "r14-infb1-infa14e-u604-infa15i-infb15-prec15-infb15n-infa16i-infb16s-prec16f-prec16v-infa17g-infb17d-prec17d-calls18a-calls18b-calls18c-vals18a-vals18b-vals18d-vals18e-vals18g-vals18h-vals18i-vals18j-reach18a-reach18c-reach18d-reach18e-reach18f-reach19a-reach19b-vals19a-vals19a-vals19b-vals19a-vals19b-vals19c-vals19a-vals19b-vals19c-vals19d-hooks20a-hooks20b-kv20a-kv20b-rev20b-calls21rb2-guard21a-strsink21-vals21a-hier21a-hier21c-http21a-http21b-first22a-exc22a-wrap22a-alias22a-attr22c-any24a-tested24a-gate24a-iter24a-absent25a-inst25a-thin25a-item26a-kwkeys26a-cliown26b-stored26a-handed26a-alt27b-appstate27a-posv27a-cmt27a-envset27a-itb28a-dcont28a-arith28a-star28a-unread28a-limp28a-fact28a-ipair28a"


_LAYOUT = "irb1-c1"  # irb1: the IR kept as bytes (`_stored_ir`): a file of its own, so a drift from before it,
# sharing this cache dir, never reads bytes where it expects the IR's dict; c1: each entry keyed by its file's
# content (`_consumer_usage`), never by size and mtime alone

RACY_NS = 2 * 10 ** 9  # a file changed this close to the read that hashed it is hashed again next time:
# a second write within one filesystem timestamp tick (coarse: ~4 ms on ext4, 2 s on FAT) leaves every stamp as it was


def _cache_file(cache_dir, root_dir, package, prefixes):
    key = "\0".join([_USAGE_VERSION, _LAYOUT, os.path.abspath(root_dir), package] + sorted(prefixes))
    tag = "py%d%d" % sys.version_info[:2]
    return os.path.join(cache_dir, "usage-%s-%s.marshal" % (hashlib.sha256(key.encode()).hexdigest()[:24], tag))


def _load(path):
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())  # one read: marshal.load(fh) reads object by object (4x slower)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, EOFError, TypeError):
        return {}


IR_VERSION = 2  # marshal version of a module's IR kept as bytes: no back-references, so the bytes
# depend on the IR alone (drift.consumer.solved hashes them as they are)


def _stored_ir(facts):
    """`facts` with its IR as the bytes the usage cache keeps (and its branch guards beside them,
    which drift reads without decoding the rest); the same object when there is nothing to do.

    Why: the IR is ~60 % of the cache (vllm-omni 0.22.0: 15.7 of 26 MB) and only the solver
    reads it, which a warm check skips (its solution is cached by these bytes' digest)."""
    ir = facts.get("ir") if type(facts) is dict else None
    if type(ir) is not dict or not ir:
        return facts
    try:
        blob = marshal.dumps(ir, IR_VERSION)
    except ValueError:
        return facts
    out = dict(facts)
    out["ir"] = blob
    if ir.get("guards"):
        out["ir_guards"] = ir["guards"]
    if ir.get("handed"):  # DRIFT110 reads these on every check, the solver's cache or not
        out["ir_handed"] = ir["handed"]
    return out


def _decoded_ir(facts):
    """A record as it was read (the IR a dict, no `ir_guards`): what a host sends."""
    if type(facts) is not dict or type(facts.get("ir")) is not bytes:
        return facts
    out = dict(facts)
    out["ir"] = ir_of(facts)
    out.pop("ir_guards", None)
    out.pop("ir_handed", None)
    return out


def ir_of(mod):
    """A usage record's IR as the solver reads it: decoded when kept as bytes (`_stored_ir`),
    else as it came ({} when absent); an unreadable blob is an empty IR."""
    ir = mod.get("ir")
    if type(ir) is bytes:
        try:
            return marshal.loads(ir)
        except (ValueError, EOFError, TypeError):
            return {}
    return ir or {}


def ir_handed(mod):
    """The `handed` rows of a record's IR (locals handed whole to a call, with the attributes read
    off them after), without decoding an IR kept as bytes."""
    ir = mod.get("ir")
    if type(ir) is bytes:
        return mod.get("ir_handed")
    return ir.get("handed") if isinstance(ir, dict) else None


def ir_guards(mod):
    """The branch guards of a record's IR, without decoding an IR kept as bytes."""
    ir = mod.get("ir")
    if type(ir) is bytes:
        return mod.get("ir_guards")
    return ir.get("guards") if isinstance(ir, dict) else None


def _save(path, data):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".usage-")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written is only a slower next run


def _skipped(rel, why):
    return {"module": module_name(rel), "path": rel, "error": why,
            "imports": [], "calls": [], "binds": [], "subclasses": []}


def _usage_of(data, rel, prefixes, handed=False, reexports=None):
    """Usage facts of one file, or a record saying why it was skipped: a hostile or generated
    file (too deep to walk, an unknown coding cookie) is noted and the scan goes on."""
    text, why = decode_source(data)
    if text is None:
        return _skipped(rel, why)
    facts, why = guarded(usage_facts, text, module=module_name(rel), path=rel, prefixes=prefixes,
                         is_package=rel.endswith("__init__.py"), handed=handed,
                         reexports=reexports)
    if facts is None:
        return _skipped(rel, why)
    return facts


def consumer_usage(root_dir, package, prefixes, *, use_importlib, max_file_bytes=5000000, cache_dir=None,
                   keep=None, ir_as_bytes=False):
    """{"name", "dist", "version", "requires", "root", "modules": [usage facts]}

    `keep`: a predicate on each file's path relative to `root_dir` (`tests/test_x.py`); a file
    it refuses is not read at all (drift's include/exclude, chosen drift-side: this module
    stays stdlib for hosts).

    `ir_as_bytes`: each module's IR stays the marshal bytes the cache keeps (`ir_of` decodes
    it), for drift's own check, which decodes it only to solve; a host's reply (JSON) gets dicts.

    With a cache, the read happens under an exclusive lock on the cache file's lock: a cold
    scan starts two probes at once (the usage asked ahead and the first probe), and the
    second to come waits and reads what the first saved instead of reading the consumer too
    (vllm-omni: ~0.9 s of CPU each, on cores the two probes share)."""
    cache_path = _cache_file(cache_dir, root_dir, package, prefixes) if cache_dir else None
    lock = _lock(cache_path) if cache_path else None
    try:
        return _consumer_usage(root_dir, package, prefixes, use_importlib, max_file_bytes, cache_path, keep,
                               ir_as_bytes)
    finally:
        if lock is not None:
            os.close(lock)  # closing the descriptor releases the lock


LOCK_WAIT = 120.0  # seconds the second probe waits for the first's read before reading itself


def _lock(cache_path, wait=LOCK_WAIT):
    """An exclusive flock on `<cache file>.lock`, held until the descriptor is closed; None
    where there is no flock, the cache dir cannot be written, or the lock is not had within
    `wait` (a cache on a network filesystem whose locks hang): the read then goes unlocked."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        os.makedirs(os.path.dirname(cache_path), exist_ok=True)
        fd = os.open(cache_path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                break
            time.sleep(0.02)
        except OSError:
            break
    os.close(fd)
    return None


def _consumer_usage(root_dir, package, prefixes, use_importlib, max_file_bytes, cache_path, keep=None,
                    ir_as_bytes=False):
    """Each file's entry in the cache is (size, mtime_ns, record, links, sha256 of the bytes read,
    (ctime_ns, dev, ino), when they were read): its record is reused when the file's content is
    the one it was read from. A file whose stat is the entry's, stamps included, and that had
    not changed for RACY_NS before it was read, is that content without being read (no call
    but a write sets ctime; a write within RACY_NS of the read could share its tick); any other
    file is read and hashed, and an unchanged hash reuses the record all the same (a `git
    checkout` back and forth, a tarball restored). Why not size and mtime alone: an edit that
    keeps both (`cp -p`, `touch -r`, an extractor that restores mtimes, two writes within one
    timestamp tick) read the old file's uses."""
    entries, errors = walk_tree(root_dir, package, stamps=True)
    if keep is not None:
        entries = [e for e in entries if keep(e[0])]
    needles = [p.encode() for p in prefixes]
    links = {}  # rel -> which modules of the package the file names (probes/links.py), None: unknowable
    old = _load(cache_path) if cache_path else {}
    new = {}
    rows = []  # per entry: ("record", facts) | ("read", rel, size, mtime, path, stamp) of a file to extract
    jobs = {}  # rel -> source bytes whose usage is read (in forked workers when there are many)
    plain = {}  # rel -> (path, size, mtime, stamp) of a file with no record (it never names the target)
    stat_of = {}  # rel -> (path, size, mtime, stamp) of every file
    keys = {}  # rel -> (sha256, stamps, read at) of a file read here
    unread = {}  # rel -> why a file's uses are unknowable (its record says so)
    now = time.time_ns()
    for rel, path, size, mtime, error, stamp in entries:
        if error or size > max_file_bytes:
            # the file exists but its uses are unknowable: say so rather than pass it as clean
            why = unread[rel] = error or "too large: %d bytes" % size
            rows.append(("record", _skipped(rel, why)))
            links[rel] = None  # what it imports is unknowable too
            continue
        stat_of[rel] = (path, size, mtime, stamp)
        hit = old.get(rel)
        if hit is not None and (type(hit) is not tuple or len(hit) != 7 or hit[0] != size):
            hit = None
        data = sha = None
        if hit is not None and not (hit[1] == mtime and hit[5] == stamp and stamp[0] + RACY_NS < hit[6]):
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                data = b""  # unreadable now: read (and reported) below
            sha = hashlib.sha256(data).digest()
            hit = (size, mtime, hit[2], hit[3], sha, stamp, now) if sha == hit[4] else None
        if hit is not None:  # an entry of this layout keeps the IR as bytes (`_stored_ir`)
            new[rel] = hit
            links[rel] = hit[3]
            rows.append(("record", hit[2] if ir_as_bytes else _decoded_ir(hit[2])))
            if hit[2] is None:
                plain[rel] = (path, size, mtime, stamp)
            continue
        if not data:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                why = unread[rel] = "unreadable: %s" % exc
                rows.append(("record", _skipped(rel, why)))
                links[rel] = None
                continue
            sha = None
        keys[rel] = (sha or hashlib.sha256(data).digest(), stamp, now)
        if any(n in data for n in needles) or b"setattr(" in data \
                or (b"getattr(" in data and _GETTER.search(data)) \
                or ((b"_cls" in data or b"_class" in data) and _NAMING.search(data)) \
                or b"import_module(" in data or b"Namespace" in data or b"parse_known_args(" in data \
                or b"parse_args(" in data or _VERSION_BRANCH.search(data) or b"torch.ops." in data \
                or (b"__getattr__" in data and _SERVES.search(data)) or b"extra_body" in data:
            # helpers that patch, name getters (reach.py), a config naming a class (`worker_extension_cls = "..."`),
            # a resolver of import paths in strings, a function reading a Namespace another module parsed,
            # a client sending a server's request fields (`extra_body=`, probes/extra_body.py)
            jobs[rel] = data
        else:
            links[rel] = text_links(data, module_name(rel), rel.endswith("__init__.py"))
        rows.append(("read", rel, size, mtime, path, stamp))
    read = _read_all(jobs, prefixes)
    modules = []
    for row in rows:
        if row[0] == "record":
            if row[1] is not None:
                modules.append(row[1])
            continue
        _, rel, size, mtime, path, stamp = row
        facts = read.get(rel)
        if rel in jobs:
            links[rel] = _links_of(facts, jobs[rel], rel)
        if facts is not None and not (facts["imports"] or facts.get("error") or facts.get("patchers") or facts.get("routed")
                                      or facts.get("named_modules") or facts.get("classes") or facts.get("ir")
                                      or facts.get("string_resolvers") or facts.get("namespace_params")
                                      or facts.get("cli_namespaces") or facts.get("op_calls") or facts.get("op_defs")
                                      or facts.get("extra_body")):
            facts = None
        stored = _stored_ir(facts)
        new[rel] = (size, mtime, stored, links[rel]) + keys[rel]
        if facts is not None:
            modules.append(stored if ir_as_bytes else facts)  # the same record a later run reads back
        else:  # read, and nothing in it names the target: as a file never read, it may be handed
            plain[rel] = (path, size, mtime, stamp)
    # a record of a file that names nothing of the target (read for a `setattr`, say) may be
    # handed too: its handed read records all the plain one does, and its classes
    bare = {m["path"]: stat_of[m["path"]] for m in modules
            if type(m) is dict and m.get("path") in stat_of and not m.get("handed") and not m.get("imports")
            and not m.get("classes") and not m.get("named_modules") and not m.get("error")}
    candidates = dict(plain, **bare)
    handed = {}
    decoded = _decoder()
    if any(row[0] == "read" for row in rows):
        handed = dict(_handed_modules(modules, candidates, prefixes, decoded))
        handed.update((rel, True) for rel in base_modules(modules, candidates, prefixes, decoded) if rel not in handed)
    # nothing read this time: every file is as the run that chose the handed ones left it (their
    # records are among `modules` already), and the IR need not be decoded to find them again
    got = _read_handed(handed, candidates, prefixes)
    tried, rounds = set(handed), 0
    while handed and rounds < MRO_ROUNDS:  # the modules defining the bases of target subclasses (probes/mro_bases.py),
        rounds += 1                        # then of the classes those define, each round over what the last read
        rest = {rel: v for rel, v in candidates.items() if rel not in tried}
        more = base_modules(modules + [facts for facts, _sha in got.values()], rest, prefixes, decoded)
        if not more:
            break
        tried.update(more)
        got.update(_read_handed(more, rest, prefixes))
    if got:
        modules = [m for m in modules if not (type(m) is dict and m.get("path") in got)]
    for rel, (facts, sha) in got.items():
        _path, size, mtime, stamp = candidates[rel]
        read_links = facts.pop("links", None)
        links[rel] = read_links if read_links is not None else links.get(rel)
        stored = _stored_ir(facts)
        new[rel] = (size, mtime, stored, links[rel], sha, stamp, now)
        modules.append(stored if ir_as_bytes else facts)
    _read_importers(modules, entries, links, old, new, prefixes, ir_as_bytes)
    kept = old.pop(_MARKS, None)
    metadata = _metadata_text(root_dir)
    digest = hashlib.sha256(metadata).hexdigest()
    same = new == old
    marks = kept[1] if same and kept is not None and kept[0] == digest else None
    if marks is None:
        marks = _marks(modules, links, metadata, {rel: v[0] for rel, v in stat_of.items()})
    new[_MARKS] = (digest, marks)  # what `_marked` adds, reused while no file and no metadata changed
    if cache_path and not (same and kept == new[_MARKS]):
        _save(cache_path, new)
    modules = _marked(modules, marks)
    info = dist_for(root_dir, package, use_importlib=use_importlib)
    return {"name": package, "dist": info.get("dist"), "version": info.get("version"),
            "requires": info.get("requires") or [], "root": root_dir, "modules": modules,
            "errors": errors, "files": len(entries), "content_key": _content_key(package, prefixes, ir_as_bytes, digest, entries, new,
                                                          unread)}


def _content_key(package, prefixes, ir_as_bytes, metadata_digest, entries, new, unread):
    """A digest of everything `modules` was made from: this reader's version, the package and
    prefixes, each file read (its relative path and sha256, or why it was not read) and the
    build metadata the marks read. Equal keys, equal records, so drift's answer cache
    (drift/pipeline/check_cache.py) keys the consumer by it instead of re-encoding and hashing
    every record (vllm-omni 0.22: 45 MB, ~0.14 s of each warm check)."""
    h = hashlib.sha256("\0".join([_USAGE_VERSION, _LAYOUT, package, ",".join(sorted(prefixes)),
                                  "bytes" if ir_as_bytes else "dicts", metadata_digest]).encode())
    for entry in entries:
        rel = entry[0]
        h.update(b"\0" + rel.encode("utf-8", "surrogateescape") + b"\1")
        got = new.get(rel)
        if got is not None:
            h.update(got[4])
        else:  # not read: its record says why
            h.update(("!" + unread.get(rel, "?")).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


_CLASS_NAME = re.compile(r"[A-Z]\w*\Z")


def _decoder():
    """`ir_of` remembering each record's decoded IR for the length of one scan: the handed and the
    base modules are both chosen from every record's IR, which is decoded once."""
    memo = {}

    def decoded(mod):
        key = id(mod)
        hit = memo.get(key)
        if hit is None or hit[0] is not mod:
            hit = memo[key] = (mod, ir_of(mod))
        return hit[1]
    return decoded


def _handed_modules(modules, plain, prefixes=(), decoded=None):
    """The files among `plain` (no record: they never name the target) that define a class a
    recorded module uses as a value: assigned, stored, returned or passed (`self.attn_backend =
    Backend`, `return Backend`, or its dotted name as a string), not only called or subclassed. The target may receive that class
    (an override's return, a registry, a `*_cls` key) and then holds it to its own protocol, so its
    members must be known although its module never names the target.

    {rel: True, or "methods" where a function of it is bound as a method (`Cls.m = fn`,
    `setattr(Cls, "m", fn)`, `MethodType(fn, obj)`, `partialmethod(fn)`): its first parameter is
    then an object of the class it was bound onto, and its uses of it are recorded in full}."""
    by_module = {module_name(rel): rel for rel in plain}
    if not by_module:
        return {}
    out = {}
    for mod in modules:
        if not isinstance(mod, dict) or not mod.get("ir") or mod.get("handed"):
            continue  # one hop: a handed module's own uses hand nothing on (the same files every run)
        ir = (decoded or ir_of)(mod)
        values = [src for _dst, src in ir.get("assign") or []]
        bound = [row[2] for row in ir.get("store") or [] if len(row) > 2]  # a function stored as an
        # attribute (`Cls.m = fn`, `setattr(Cls, "m", fn)`) becomes a method: its body reads `self`;
        # so does the one a factory builds and returns (`Cls.m = make_patched(orig)`)
        bound += [row[2][:1] for row in ir.get("store") or [] if len(row) > 2 and isinstance(row[2], (list, tuple))
                  and len(row[2]) == 2 and row[2][1] == "()"]
        values += [expr for _fn, expr in ir.get("ret") or []]
        for row in ir.get("call") or []:
            if len(row) > 2 and isinstance(row[1], list) and isinstance(row[2], dict):
                values += list(row[1]) + list(row[2].values())
        for callee in _handed_target_values(ir, prefixes):  # `helper(vllm_config)`: the helper's module
            owner = callee[4:].rpartition(".")[0]              # keeps what it is given (a record's field)
            if owner in by_module:
                out.setdefault(by_module[owner], False)
        for path, any_name in [(p, False) for p in values] + [(p, True) for p in bound + _bound_args(ir)]:
            if not isinstance(path, (list, tuple)) or len(path) != 1 or not isinstance(path[0], str) \
                    or not path[0].startswith(("sym:", "lit:")):
                continue
            # a class named by its dotted name (`"pkg.compat.Ext"`, for the target to import) is used too
            owner, _, name = path[0][4:].replace(":", ".").rpartition(".")
            if owner in by_module and (any_name or _CLASS_NAME.match(name)):
                rel = by_module[owner]
                out[rel] = out.get(rel, False) or (any_name and not _CLASS_NAME.match(name))
    return {rel: "methods" if full else True for rel, full in sorted(out.items())}


_BINDERS = ("MethodType", "partialmethod")  # calls whose first argument becomes a method


def _handed_target_values(ir, prefixes):
    """The `sym:` callees (consumer functions of other modules, by dotted name) that a module's
    calls hand a target value: a name the module imported from the target, or a parameter it
    annotated with a target class (`def load(vllm_config: VllmConfig): helper(vllm_config)`)."""
    def is_target(path):
        return isinstance(path, (list, tuple)) and path and isinstance(path[0], str) \
            and any(path[0] == "sym:" + p or path[0].startswith("sym:" + p + ".") for p in prefixes)
    typed = set()
    for fn, spec in (ir.get("defs") or {}).items():
        for row in spec[1] if isinstance(spec, list) and len(spec) > 1 else ():
            if isinstance(row, list) and len(row) > 1 and is_target(row[1]):
                typed.add("var:%s:%s" % (fn, row[0]))
    out = []
    for row in ir.get("call") or []:
        if not (len(row) > 2 and isinstance(row[0], list) and len(row[0]) == 1 and isinstance(row[0][0], str)
                and row[0][0].startswith("sym:") and not is_target(row[0])):
            continue
        args = [a for a in list(row[1]) + list(row[2].values()) if isinstance(a, list) and a]
        if any(is_target(a) or a[0] in typed for a in args):
            out.append(row[0][0])
    return out


def _bound_args(ir):
    """First arguments of `types.MethodType(fn, obj)` / `functools.partialmethod(fn, ...)`: a
    function that becomes a method of an object, so its module is read whatever the name's case."""
    out = []
    for row in ir.get("call") or []:
        if len(row) > 1 and isinstance(row[0], (list, tuple)) and row[0] and isinstance(row[0][-1], str) \
                and isinstance(row[1], list) and row[1]:
            if row[0][-1].rpartition(".")[2].lstrip(".") in _BINDERS:
                out.append(row[1][0])
    return out


def _read_handed(rels, plain, prefixes):
    """{rel: (usage facts, sha256 of the bytes read)} of the files `_handed_modules` chose, their
    classes and IR recorded."""
    out = {}
    for rel, how in rels.items():
        try:
            with open(plain[rel][0], "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        facts = _usage_of(data, rel, prefixes, handed=how)
        if facts is not None and not facts.get("error"):
            facts["handed"] = True
            out[rel] = (facts, hashlib.sha256(data).digest())
    return out


_IMPORTERS = "\0importers"  # cache key: {rel: (sha256 of the bytes, exports read with, record)} of the second read


def _read_importers(modules, entries, links, old, new, prefixes, ir_as_bytes):
    """Read again, with those names taken for the target's, every module that imports a target
    name another module of the package hands on (`from .compat import Runner`,
    probes/reexports.py); its record replaces (or joins) the first one. Cached per file by the
    content its first read hashed and the exports it was read with, so a warm scan reads nothing."""
    exports = export_map(modules)
    cached = old.get(_IMPORTERS) or {}
    if not exports:
        return
    where = {e[0]: e[1] for e in entries if not e[4]}  # rel -> path
    index = {m.get("path"): i for i, m in enumerate(modules)}
    done = {}
    for rel in sorted(where):
        got = linked(links.get(rel), exports)
        entry = new.get(rel)
        if not got or type(entry) is not tuple or len(entry) < 5:
            continue
        sha = entry[4]
        hit = cached.get(rel)
        if type(hit) is tuple and len(hit) == 3 and hit[0] == sha and hit[1] == got:
            facts = hit[2]
        else:
            try:
                with open(where[rel], "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if hashlib.sha256(data).digest() != sha:
                continue  # changed since the first read: the next scan reads both again
            facts = _usage_of(data, rel, prefixes, reexports=got)
            if isinstance(facts, dict):
                facts.pop("links", None)  # the first read's links stand
            facts = _stored_ir(facts)
        done[rel] = (sha, got, facts)
        if not isinstance(facts, dict) or facts.get("error"):
            continue
        record = facts if ir_as_bytes else _decoded_ir(facts)
        if rel in index:
            modules[index[rel]] = record
        else:
            index[rel] = len(modules)
            modules.append(record)
    if done:
        new[_IMPORTERS] = done


def _links_of(facts, data, rel):
    """A parsed file's links, taken out of its usage record (drift reads them only as the marks
    `_marked` adds); read from the bytes when the parse gave none (a syntax error)."""
    got = facts.pop("links", None) if isinstance(facts, dict) else None
    return got if got is not None else text_links(data, module_name(rel), rel.endswith("__init__.py"))


_METADATA = ("setup.py", "setup.cfg", "pyproject.toml")


def _metadata_text(root_dir):
    """The package's own build metadata and installed entry points: the modules they name load
    without the package importing them (a vLLM plugin's entry point)."""
    out = []
    for folder in (root_dir, os.path.dirname(os.path.abspath(root_dir))):
        for name in _METADATA:
            try:
                with open(os.path.join(folder, name), "rb") as fh:
                    out.append(fh.read(1 << 20))
            except OSError:
                pass
    try:
        names = os.listdir(root_dir)
    except OSError:
        names = []
    for name in names:
        if name.endswith((".dist-info", ".egg-info")):
            try:
                with open(os.path.join(root_dir, name, "entry_points.txt"), "rb") as fh:
                    out.append(fh.read(1 << 20))
            except OSError:
                pass
    return b"\n".join(out)


_MARKS = "\0marks"  # the cache's entry for the marks (no file's relative path starts with NUL)


def _marks(modules, links, metadata, files=None):
    """{rel: marks} of the package (probes/links.py `package_reach`, and `unnamed_methods` over
    `files`, rel -> path of every file): none when a file's links are unknowable (it might import
    any module, or name any method)."""
    if not links or any(v is None for v in links.values()):
        return {}
    lone = {m["path"]: m["lone_classes"] for m in modules if isinstance(m, dict) and m.get("lone_classes")}
    marks = package_reach(links, metadata, lone)
    private = {m["path"]: m["private_methods"] for m in modules if isinstance(m, dict) and m.get("private_methods")}
    if private and files:
        for rel, methods in unnamed_methods(private, _texts(files)).items():
            marks.setdefault(rel, {})["unnamed_methods"] = methods
    return marks


def _texts(files):
    """Each file's bytes (an unreadable one as none: its names are not counted, so a method it
    alone calls may be taken for unnamed; the finding it touches is only made risky)."""
    for path in files.values():
        try:
            with open(path, "rb") as fh:
                yield fh.read()
        except OSError:
            continue


def _marked(modules, marks):
    """Each record of a module the package never names (`unreferenced`), loads only under version
    tests (`loaded_under`), whose classes nothing names (`unnamed_classes`) or that holds private methods
    nothing names (`unnamed_methods`) carries that mark."""
    if not marks:
        return modules
    return [dict(m, **marks[m["path"]]) if isinstance(m, dict) and m.get("path") in marks else m for m in modules]


MRO_ROUNDS = 8  # rounds of base modules read (a hierarchy deeper than this through unread modules stays unseen)

PARALLEL_AT = 24  # files to read from which forked workers share them (vllm-omni: 208, ~2-3 s on one core)


def _read_all(jobs, prefixes, workers=None):
    """{rel: usage facts} of `jobs` (rel -> source), decoded by its cookie and guarded
    (`_usage_of`); many files are shared among forked workers (probes/background.py), largest
    first, and a worker that fails leaves its files to this process."""
    n = workers if workers is not None else background.cpus()
    n = max(1, min(n, 16, len(jobs) // 8)) if len(jobs) >= PARALLEL_AT else 1
    if n <= 1:
        return {rel: _usage_of(data, rel, prefixes) for rel, data in jobs.items()}
    shares = [[] for _ in range(n)]
    loads = [0] * n
    for rel in sorted(jobs, key=lambda r: -len(jobs[r])):
        i = loads.index(min(loads))
        shares[i].append(rel)
        loads[i] += len(jobs[rel])
    pending = [background.start(_read_share, share, jobs, prefixes) for share in shares[1:]]
    out = {}
    try:
        out.update(_read_share(shares[0], jobs, prefixes))
        for share, job in zip(shares[1:], pending):
            got = job.result() if job is not None else None
            out.update(got if isinstance(got, dict) else _read_share(share, jobs, prefixes))
    finally:
        for job in pending:
            if job is not None:
                job.close()
    return out


def _read_share(share, jobs, prefixes):
    return {rel: _usage_of(jobs[rel], rel, prefixes) for rel in share}
