"""Import paths a consumer writes as string literals: `"vllm.pkg.mod:Name"` (the entry-point form)
and `"vllm.pkg.mod.Name"` handed to something that imports them (`importlib.import_module`,
`pydoc.locate`, the consumer's own helper that splits on ':' or '.', a vLLM setting such as
`worker_cls` that vLLM resolves by name). A path the target no longer holds fails where the
string is resolved, as an import would.

Plain prose stays out by shape and by place (stdlib only, Python 3.9+):
- shape: the whole string is a dotted path of identifiers rooted at a target package, with at
  most one ':' (no blanks, no other punctuation), so a sentence that mentions a module is never one;
- place: the string is a value something keeps or hands on -- an assignment's value, a dict
  value, a call's argument or keyword, a `return`, a parameter's default. Not a comparison operand,
  a dict key or subscript (`sys.modules["vllm.x"]`), a container element (a list of paths tried in
  turn, one per release), either side of a conditional expression, a docstring, nor the argument of
  a call that names rather than imports: a logger or tracer name, `types.ModuleType`,
  `importlib.util.find_spec`, `sys.modules.get`, string methods.

Each record says whether something in the file is seen to resolve it (`resolved`): the string goes
straight into an importing call, or the file itself imports by a computed name (its own helper).
"""

import ast
import re

_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?$")

# calls that import what a string names (the importlib form is an import record of its own)
_IMPORTERS = frozenset({"import_module", "__import__", "locate", "resolve_name", "import_string",
                        "import_from_string", "import_object", "resolve_obj_by_qualname", "load_object"})
# calls that take a dotted name as a name, not as something to import
_NAMERS = frozenset({"getLogger", "_getLogger", "get_logger", "init_logger", "ModuleType", "find_spec",
                     "get", "pop", "setdefault", "print", "warn", "split", "rsplit", "partition", "rpartition",
                     "replace", "startswith", "endswith", "join", "format", "index", "find", "count",
                     "removeprefix", "removesuffix", "strip", "lstrip", "rstrip", "debug", "info", "warning",
                     "error", "exception", "critical", "log", "warning_once", "info_once", "debug_once",
                     "append", "add", "extend", "insert", "remove", "discard", "__contains__"})
# handlers that make a failed resolution a fallback rather than a failure
_CAUGHT = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})


def _callee_name(func):
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _names_only(name):
    low = (name or "").lower()
    return name in _NAMERS or "logger" in low or "tracer" in low


def _catches(handler):
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_callee_name(n) in _CAUGHT for n in names)


def path_of(text, prefixes):
    """The dotted target path a string names (`a.b:C.d` -> `a.b.C.d`), or None."""
    if not isinstance(text, str) or len(text) > 200 or not _PATH.match(text):
        return None
    root = text.split(".", 1)[0]
    if not any(root == p.split(".")[0] for p in prefixes):
        return None
    return text.replace(":", ".")


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def _place(parent, node):
    """(kept, into an importer) for a string `node` whose parent is `parent`."""
    if isinstance(parent, ast.Call):
        if node not in parent.args:
            return False, False
        name = _callee_name(parent.func)
        if name in ("import_module", "__import__"):
            return False, False  # an import record of its own (probes/usage.py `visit_Call`)
        if _names_only(name):
            return False, False
        return True, name in _IMPORTERS
    if isinstance(parent, ast.Dict):
        return any(v is node for v in parent.values), False
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return parent.value is node and all(isinstance(t, (ast.Name, ast.Attribute)) for t in targets), False
    if isinstance(parent, ast.Return):
        return True, False
    if isinstance(parent, ast.arguments):
        return any(d is node for d in parent.defaults + parent.kw_defaults), False
    return False, False


def string_paths(tree, prefixes):
    """id(string node) -> {"target", "resolved"} for each string of the file that names a path
    in a target package in a place that keeps or hands it on (see the module's docstring)."""
    dynamic = False
    found = {}
    for parent in ast.walk(tree):
        if isinstance(parent, ast.Call) and _callee_name(parent.func) in _IMPORTERS and parent.args \
                and not isinstance(parent.args[0], ast.Constant):
            dynamic = True  # the file imports by a computed name: its own helper resolves strings
        children = list(ast.iter_child_nodes(parent))
        if isinstance(parent, ast.keyword):
            continue
        if isinstance(parent, ast.Call):
            children += [k.value for k in parent.keywords]
        for child in children:
            if not (isinstance(child, ast.Constant) and isinstance(child.value, str)):
                continue
            if _wrapper_call(parent) and child is parent.args[0] and _text(parent.args[1]) is not None \
                    and _ATTR.match(parent.args[1].value):
                continue  # the module of a wrapt-style pair: `wrapped_targets` names the whole path
            target = path_of(child.value, prefixes)
            if target is None:
                continue
            if isinstance(parent, ast.Call) and child not in parent.args:
                kept, direct = not _names_only(_callee_name(parent.func)), False
            else:
                kept, direct = _place(parent, child)
            if kept:
                found[id(child)] = {"target": target, "resolved": direct}
                via = _dotted(parent.func) if isinstance(parent, ast.Call) and not direct else None
                if via:
                    found[id(child)]["via"] = via  # a call that may be the consumer's own resolver
    if dynamic:
        for rec in found.values():
            rec["resolved"] = True
    return found


def caught_here(try_node):
    """Whether a `try` body's failed resolution is caught (a fallback, not a failure)."""
    return any(_catches(h) for h in try_node.handlers)


