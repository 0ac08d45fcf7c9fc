"""Find a package's files without importing it, and list them with their stat.

`importlib.util.find_spec` on a top-level name only reads the finders (it never executes the
package); `importlib.metadata` gives the distribution. The walk tolerates what real installs and
hand-made trees contain: symlink loops, dangling links, FIFOs named .py, unreadable directories.
A symlink that leads out of the package (`pkg/rootfs -> /`) is never followed: the walk would
otherwise read the whole filesystem, or a file the package does not hold. Every such oddity becomes an entry in `errors` and the walk goes on.
"""

import importlib.util
import os
import stat as _stat

MAX_FILE_BYTES = 5_000_000  # a larger file is not read (here, beside the walk: main imports no parser for it)


def find_package(top: str):
    """(root_dir, package_dir) of an importable top-level package/module, or None."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        pkg_dir = locations[0]
        return os.path.dirname(os.path.abspath(pkg_dir)), pkg_dir
    if spec.origin and spec.origin.endswith(".py"):
        return os.path.dirname(os.path.abspath(spec.origin)), spec.origin
    return None


def walk_tree(root_dir: str, package: str, stamps=False):
    """Files of `package` under `root_dir`: (entries, errors).

    entries: sorted list of (relpath, abspath, size, mtime_ns, error) for every `*.py`; relpath
    uses "/" and is relative to `root_dir`; error is None or why the file cannot be read (it is
    still listed: the module exists, its content is unknowable). errors: directory-level
    problems. A single-module package (`root_dir/<package>.py`) works too.

    `stamps`: each entry also carries (ctime_ns, dev, ino) last, None for an unreadable file,
    from the stat the walk makes anyway: what probes/consumer_scan.py needs to tell a file
    rewritten with its old size and mtime (a cache restored from a tarball, `cp -p`, `touch -r`)
    from an unchanged one, since no user-level call sets ctime.
    """
    entries, errors = [], []
    single = os.path.join(root_dir, package + ".py")
    top = os.path.join(root_dir, package)
    if not os.path.isdir(top):
        if os.path.exists(single) or os.path.islink(single):
            entries.append(_file_entry(single, package + ".py", None, stamps))
        return entries, errors
    seen = set()
    inside = os.path.realpath(top)  # the tree stays a tree: no symlink leads out of the package
    stack = [(top, package)]
    while stack:
        d, rel = stack.pop()
        try:
            st = os.stat(d)
        except OSError as exc:
            errors.append({"path": rel, "error": "unreadable: %s" % _describe(exc)})
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            errors.append({"path": rel, "error": "symlink loop: directory already visited"})
            continue
        seen.add(key)
        try:
            with os.scandir(d) as it:
                items = list(it)
        except OSError as exc:
            errors.append({"path": rel, "error": "unreadable: %s" % _describe(exc)})
            continue
        for e in items:
            name = e.name
            erel = rel + "/" + name
            if name.endswith(".py"):
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                if not is_dir:
                    if _leaves(e, inside):
                        entries.append((erel, e.path, -1, 0, "unreadable: a symlink that leaves the package")
                                       + ((None,) if stamps else ()))
                    else:
                        entries.append(_file_entry(e.path, erel, e, stamps))
                    continue
            if name == "__pycache__" or name.startswith("."):
                continue
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            if is_dir and _leaves(e, inside):
                errors.append({"path": erel, "error": "not followed: a symlink that leaves the package"})
            elif is_dir:
                stack.append((e.path, erel))
            elif e.is_symlink() and not os.path.exists(e.path) and "." not in name:
                errors.append({"path": erel, "error": "unreadable: dangling symlink"})
    entries.sort()
    return entries, errors


def stat_entries(root_dir: str, package: str):
    """`walk_tree` entries whose fourth field is a change stamp, not the mtime alone.

    The stamp is (mtime_ns, ctime_ns, dev, ino) for a readable file, the mtime otherwise.
    Facts indexes compare it to decide whether a file must be hashed again: a file rewritten
    with its old size and mtime (`cp -p`, `touch -r`, a tarball or checkout restored with its
    times) still gets a new ctime, which no user-level call can set, as git's index relies on.
    """
    entries, errors = walk_tree(root_dir, package, stamps=True)
    out = []
    for rel, path, size, mtime, error, stamp in entries:
        out.append((rel, path, size, mtime if stamp is None else (mtime,) + tuple(stamp), error))
    return out, errors


def _leaves(entry, inside):
    """Whether `entry` is a symlink whose target is not under `inside` (pkg/rootfs -> /)."""
    try:
        if not entry.is_symlink():
            return False
    except OSError:
        return True
    if not os.path.exists(entry.path):
        return False  # dangling: the stat that follows says so
    real = os.path.realpath(entry.path)
    return real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep)


def _file_entry(path, rel, entry=None, stamps=False):
    try:
        st = entry.stat() if entry is not None else os.stat(path)
    except OSError as exc:
        return (rel, path, -1, 0, "unreadable: %s" % _describe(exc)) + ((None,) if stamps else ())
    if not _stat.S_ISREG(st.st_mode):
        return (rel, path, st.st_size, st.st_mtime_ns, "unreadable: not a regular file") + ((None,) if stamps else ())
    if stamps:
        return (rel, path, st.st_size, st.st_mtime_ns, None, (st.st_ctime_ns, st.st_dev, st.st_ino))
    return (rel, path, st.st_size, st.st_mtime_ns, None)


def _describe(exc):
    return "%s: %s" % (type(exc).__name__, exc.strerror or exc)


def consumer_module(relpath: str) -> str:
    """`module_name` of a consumer file, each path part made an identifier (`llama3.1-8b-instruct/
    service.py` -> `llama3_1_8b_instruct.service`): a script folder's name need not be importable,
    and a dot in it must not split the module's name (its relative imports resolve within it)."""
    parts = relpath[:-3].split("/")
    if all(part.isidentifier() for part in parts):
        return module_name(relpath)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(_identifier(p) for p in parts)


def _identifier(part):
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in part)
    return out if out and not out[0].isdigit() else "_" + out


def module_name(relpath: str) -> str:
    """`vllm/v1/__init__.py` -> `vllm.v1`; `vllm/v1/request.py` -> `vllm.v1.request`."""
    name = relpath[:-3].replace("/", ".")
    if name.endswith(".__init__"):
        name = name[: -len(".__init__")]
    return name
