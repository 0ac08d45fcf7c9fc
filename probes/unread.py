"""Parameters a function's body never mentions (stdlib, Python 3.9+).

Why: a keyword the baseline's callable took and never read was already a no-op there (vLLM
0.11's `AsyncLLM.from_vllm_config(disable_log_requests=...)`, kept only for its deprecation
warning): when the target drops it, dropping it from the consumer's call loses nothing, whatever
value the consumer passed. Any mention counts as a read (a store, a `del`, a nested function's
use), and a body that could reach its parameters by other means (`locals()`, `vars()`) or that is
a stub a subclass fills in (`pass`, `...`, `raise NotImplementedError`) records nothing.
"""

import ast

_INTROSPECTION = ("locals", "vars", "eval", "exec")


def _is_stub(body):
    stmts = list(body)
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
            and isinstance(stmts[0].value.value, str):
        stmts = stmts[1:]  # the docstring
    if not stmts:
        return True
    if len(stmts) != 1:
        return False
    st = stmts[0]
    if isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)
                                    and st.value.value is Ellipsis):
        return True
    if isinstance(st, ast.Raise) and st.exc is not None:
        exc = st.exc.func if isinstance(st.exc, ast.Call) else st.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def unread_params(fn, names):
    """The names in `names` (parameters a caller binds) that `fn`'s body never mentions, in order;
    [] for a stub or a body that introspects its frame."""
    if _is_stub(fn.body):
        return []
    seen = set()
    for st in fn.body:
        for node in ast.walk(st):
            if isinstance(node, ast.Name):
                seen.add(node.id)
                if node.id in _INTROSPECTION:
                    return []
    return [n for n in names if n not in seen]
