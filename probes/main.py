"""Entry points: the whole facts document for this interpreter (`run`) or for a directory.

`run` is what the bundled script calls on a host; `collect_tree` gives the same document for a
wheel's extracted tree or a checkout, so every kind of target goes through the same code.
A malformed request yields a document with an "error" instead of a traceback.
"""

import os
import sys
import time

from . import cache as _cache
from .environment import environment, tree_environment
from .locate import MAX_FILE_BYTES, find_package

# The parser (collect, ast_facts, behaviour), the usage reader (consumer_scan, usage, reach) and
# the demand closure are imported where a request needs them: on a host every embedded module
# is compiled from source when imported (~0.12 s for all), and the probes a cold scan runs
# beside the main one need one part each (the usage alone; outlines of a family asked ahead).

SCHEMA_VERSION = 1


def validate_request(request) -> str:
    """Why `request` is unusable, or "" when it is fine."""
    if not isinstance(request, dict):
        return "request must be a JSON object"
    for key in ("packages", "env_packages"):
        value = request.get(key, [])
        if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
            return "%r must be a list of package names" % key
        bad = [x for x in value if not x.isidentifier()]
        if bad:
            return "%r holds names that are not top-level import names: %s" % (key, ", ".join(bad))
    usage = request.get("usage", {})
    if not isinstance(usage, dict) or not all(
            isinstance(usage.get(k, []), list) and all(isinstance(x, str) and x.isidentifier() for x in usage.get(k, []))
            for k in ("packages", "prefixes")):
        return "'usage' must be {\"packages\": [names], \"prefixes\": [names]}"
    known = request.get("known", {})
    if not isinstance(known, dict) or not all(isinstance(v, str) for v in known.values()):
        return "'known' must map package names to digest strings"
    cache_dir = request.get("cache_dir", _cache.DEFAULT_DIR)
    if cache_dir is not None and not isinstance(cache_dir, str):
        return "'cache_dir' must be a path or null"
    limit = request.get("max_file_bytes", MAX_FILE_BYTES)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        return "'max_file_bytes' must be a positive integer"
    demand = request.get("demand")
    if demand is not None and (not isinstance(demand, dict) or not _names(demand.get("words", []))):
        return "'demand' must be {\"words\": [names]}"
    nice = request.get("nice", 0)
    if isinstance(nice, bool) or not isinstance(nice, int) or not 0 <= nice <= 19:
        return "'nice' must be an integer 0-19"
    ask = request.get("more")
    if ask is not None:
        if not isinstance(ask, dict) or not all(_names(ask.get(k, [])) for k in ("modules", "have", "outlines")):
            return ("'more' must be {\"modules\": [names], \"needles\": [[name, pattern]], \"have\": [names], "
                    "\"outlines\": [names]}")
        needles = ask.get("needles", [])
        if not isinstance(needles, list) or not all(
                isinstance(n, list) and len(n) == 2 and all(isinstance(x, str) and x for x in n) for n in needles):
            return "'more.needles' must be [[name, pattern]]"
    return ""


def _names(value) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) and x for x in value)


def _bad(message: str) -> dict:
    return {"schema": SCHEMA_VERSION, "error": "bad request: " + message}


def _probe_block(start, stats, cache_dir):
    block = {"elapsed_s": round(time.perf_counter() - start, 3), "parsed": stats.get("parsed", 0),
             "cached": stats.get("cached", 0), "cache_dir": cache_dir}
    code = getattr(sys.modules.get(__package__ or ""), "code_stats", None)  # the bundle's (probes/bundle.py)
    if isinstance(code, dict):
        block["code"] = dict(code)
    return block


def _package_or_unchanged(root, name, *, known, cache_dir, max_file_bytes, workers, stats, use_importlib,
                          scan_only=False):
    from .collect import collect_package, scan_index

    digest = known.get(name)
    if digest is not None and scan_index(root, name, cache_dir=cache_dir,
                                         max_file_bytes=max_file_bytes) == digest:
        return {"unchanged": True, "digest": digest}
    if scan_only:
        return None
    pkg = collect_package(root, name, cache_dir=cache_dir, max_file_bytes=max_file_bytes,
                          workers=workers, stats=stats, use_importlib=use_importlib)
    if digest is not None and pkg["digest"] == digest:
        return {"unchanged": True, "digest": digest}
    return pkg


