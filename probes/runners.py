"""Calls that run another function for the caller, read as a call of that function (stdlib, 3.9+).

Why: `await asyncio.to_thread(Engine.send, iterator=it, group=g)` binds `iterator=` and `group=`
to `Engine.send`'s parameters exactly as `Engine.send(iterator=it, group=g)` would; only the
failure moves (into the worker thread, the process or the future). A consumer that offloads a
blocking vLLM call this way meets a removed keyword or a new required parameter all the same, so
the probe records the inner call beside the outer one and every signature rule judges it.

Runners recognised, by what the standard library defines (never by a consumer's names):
`asyncio.to_thread(f, *a, **kw)`; `<loop>.run_in_executor(executor, f, *a)` (any receiver: the
method name is asyncio's); `<executor>.submit(f, *a, **kw)` on a `concurrent.futures` executor
the probe can see built; `functools.partial(f, *a, **kw)` (open: the rest of the arguments come
later, so it can show an argument that is not accepted, never one that is missing);
`threading.Thread` / `multiprocessing.Process` (also `get_context(...).Process`) with
`target=f`, `args=(...)` and `kwargs={...}` (a non-literal `args=` or `kwargs=` leaves the
positional count or the keywords open).
"""

import ast

_DIRECT = {"asyncio.to_thread": 0, "functools.partial": 0}  # dotted runner -> index of the function
_TARGETED = ("threading.Thread", "multiprocessing.Process", "multiprocessing.context.Process",
             "torch.multiprocessing.Process")
_CONTEXTS = ("multiprocessing", "torch.multiprocessing")
_EXECUTORS = ("concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
              "concurrent.futures.thread.ThreadPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor")


def dotted_path(path):
    """`sym:asyncio .to_thread` (or `sym:asyncio.to_thread`) as `asyncio.to_thread`; None when a
    step is not an attribute."""
    if not path or not path[0].startswith("sym:") or not all(s.startswith(".") for s in path[1:]):
        return None
    return path[0][4:] + "".join(path[1:])


def inner_call(node, callee_path):
    """The call a runner makes for the caller, as a synthetic `ast.Call` placed at the function
    argument (so a finding lands on the consumer's line), or None when `node` runs nothing.
    `callee_path` is the runner's own path (reach.py's language) or None."""
    func = node.func
    dotted = dotted_path(callee_path)
    if dotted in _DIRECT:
        return _shifted(node, _DIRECT[dotted] + 1, open_=dotted == "functools.partial")
    if isinstance(func, ast.Attribute) and func.attr == "run_in_executor" and not node.keywords:
        return _shifted(node, 2, open_=False)
    if isinstance(func, ast.Attribute) and func.attr == "submit" and _is_executor(callee_path):
        return _shifted(node, 1, open_=False)
    if dotted in _TARGETED or _is_context_process(callee_path):
        return _targeted(node)
    return None


def _is_executor(path):
    """`ThreadPoolExecutor(...).submit` as the probe sees it: the executor's class, built, then
    the method."""
    if not path or len(path) < 3 or path[-1] != ".submit" or path[-2] != "()":
        return False
    return dotted_path(path[:-2]) in _EXECUTORS


def _is_context_process(path):
    """`multiprocessing.get_context("spawn").Process`."""
    if not path or len(path) < 4 or path[-1] != ".Process" or path[-2] != "()" or path[-3] != ".get_context":
        return False
    return dotted_path(path[:-3]) in _CONTEXTS


def _shifted(node, first, *, open_):
    """`runner(a0, ..., f, x, y, k=v)` -> `f(x, y, k=v)`; the function is argument `first - 1`."""
    if len(node.args) < first or isinstance(node.args[first - 1], ast.Starred):
        return None
    fn = node.args[first - 1]
    args = list(node.args[first:])
    keywords = list(node.keywords)
    if open_:  # the caller of the partial supplies the rest: neither count is known
        args.append(_at(ast.Starred(value=ast.Name(id="_", ctx=ast.Load()), ctx=ast.Load()), fn))
        keywords.append(_at(ast.keyword(arg=None, value=_at(ast.Constant(value=None), fn)), fn))
    return _call_at(fn, args, keywords, node)


def _targeted(node):
    """`Thread(target=f, args=(x,), kwargs={"k": v})` -> `f(x, k=v)`."""
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    fn = kw.get("target")
    if fn is None:
        return None
    args = []
    given = kw.get("args")
    if isinstance(given, (ast.Tuple, ast.List)):
        args = list(given.elts)
    elif given is not None:
        args = [_at(ast.Starred(value=given, ctx=ast.Load()), given)]
    keywords = []
    given = kw.get("kwargs")
    if isinstance(given, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                           for k in given.keys):
        for k, v in zip(given.keys, given.values):
            keywords.append(_at(ast.keyword(arg=k.value, value=v), k))
    elif given is not None:
        keywords.append(_at(ast.keyword(arg=None, value=given), given))
    return _call_at(fn, args, keywords, node)


def _call_at(fn, args, keywords, outer):
    call = ast.Call(func=fn, args=args, keywords=keywords)
    call.lineno, call.col_offset = fn.lineno, fn.col_offset
    call.end_lineno, call.end_col_offset = outer.end_lineno, outer.end_col_offset
    return call


def _at(new, old):
    new.lineno, new.col_offset = old.lineno, old.col_offset
    new.end_lineno = getattr(old, "end_lineno", old.lineno)
    new.end_col_offset = getattr(old, "end_col_offset", old.col_offset)
    return new
