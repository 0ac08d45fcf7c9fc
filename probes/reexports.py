"""Target names a consumer module hands on to the package's other modules (stdlib, Python 3.9+).

Why: plugins gather vLLM's names in one compatibility module (`compat.py`: `from vllm.x import
Runner`, often inside `try/except ImportError`) and the rest of the package imports them from
there (`from .compat import Runner`). Those modules never name the target, so they were not read
as its users at all, and a use of `Runner` there reached nothing. The scan reads every module
once (consumer_scan), collects what each module binds at its top from the target
(`module_exports`), then reads again the modules that import one of those names, with the
import rewritten to the target's own name (`rewrite_imports`): every extractor then sees the
value it is. The rewritten import is marked (`REEXPORTED`) so it is not itself reported: a
target name that is gone fails in the module that imports it from the target.
"""

import ast

from .srctext import relative_module

REEXPORTED = "_drift_reexported"  # set on a rewritten ImportFrom node


def _kept(dotted, prefixes):
    return any(dotted == p or dotted.startswith(p + ".") for p in prefixes)


def _top_statements(body):
    """A module's own statements, inside a module-level `if`, `try` or `with` too."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.With)):
            yield from _top_statements(node.body)
            yield from _top_statements(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for part in (node.body, node.orelse, node.finalbody):
                yield from _top_statements(part)


def module_exports(tree, prefixes):
    """{name: target dotted} that the module binds at its top by importing from the target
    (`from vllm.x import A as B` -> {"B": "vllm.x.A"}); an except handler's fallback is not an
    export (the first choice is what the module is written against)."""
    out = {}
    for node in _top_statements(tree.body):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module and _kept(node.module, prefixes):
            for a in node.names:
                if a.name != "*":
                    out.setdefault(a.asname or a.name, node.module + "." + a.name)
    return out


_CONFIG_ONLY = frozenset({"model_config", "Config", "__slots__", "__doc__"})


def thin_subclasses(tree, exports):
    """{name: target dotted} of the module's top-level classes that only subclass one target class
    it imported (`class ErrorResponse(vLLMErrorResponse): model_config = ConfigDict(...)`): no
    method, no field, nothing but pydantic's configuration (or a docstring, `pass`). Such a class
    is built, read and passed exactly as its base is, so a module that imports it uses the
    target's class: Ray's LLM library subclasses vLLM's protocol models this way and builds them
    in modules that never name vLLM. A class that adds anything of its own is the consumer's."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.keywords or node.decorator_list or len(node.bases) != 1:
            continue
        base = node.bases[0]
        if isinstance(base, ast.Name) and base.id in exports and all(_configures(st) for st in node.body):
            out[node.name] = exports[base.id]
    return out


def _configures(st):
    """Whether a class-body statement adds nothing of its own: `pass`, a docstring, pydantic's
    `model_config = ...` (or `__slots__`), a v1 `class Config:`."""
    return (isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))
            or (isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) and t.id in _CONFIG_ONLY for t in st.targets))
            or (isinstance(st, ast.ClassDef) and st.name == "Config"))


def export_map(modules):
    """{consumer dotted name: target dotted} over every module record's `exports`."""
    out = {}
    for mod in modules:
        name = mod.get("module") if isinstance(mod, dict) else None
        exports = mod.get("exports") if isinstance(mod, dict) else None
        if isinstance(name, str) and isinstance(exports, dict):
            for local, target in exports.items():
                if isinstance(local, str) and isinstance(target, str):
                    out[name + "." + local] = target
    return out


def linked(links, exports):
    """The entries of `exports` a module's links (probes/links.py) name: what it may import."""
    rows = links.get("links") if isinstance(links, dict) else None
    if not rows or not exports:
        return {}
    named = {row[0] for row in rows if isinstance(row, (list, tuple)) and row and isinstance(row[0], str)}
    return {k: exports[k] for k in sorted(named & set(exports))}


def rewrite_imports(tree, module, is_package, exports):
    """`from .compat import Runner` -> `from vllm.x import Runner` (marked REEXPORTED) wherever
    `exports` says the module imported from hands on a target name; other names of the same
    statement stay as they were. Returns how many names were rewritten."""
    count = 0
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(parent, field, None)
            if not isinstance(stmts, list) or not any(isinstance(s, ast.ImportFrom) for s in stmts):
                continue
            new = []
            for st in stmts:
                if not isinstance(st, ast.ImportFrom):
                    new.append(st)
                    continue
                base = relative_module(module, is_package, st.level, st.module) if st.level else (st.module or "")
                keep, moved = [], []
                for a in st.names:
                    target = exports.get(base + "." + a.name) if a.name != "*" else None
                    (moved if target else keep).append((a, target))
                if not moved:
                    new.append(st)
                    continue
                if keep:
                    new.append(ast.copy_location(ast.ImportFrom(module=st.module, names=[a for a, _ in keep],
                                                                level=st.level), st))
                for a, target in moved:
                    mod, _, name = target.rpartition(".")
                    alias = ast.copy_location(ast.alias(name=name, asname=a.asname or a.name), a) \
                        if hasattr(a, "lineno") else ast.alias(name=name, asname=a.asname or a.name)
                    node = ast.copy_location(ast.ImportFrom(module=mod, names=[alias], level=0), st)
                    node.end_lineno, node.end_col_offset = getattr(st, "end_lineno", st.lineno), \
                        getattr(st, "end_col_offset", 0)
                    setattr(node, REEXPORTED, True)
                    new.append(node)
                    count += 1
            stmts[:] = new
    return count
