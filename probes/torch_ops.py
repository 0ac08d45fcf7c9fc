"""Where a consumer module reaches a custom op by name, `torch.ops.<ns>.<op>` (stdlib, 3.9+).

Why: vLLM registers some of its functions as torch custom ops (`direct_register_custom_op`,
`@torch.library.custom_op("vllm::x")`) and plugins call them through the op registry,
`torch.ops.vllm.x(...)`, never importing the function: no import and no call record names it, so
an op the target stopped registering, or whose signature (hence schema) changed, went unseen.
Recorded: each `torch.ops.<ns>.<op>` written (`.default` and other overload names dropped), with
the call's shape when it is called: positional count, keyword names, `*`/`**` present.
"""

import ast

MAX_OPS = 200  # per module
_REGISTERS = ("direct_register_custom_op", "custom_op", "define", "register_fake", "impl")
_OVERLOAD_SUFFIXES = ("default",)


def _op_of(node):
    """(ns, op) of `torch.ops.ns.op` / `torch.ops.ns.op.default`, else None."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name or node.id != "torch":
        return None
    parts.reverse()
    if len(parts) < 3 or parts[0] != "ops":
        return None
    if len(parts) == 4 and parts[3] in _OVERLOAD_SUFFIXES:
        return parts[1], parts[2]
    return (parts[1], parts[2]) if len(parts) == 3 else None


def _chain(node):
    """Ids of the attribute nodes below `node` (`torch.ops.vllm.x` under `torch.ops.vllm.x.default`)."""
    out = set()
    while type(node) is ast.Attribute:
        out.add(id(node))
        node = node.value
    return out


def _tests_around(tree):
    """id(node) -> the lines of the `if` tests (and `a if t else b` tests) whose body or branch holds
    it, outermost first: a use under a test that already fails on the target runs only once that
    test is fixed (drift/analysis/masked_ops.py)."""
    out = {}
    stack = [(tree, ())]
    while stack:
        node, tests = stack.pop()
        out[id(node)] = tests
        t = type(node)
        for field, value in ast.iter_fields(node):
            kids = value if isinstance(value, list) else [value]
            inner = tests + (node.test.lineno,) if t in (ast.If, ast.IfExp) and field in ("body", "orelse") else tests
            for kid in kids:
                if isinstance(kid, ast.AST):
                    stack.append((kid, inner))
    return out


def op_uses(tree):
    """[{"ns", "op", "line", "col", "called", "positional", "keywords", "star_args", "star_kwargs",
    "within"}]."""
    out = []
    covered = set()
    around = _tests_around(tree)
    for node in ast.walk(tree):
        if type(node) is ast.Call:
            got = _op_of(node.func)
            if got is None:
                continue
            covered |= _chain(node.func)
            out.append({"ns": got[0], "op": got[1], "line": node.lineno, "col": node.col_offset, "called": True,
                        "positional": sum(1 for a in node.args if type(a) is not ast.Starred),
                        "keywords": [k.arg for k in node.keywords if k.arg is not None],
                        "star_args": any(type(a) is ast.Starred for a in node.args),
                        "star_kwargs": any(k.arg is None for k in node.keywords)})
            if around.get(id(node)):
                out[-1]["within"] = list(around[id(node)][-3:])
    for node in ast.walk(tree):  # walked outer first: an overload's node covers the op's below it
        if type(node) is ast.Attribute and type(node.ctx) is ast.Load and id(node) not in covered:
            got = _op_of(node)
            if got is not None:
                covered |= _chain(node)
                out.append({"ns": got[0], "op": got[1], "line": node.lineno, "col": node.col_offset, "called": False})
                if around.get(id(node)):
                    out[-1]["within"] = list(around[id(node)][-3:])
    out.sort(key=lambda r: (r["line"], r["col"]))
    return out[:MAX_OPS]


def _literal(node):
    return node.value if type(node) is ast.Constant and isinstance(node.value, str) else None


def op_defs(tree):
    """The op names the module registers itself: `direct_register_custom_op("x", ...)` /
    `(op_name="x", ...)`, `custom_op("ns::x")`, `lib.define("x(Tensor a) -> Tensor")`, as
    `x` (the namespace dropped): a consumer's call of an op of that name may be its own op."""
    out = set()
    for node in ast.walk(tree):
        if type(node) is not ast.Call:
            continue
        f = node.func
        name = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None
        if name not in _REGISTERS:
            continue
        text = _literal(node.args[0]) if node.args else None
        if text is None:
            text = next((_literal(k.value) for k in node.keywords if k.arg in ("op_name", "name", "qualname")), None)
        if text:
            op = text.split("::")[-1].split("(")[0].split(".")[0].strip()
            if op.isidentifier():
                out.add(op)
    return sorted(out)[:MAX_OPS]
