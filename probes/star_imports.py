"""`from vllm.x import *` in a consumer module: the names it may bind, as explicit imports (stdlib, 3.9+).

Why: a star import binds every name the target module exports, so the module that uses it names
vLLM's classes and functions without one explicit import. Left as a star, none of those names
resolve: the module's bases, constructions and calls on vLLM objects are read as nothing.

The probe runs without vLLM's facts, so it cannot know what the star exports. It binds each name
the module uses and never binds itself (a free name, neither a builtin nor a module dunder) to the
star's module, `vllm.x.<name>`; drift decides with each release's facts whether the star gave that
name (the module's `__all__`, else its public names, `drift.analysis.rules.star_names`). A free name
the star did not give resolves to nothing on either side and is left alone.

The star statement is replaced in the tree by an explicit `from vllm.x import a, b` (each alias
placed at the star's line and marked STAR) so every extractor after it sees ordinary imports; the
import records keep the star apart (`usage["star_imports"]`), as the star line never fails for a
missing name: the first place the module evaluates it does (a NameError).
"""

import ast
import builtins

from .name_loads import _bound_in
from .reexports import relative_module

STAR = "_drift_star"  # set on the rewritten ImportFrom: {"module", "line", "uses": {name: first line}}
MAX_NAMES = 300  # per star statement: a module's free names, typos included
_MODULE_DUNDERS = {"__name__", "__file__", "__doc__", "__package__", "__spec__", "__loader__", "__path__",
                   "__builtins__", "__annotations__", "__dict__", "__cached__"}


def _free_names(tree):
    """name -> the first line the module loads it, for every name it loads and never binds."""
    bound = _bound_in(tree)
    skip = bound | set(dir(builtins)) | _MODULE_DUNDERS
    first = {}
    for node in ast.walk(tree):
        if type(node) is ast.Name and type(node.ctx) is ast.Load and node.id not in skip:
            if node.id not in first or node.lineno < first[node.id]:
                first[node.id] = node.lineno
    return first


def expand_star_imports(tree, module, is_package, prefixes):
    """Replace each module-level `from <target module> import *` by the explicit import of the
    module's free names (see the module docstring); returns the stars expanded, as
    [{"module", "line", "uses": {name: first line}}]."""
    stars = list(_module_level_stars(tree.body))
    if not stars:
        return []
    out = []
    free = None
    for body, i, st in stars:
        base = relative_module(module, is_package, st.level, st.module) if st.level else (st.module or "")
        if not any(base == p or base.startswith(p + ".") for p in prefixes):
            continue
        if free is None:
            free = sorted(_free_names(tree).items(), key=lambda kv: (kv[1], kv[0]))[:MAX_NAMES]
        names = []
        for name, _line in free:
            alias = ast.alias(name=name, asname=None)
            alias.lineno, alias.col_offset = st.lineno, st.col_offset
            alias.end_lineno, alias.end_col_offset = st.lineno, st.col_offset
            names.append(alias)
        info = {"module": base, "line": st.lineno, "uses": dict(free)}
        node = ast.copy_location(ast.ImportFrom(module=base, names=names or [ast.alias(name="*", asname=None)],
                                                level=0), st)
        node.end_lineno, node.end_col_offset = getattr(st, "end_lineno", st.lineno), getattr(st, "end_col_offset", 0)
        setattr(node, STAR, info)
        body[i] = node
        out.append(info)
    return out


def _module_level_stars(body):
    """(statement list, index, star import) for each `from m import *` the module runs at import
    time: at its top level, or inside a module-level `if`, `try` or `with` (`if has_vllm: try: from
    vllm.x import *`), never inside a function or class (Python refuses a star there)."""
    for i, st in enumerate(body):
        t = type(st)
        if t is ast.ImportFrom and any(a.name == "*" for a in st.names):
            yield body, i, st
        elif t is ast.If:
            yield from _module_level_stars(st.body)
            yield from _module_level_stars(st.orelse)
        elif t is ast.Try or t.__name__ == "TryStar":
            for part in (st.body, st.orelse, st.finalbody):
                yield from _module_level_stars(part)
            for handler in st.handlers:
                yield from _module_level_stars(handler.body)
        elif t in (ast.With, ast.AsyncWith):
            yield from _module_level_stars(st.body)
