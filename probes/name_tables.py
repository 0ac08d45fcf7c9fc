"""Functions that accept a name only if a module table holds it (stdlib, Python 3.9+).

Why: `envs.is_set("VLLM_USE_V1")` raises AttributeError once the target's settings table drops
the key, though `is_set` itself kept its signature: the break is in the data the function checks
its argument against. Recorded per module-level function: the parameter tested for membership in
a module-level dict literal (`if name in TABLE: return ...` followed by a `raise`, or `if name not
in TABLE: raise ...`) and that dict's name; per module, each such dict's string keys. drift compares a consumer's literal
argument with the keys on each side (drift/analysis/rules/name_tables.py).
"""

import ast

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_KEYS = 2000  # a table larger than this is not a name registry drift keeps


def _module_tables(body):
    """{name: [string key, ...]} of module-level dict literals with string keys only."""
    out = {}
    for st in body:
        value = st.value if type(st) in (ast.Assign, ast.AnnAssign) else None
        if type(value) is not ast.Dict or not value.keys or len(value.keys) > MAX_KEYS:
            continue
        if not all(type(k) is ast.Constant and isinstance(k.value, str) for k in value.keys):
            continue
        targets = st.targets if type(st) is ast.Assign else [st.target]
        for t in targets:
            if type(t) is ast.Name:
                out[t.id] = [k.value for k in value.keys]
    return out


def _membership(test, params, tables):
    """(parameter, table, negated) of `p in TABLE` / `p not in TABLE`, else None."""
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) not in (ast.In, ast.NotIn):
        return None
    left, right = test.left, test.comparators[0]
    if type(left) is ast.Name and left.id in params and type(right) is ast.Name and right.id in tables:
        return left.id, right.id, type(test.ops[0]) is ast.NotIn
    return None


def _ends(body, kinds):
    return bool(body) and type(body[-1]) in kinds


def _raised(st):
    """The exception class a `raise` names (`AttributeError`), else None."""
    exc = st.exc.func if type(st.exc) is ast.Call else st.exc
    return exc.id if type(exc) is ast.Name else None


def _checked_param(fn, tables):
    """(parameter, table, raise statement) a function refuses unless the table holds it, else None."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    body = fn.body
    for i, st in enumerate(body):
        if type(st) is not ast.If:
            continue
        got = _membership(st.test, params, tables)
        if got is None:
            continue
        param, table, negated = got
        if negated and _ends(st.body, (ast.Raise,)):
            return param, table, st.body[-1]
        later = next((s for s in body[i + 1:] if type(s) is ast.Raise), None)
        if not negated and _ends(st.body, (ast.Return,)) and not st.orelse and later is not None:
            return param, table, later
        if not negated and _ends(st.orelse, (ast.Raise,)):
            return param, table, st.orelse[-1]
    return None


def name_checks(tree):
    """({function: {"param", "index", "table", "line", "raises", "raise_line"}} for module-level functions that raise for
    a name their module's table does not hold, {table: [key, ...]} of the tables they check)."""
    tables = _module_tables(tree.body)
    if not tables:
        return {}, {}
    out = {}
    for fn in tree.body:
        if type(fn) not in _FUNCS:
            continue
        got = _checked_param(fn, tables)
        if got is None:
            continue
        param, table, raised = got
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        out[fn.name] = {"param": param, "index": params.index(param), "table": table, "line": fn.lineno,
                        "raises": _raised(raised), "raise_line": raised.lineno}
    return out, {t: tables[t] for t in sorted({c["table"] for c in out.values()})}
