"""`ast.walk`, computed once per node while an extraction runs.

Why: the usage and reach extractors walk the same module and the same function bodies about
fifteen times each (speculators' modules: 89k `iter_child_nodes` calls, most of a module's
usage extraction). Inside `memoised()`, `walk(node)` returns the list `ast.walk(node)` would
yield, in the same order, computed the first time it is asked; outside it is `ast.walk`.
The memo holds the nodes it lists, so an id is never reused while it lives, and no node
refers to it, so it leaves no reference cycle behind (the collector is paused during parses).
The trees must not be changed while it is active; no extractor changes them. Stdlib only,
Python 3.9.
"""

import ast
from contextlib import contextmanager

_AST = ast.AST
_memo = None


@contextmanager
def memoised():
    """Walks inside this block are computed once per node; nested blocks share the outer memo."""
    global _memo
    if _memo is not None:
        yield
        return
    _memo = {}
    try:
        yield
    finally:
        _memo = None


def walk(node):
    """What `ast.walk(node)` yields (breadth first, fields in order), as a list when memoised."""
    memo = _memo
    if memo is None:
        return ast.walk(node)
    nodes = memo.get(id(node))
    if nodes is None:
        nodes = [node]
        append = nodes.append
        for n in nodes:  # the list grows as it is read: breadth first, as ast.walk's deque
            for field in n._fields:
                try:
                    v = getattr(n, field)
                except AttributeError:
                    continue
                if isinstance(v, _AST):
                    append(v)
                elif isinstance(v, list):
                    for item in v:
                        if isinstance(item, _AST):
                            append(item)
        memo[id(node)] = nodes
    return nodes


def children(n):
    """`list(ast.iter_child_nodes(n))`, same order, without its two generators (the own-node
    walks below ask it of every node of every function: ~10 % of a consumer read)."""
    out = []
    for field in n._fields:
        try:
            v = getattr(n, field)
        except AttributeError:
            continue
        if isinstance(v, _AST):
            out.append(v)
        elif isinstance(v, list):
            for item in v:
                if isinstance(item, _AST):
                    out.append(item)
    return out


def once(fn, node):
    """`fn(node)`, computed once per function and node inside `memoised()` (every caller gets
    the same object: none may change it); outside it, computed each time.

    Why: the usage, reach and IR extractors each ask a module's tree the same whole-module
    question (`reach.flag_constants`: three passes over every node of every module read)."""
    memo = _memo
    if memo is None:
        return fn(node)
    key = (fn, id(node))  # beside the walks' int keys: a tuple never equals an int
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = (node, fn(node))  # the node held with its answer: its id is not reused meanwhile
    return hit[1]



def int_constant(node):
    """The int a node writes literally (`2`, not `True`), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def picks_one(index):
    """A subscript index that picks one element (`x[i]`, `x[ve]`), not a slice or a tuple of axes."""
    return not isinstance(index, (ast.Slice, ast.Tuple))


_NOT_OWN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.expr_context)


def own_nodes(fnode):
    """A function's own nodes: nested defs, lambdas and classes are read as functions of their
    own, and Load/Store contexts hold nothing."""
    stack = list(fnode.body)
    while stack:
        n = stack.pop()
        yield n
        for child in children(n):
            if not isinstance(child, _NOT_OWN):
                stack.append(child)
