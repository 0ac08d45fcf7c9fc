"""The environment variables a module sets (stdlib, Python 3.9+).

vLLM decides some behaviour from its settings at run time (`VLLM_USE_V1` picks the engine class
its factories hand back). A consumer that sets such a variable itself (`os.environ["VLLM_USE_V1"]
= "0"` before it builds the engine) has made that choice, whatever the release's default says, so
drift must not judge it by the default (drift/analysis/rules/vllm/v1_engine.py).
"""

import ast

from .astwalk import walk


def _environ(node):
    """Whether `node` is `os.environ` (or a bare `environ` imported from os)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "environ")


def _text(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def env_sets(tree):
    """[[name, value or None, line], ...]: `os.environ["N"] = v`, `os.environ.setdefault("N", v)`,
    `os.environ.update(N=v)` / `({"N": v})`, `os.putenv("N", v)`, `monkeypatch.setenv("N", v)`;
    the value when it is a string literal."""
    out = []
    for node in walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and _environ(t.value) and _text(t.slice) is not None:
                    out.append([_text(t.slice), _text(node.value), node.lineno])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if f.attr == "setdefault" and _environ(f.value) and node.args and _text(node.args[0]) is not None:
                value = _text(node.args[1]) if len(node.args) > 1 else None
                out.append([_text(node.args[0]), value, node.lineno])
            elif f.attr == "update" and _environ(f.value):
                for k in node.keywords:
                    if k.arg:
                        out.append([k.arg, _text(k.value), node.lineno])
                if node.args and isinstance(node.args[0], ast.Dict):
                    for k, v in zip(node.args[0].keys, node.args[0].values):
                        if _text(k) is not None:
                            out.append([_text(k), _text(v), node.lineno])
            elif f.attr in ("putenv", "setenv") and len(node.args) >= 1 and _text(node.args[0]) is not None:
                value = _text(node.args[1]) if len(node.args) > 1 else None
                out.append([_text(node.args[0]), value, node.lineno])
    return out
