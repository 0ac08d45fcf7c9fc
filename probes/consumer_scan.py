"""The consumer side of a probe run: usage facts of every module that imports the target.

Cheap by design: a file that does not mention a target prefix is not parsed.
"""

from .distinfo import dist_for
from .locate import module_name, walk_tree
from .usage import usage_facts


def consumer_usage(root_dir, package, prefixes, *, use_importlib, max_file_bytes=5000000):
    """{"name", "dist", "version", "requires", "root", "modules": [usage facts]}"""
    entries, errors = walk_tree(root_dir, package)
    needles = [p.encode() for p in prefixes]
    modules = []
    for rel, path, size, _mtime, error in entries:
        if error or size > max_file_bytes:
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if not any(n in data for n in needles):
            continue
        facts = usage_facts(data, module=module_name(rel), path=rel, prefixes=prefixes,
                            is_package=rel.endswith("__init__.py"))
        if facts["imports"] or facts.get("error"):
            modules.append(facts)
    info = dist_for(root_dir, package, use_importlib=use_importlib)
    return {"name": package, "dist": info.get("dist"), "version": info.get("version"),
            "requires": info.get("requires") or [], "root": root_dir, "modules": modules,
            "errors": errors}