def run(request: dict, *, workers=None) -> dict:
    """The facts document for the running interpreter (see SCHEMA.md, "Request")."""
    start = time.perf_counter()
    problem = validate_request(request)
    if problem:
        return _bad(problem)
    if request.get("nice"):  # work asked ahead yields the host's CPU to the probe it runs beside
        from .background import lower_priority

        lower_priority(request["nice"])  # this channel's session holds this probe alone (sshd: one per channel)
    cache_dir = _cache.resolve_dir(request.get("cache_dir", _cache.DEFAULT_DIR))
    known = request.get("known", {})
    limit = request.get("max_file_bytes", MAX_FILE_BYTES)
    stats = {}
    packages, missing = {}, []
    usage = {}
    wanted = request.get("usage") or {}
    prefixes = wanted.get("prefixes") or request.get("packages", [])
    for name in wanted.get("packages", []):  # first: a demand-driven package follows its uses
        from .consumer_scan import consumer_usage

        found = find_package(name)
        if found is None:
            missing.append(name)
            continue
        usage[name] = consumer_usage(found[0], name, prefixes, use_importlib=True, max_file_bytes=limit,
                                     cache_dir=cache_dir)
    demand = request.get("demand")
    ask = request.get("more")
    for name in request.get("packages", []):
        found = find_package(name)
        if found is None:
            missing.insert(0, name)
            continue
        if ask is not None:
            from .hostdemand import more

            packages[name] = more(found[0], name, ask, cache_dir=cache_dir, max_file_bytes=limit)
            continue
        if demand is not None and usage:
            blocks = [m for use in usage.values() for m in use.get("modules") or []]
            pkg = _package_or_unchanged(found[0], name, known=known, cache_dir=cache_dir, max_file_bytes=limit,
                                        workers=workers, stats=stats, use_importlib=True, scan_only=True)
            if pkg is None:
                from .hostdemand import demand_package

                pkg = demand_package(found[0], name, blocks, prefixes, cache_dir=cache_dir, max_file_bytes=limit,
                                     words=demand.get("words") or [], stats=stats, use_importlib=True)
                if known.get(name) is not None and pkg["digest"] == known[name]:
                    pkg = {"unchanged": True, "digest": pkg["digest"]}
            packages[name] = pkg
            continue
        packages[name] = _package_or_unchanged(found[0], name, known=known, cache_dir=cache_dir,
                                               max_file_bytes=limit, workers=workers, stats=stats,
                                               use_importlib=True)
    if ask is not None:
        return {"schema": SCHEMA_VERSION, "more": packages, "missing": missing,
                "probe": _probe_block(start, stats, cache_dir)}
    env = environment(request.get("env_packages", []))
    doc = {"schema": SCHEMA_VERSION, "probe": _probe_block(start, stats, cache_dir), "env": env,
           "packages": packages, "missing": missing}
    if wanted:
        doc["usage"] = usage
    return doc


def collect_tree(root_dir, packages, *, cache_dir=None, env_packages=None, known=None,
                 max_file_bytes: int = MAX_FILE_BYTES, workers=None) -> dict:
    """The facts document for a plain directory (extracted wheel/sdist, checkout)."""
    start = time.perf_counter()
    root_dir = os.path.abspath(os.fspath(root_dir))
    if isinstance(packages, str):
        packages = [packages]
    request = {"packages": list(packages), "env_packages": list(env_packages or packages),
               "known": dict(known or {}), "cache_dir": cache_dir, "max_file_bytes": max_file_bytes}
    problem = validate_request(request)
    if problem:
        return _bad(problem)
    cache_dir = _cache.resolve_dir(cache_dir)
    stats = {}
    out, missing = {}, []
    for name in request["packages"]:
        if not (os.path.isdir(os.path.join(root_dir, name)) or os.path.isfile(os.path.join(root_dir, name + ".py"))):
            missing.append(name)
            continue
        out[name] = _package_or_unchanged(root_dir, name, known=request["known"], cache_dir=cache_dir,
                                          max_file_bytes=max_file_bytes, workers=workers, stats=stats,
                                          use_importlib=False)
    env = tree_environment(root_dir, request["env_packages"])
    return {"schema": SCHEMA_VERSION, "probe": _probe_block(start, stats, cache_dir), "env": env,
            "packages": out, "missing": missing}