def importers(tree):
    """Qualnames of the module's functions that import by a computed name (`import_module(mod)`):
    a string handed to one of them from another module is resolved there."""
    out = []

    def walk(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(isinstance(c, ast.Call) and _callee_name(c.func) in _IMPORTERS and c.args
                       and not isinstance(c.args[0], ast.Constant) for c in ast.walk(node)):
                    out.append(prefix + node.name)
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


# wrapt's patching API and the instrumentation helpers built on it (OpenTelemetry, ddtrace's
# `wrap`): a target named by two strings, the module and the attribute path inside it
_WRAPPERS = frozenset({"wrap_function_wrapper", "patch_function_wrapper", "transient_function_wrapper",
                       "wrap_object", "wrap_object_attribute", "resolve_path", "wrap"})
_ATTR = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
MAX_ROWS = 500  # a table longer than this is data, not a list of hooks


def _wrapper_call(node):
    return isinstance(node, ast.Call) and _callee_name(node.func) in _WRAPPERS and len(node.args) >= 2


def _rows(node, tables):
    """[(values, line, col)] of a literal table of tuples (`[("m", "C.f", w), ...]`, a name bound
    once to one, or `{"m": "C.f"}.items()`), else None."""
    if isinstance(node, ast.Name):
        node = tables.get(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "items" \
            and not node.args:
        table = node.func.value
        table = tables.get(table.id) if isinstance(table, ast.Name) else table
        if isinstance(table, ast.Dict) and None not in table.keys and len(table.keys) <= MAX_ROWS:
            return [([k, v], k.lineno, k.col_offset) for k, v in zip(table.keys, table.values)]
        return None
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)) or len(node.elts) > MAX_ROWS:
        return None
    rows = [(list(e.elts), e.lineno, e.col_offset) for e in node.elts if isinstance(e, (ast.Tuple, ast.List))]
    return rows if len(rows) == len(node.elts) else None


def _literal_tables(tree):
    """{name: literal} for names the file binds exactly once, to a list/tuple/set/dict literal."""
    seen, out = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    seen[t.id] = seen.get(t.id, 0) + 1
                    out[t.id] = node.value
    return {k: v for k, v in out.items() if seen[k] == 1 and isinstance(v, (ast.List, ast.Tuple, ast.Set, ast.Dict))}


def _text(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def wrapped_targets(tree, prefixes):
    """String-path records (as `string_paths` rows) for what wrapt-style calls patch:
    `wrap_function_wrapper("vllm.x", "Cls.meth", w)` names `vllm.x.Cls.meth`, resolved when the call
    runs (a module gone raises ModuleNotFoundError, an attribute gone AttributeError). The two
    strings may come from a literal table the call's loop unpacks (`for mod, name, w in HOOKS:`),
    then each row is a record at the row's line. A loop that stops at the first success (`break`)
    tries alternatives, one per release: no record. `guarded`: the call sits in a `try` whose
    handler catches the failure -- the hook is then silently not installed."""
    tables = _literal_tables(tree)
    out = []

    def pair(args, env):
        """[(module text, name text, line, col)] the call's first two arguments take."""
        got = []
        for a in args[:2]:
            if _text(a) is not None:
                got.append(("const", a))
            elif isinstance(a, ast.Name) and a.id in env:
                got.append(("row", env[a.id]))
            else:
                return []
        rows = {id(r[1][1]): r[1][1] for r in got if r[0] == "row"}
        if len(rows) > 1:
            return []  # two different tables: not a pair of one row
        if not rows:
            m, n = got[0][1], got[1][1]
            return [(m.value, n.value, m.lineno, m.col_offset)]
        table = next(iter(rows.values()))
        res = []
        for values, line, col in table:
            texts = []
            for kind, ref in got:
                if kind == "const":
                    texts.append(ref.value)
                else:
                    idx = ref[0]
                    texts.append(_text(values[idx]) if idx < len(values) else None)
            if None not in texts:
                res.append((texts[0], texts[1], line, col))
        return res

    def visit(node, env, caught):
        if isinstance(node, ast.Try):
            inner = caught + caught_here(node)
            for st in node.body:
                visit(st, env, inner)
            for part in node.handlers + node.orelse + node.finalbody:
                visit(part, env, caught)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            rows = _rows(node.iter, tables)
            names = node.target.elts if isinstance(node.target, (ast.Tuple, ast.List)) else []
            stops = any(isinstance(n, ast.Break) for st in node.body for n in ast.walk(st))
            inner = dict(env)
            for i, n in enumerate(names):
                if isinstance(n, ast.Name):
                    if rows is not None and not stops:
                        inner[n.id] = (i, rows)
                    else:
                        inner.pop(n.id, None)
            for st in node.body:
                visit(st, inner, caught)
            for st in node.orelse:
                visit(st, env, caught)
            return
        if _wrapper_call(node):
            for module, name, line, col in pair(node.args, env):
                target = path_of(module, prefixes)
                if target is None or ":" in module or not _ATTR.match(name) or len(name) > 200:
                    continue
                rec = {"target": target + "." + name, "module": target, "resolved": True, "line": line,
                       "col": col, "via": _dotted(node.func) or _callee_name(node.func), "wrapped": True}
                if caught:
                    rec["guarded"] = True
                out.append(rec)
        for child in ast.iter_child_nodes(node):
            visit(child, env, caught)

    visit(tree, {}, 0)
    return out
