"""Where Python evaluates a name the module imported from the target (stdlib only, Python 3.9+).

A name the target removed fails at its import first; once a user fixes only that line, every
later place Python evaluates the name raises `NameError` on its own: a parameter or return
annotation (evaluated when the `def` runs), a default, a decorator, a base class, a class-level
annotation, an `isinstance` argument, a plain use in a function body. The usage extractors record
calls and attribute reads of a name; a bare name as an annotation or a value left no record at
all. Left out because Python never evaluates them: annotations under `from __future__ import
annotations` and string annotations, local variable annotations inside a function, and
everything under `if TYPE_CHECKING:`. A name the module (or the function) binds again is left
out too: the use may be the rebinding's, not the import's.
"""

import ast

from .astwalk import walk

MAX_LOADS = 200  # per module: enough for every line a maintainer would touch


def _is_type_checking(test):
    name = test.attr if type(test) is ast.Attribute else test.id if type(test) is ast.Name else None
    return name == "TYPE_CHECKING"


def _future_annotations(tree):
    return any(type(s) is ast.ImportFrom and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
               for s in tree.body)


def _params(args):
    every = list(getattr(args, "posonlyargs", [])) + args.args + args.kwonlyargs
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return every


def _bound_in(node):
    """Names a function (or an expression's lambdas and comprehensions) binds: parameters,
    stores, imports, nested defs; nested scopes included (a name rebound anywhere inside is
    left out, which can only miss a use, never invent one)."""
    out = set()
    for n in walk(node):
        t = type(n)
        if t is ast.Name and type(n.ctx) is not ast.Load:
            out.add(n.id)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            out.update(a.arg for a in _params(n.args))
            if t is not ast.Lambda:
                out.add(n.name)
        elif t is ast.ClassDef:
            out.add(n.name)
        elif t in (ast.Import, ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif t is ast.ExceptHandler and n.name:
            out.add(n.name)
        elif t in (ast.Global, ast.Nonlocal):
            out.update(n.names)
    return out


def _bound_once(tree, names):
    """The names the module binds exactly once outside functions, by their import: a second
    binding (`Gone = wrap(Gone)`, another import of the same local) may be what a use reads, and
    an import inside a function is that function's own."""
    counts = {}
    for s in tree.body:
        stack = [s]
        while stack:
            n = stack.pop()
            t = type(n)
            if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                counts[n.name] = counts.get(n.name, 0) + 2
                if t is ast.ClassDef:
                    stack.extend(n.body)
                continue
            if t in (ast.Import, ast.ImportFrom):
                for a in n.names:
                    local = (a.asname or a.name).split(".")[0]
                    counts[local] = counts.get(local, 0) + 1
                continue
            if t is ast.Name and type(n.ctx) is not ast.Load:
                counts[n.id] = counts.get(n.id, 0) + 2
            stack.extend(ast.iter_child_nodes(n))
    return {name for name in names if counts.get(name) == 1}


def evaluated_loads(tree, names):
    """[{"local", "line", "col", "function", "where"}] for each place Python evaluates one of
    `names` (the module's unguarded `from` imports of target names), one per name and line."""
    names = _bound_once(tree, set(names))
    if not names:
        return []
    future = _future_annotations(tree)
    out, seen = [], set()

    def expr(node, where, function, hidden):
        inner = hidden | (_bound_in(node) if any(type(n) in (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                                                   ast.GeneratorExp) for n in walk(node)) else set())
        for n in walk(node):
            if type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in names and n.id not in inner \
                    and (n.id, n.lineno) not in seen and len(out) < MAX_LOADS:
                seen.add((n.id, n.lineno))
                out.append({"local": n.id, "line": n.lineno, "col": n.col_offset, "function": function,
                            "where": where})

    def annotation(node, function, hidden):
        if node is not None and not future:
            expr(node, "annotation", function, hidden)

    def stmt(s, function, hidden, in_function):
        t = type(s)
        if t is ast.If and _is_type_checking(s.test):
            for child in s.orelse:
                stmt(child, function, hidden, in_function)
            return
        if t in (ast.FunctionDef, ast.AsyncFunctionDef):
            for d in s.decorator_list:
                expr(d, "decorator", function, hidden)
            for d in s.args.defaults + [k for k in s.args.kw_defaults if k is not None]:
                expr(d, "default", function, hidden)
            for a in _params(s.args):
                annotation(a.annotation, function, hidden)
            annotation(s.returns, function, hidden)
            qual = s.name if function == "<module>" else function + "." + s.name
            inner = hidden | _bound_in(s)
            for child in s.body:
                stmt(child, qual, inner, True)
            return
        if t is ast.ClassDef:
            for d in s.decorator_list + s.bases + [k.value for k in s.keywords]:
                expr(d, "class", function, hidden)
            qual = s.name if function == "<module>" else function + "." + s.name
            for child in s.body:
                stmt(child, qual, hidden, False)
            return
        if t is ast.AnnAssign:
            if not in_function:
                annotation(s.annotation, function, hidden)
            for part in (s.target, s.value):
                if part is not None:
                    expr(part, "value", function, hidden)
            return
        for child in ast.iter_child_nodes(s):
            if isinstance(child, ast.stmt):
                stmt(child, function, hidden, in_function)
            elif type(child) is ast.ExceptHandler:
                if child.type is not None:
                    expr(child.type, "except", function, hidden)
                for c in child.body:
                    stmt(c, function, hidden, in_function)
            elif hasattr(ast, "match_case") and type(child) is ast.match_case:
                for c in child.body:
                    stmt(c, function, hidden, in_function)
            else:
                expr(child, "value", function, hidden)

    for s in tree.body:
        stmt(s, "<module>", frozenset(), False)
    return out


def evaluated_chains(tree, modules):
    """[{"path", "line", "col", "function", "where"}] for each attribute chain through a name the
    file imports (`modules`: local -> the dotted name it binds, `import a.b as mk` gives mk -> a.b,
    `import a.b.c` gives a -> a, `from a import mk` gives mk -> a.mk) that Python evaluates when a `def` or `class` runs:
    a parameter or return annotation (`-> mk.Experts`), a default, a decorator, a base, a class
    keyword, a class-level annotation. A name the target dropped from that module fails there with
    AttributeError at import time, before any call; the usage extractors record reads in bodies,
    not these. `path` is `["sym:<module>", ".attr", ...]`, the chain's full length. A local the
    file also binds another way (an assignment, a parameter) is left out: the chain may be that."""
    rebound = set()
    for n in walk(tree):
        t = type(n)
        if t is ast.Name and type(n.ctx) is not ast.Load:
            rebound.add(n.id)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            rebound.update(a.arg for a in _params(n.args))
    local = {k: v for k, v in modules.items() if k not in rebound}
    if not local:
        return []
    future = _future_annotations(tree)
    out, inner = [], set()

    def chains(node, where, function):
        if node is None:
            return
        for n in walk(node):
            if type(n) is not ast.Attribute or id(n) in inner or len(out) >= MAX_LOADS:
                continue
            attrs, cur = [], n
            while type(cur) is ast.Attribute:
                inner.add(id(cur))
                attrs.append(cur.attr)
                cur = cur.value
            if type(cur) is ast.Name and cur.id in local:
                out.append({"path": ["sym:" + local[cur.id]] + ["." + a for a in reversed(attrs)],
                            "line": n.lineno, "col": n.col_offset, "function": function, "where": where})

    def stmt(s, scope, function):
        """`scope`: the qualified name the statement sits in; `function`: the function whose run
        evaluates its def-time parts ("<module>" for a module or class body run at import)."""
        t = type(s)
        if t is ast.If and _is_type_checking(s.test):
            for child in s.orelse:
                stmt(child, scope, function)
            return
        if t in (ast.FunctionDef, ast.AsyncFunctionDef):
            for d in s.decorator_list:
                chains(d, "decorator", function)
            for d in s.args.defaults + [k for k in s.args.kw_defaults if k is not None]:
                chains(d, "default", function)
            if not future:
                for a in _params(s.args):
                    chains(a.annotation, "annotation", function)
                chains(s.returns, "annotation", function)
            qual = s.name if scope == "<module>" else scope + "." + s.name
            for child in s.body:
                stmt(child, qual, qual)
            return
        if t is ast.ClassDef:
            for d in s.decorator_list + s.bases + [k.value for k in s.keywords]:
                chains(d, "class", function)
            qual = s.name if scope == "<module>" else scope + "." + s.name
            for child in s.body:
                if type(child) is ast.AnnAssign and not future:
                    chains(child.annotation, "annotation", function)
                stmt(child, qual, function)
            return
        for child in ast.iter_child_nodes(s):
            if isinstance(child, ast.stmt):
                stmt(child, scope, function)
            elif type(child) is ast.ExceptHandler or (hasattr(ast, "match_case") and type(child) is ast.match_case):
                for c in child.body:
                    stmt(c, scope, function)

    for s in tree.body:
        stmt(s, "<module>", "<module>")
    return out
