"""A method named in a request body sent to an HTTP route (stdlib, Python 3.9+).

Why: a trainer that drives a remote server dispatches a worker method by name over HTTP, not by a
call: `post(url + "/collective_rpc", json={"method": "update_weights", ...})`, often through its
own helper (`self._call_all(route, body)`). The server runs the method just as the in-process
`collective_rpc("update_weights")` does, so the name meets the same clashes. The probe records,
without knowing any server, a call that hands a route (a string literal whose last path segment
is an identifier) and a dict literal whose "method" key holds an identifier string; which routes
dispatch by name is the analysis's knowledge (drift/analysis/rules/vllm/rpc.py DISPATCHERS).
"""

import ast

_NAME_KEYS = ("method", "method_name")


def routed_name(node):
    """(route's last segment, method name, line of the name) of a call `node` that sends a named
    method to a route, else None."""
    values = list(node.args) + [k.value for k in node.keywords]
    route = next((v.value.rstrip("/").rsplit("/", 1)[-1] for v in values
                  if isinstance(v, ast.Constant) and isinstance(v.value, str) and "/" in v.value
                  and v.value.rstrip("/").rsplit("/", 1)[-1].isidentifier()), None)
    if route is None:
        return None
    for v in values:
        if isinstance(v, ast.Dict):
            for k, item in zip(v.keys, v.values):
                if isinstance(k, ast.Constant) and k.value in _NAME_KEYS and isinstance(item, ast.Constant) \
                        and isinstance(item.value, str) and item.value.isidentifier() and len(item.value) <= 64:
                    return route, item.value, item.lineno
    return None
