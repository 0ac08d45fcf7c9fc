"""What the consumer reads off an object of its own after handing it to a target function that
fills it (stdlib, 3.9+).

`state = State(); init_app_state(engine_client, state, args); state.openai_serving_chat` (Ray,
KServe, Dynamo and other serving add-ons): the names the add-on reads are the ones vLLM's
function stores on its parameter (target facts `param_sets`), which no signature states. The
probe records, per scope, each call of a name the module imported from the target that passes a
plain local (by position or keyword), and the reads of that local after the call in the same
scope: `x.attr` and `getattr(x, "attr"[, default])`. A local the scope binds more than once, or
stores the attribute on itself, is left out: what it holds then is not only the target's doing.
"""

import ast


def _scopes(tree):
    out = [tree]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node)
    return out


def _own_nodes(scope):
    """The scope's nodes, nested functions and classes left out (they are scopes of their own)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return head + "." + node.attr if head else None
    return None


def handed_bags(tree, bindings):
    """[{"callee": dotted, "position": i | None, "keyword": k | None, "line": n,
    "reads": [[attr, line, col, how]]}] with how "attr", "getattr" or "getattr_default"."""
    out = []
    for scope in _scopes(tree):
        nodes = list(_own_nodes(scope))
        binds = {}
        stored = {}
        for n in nodes:
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                binds[n.id] = binds.get(n.id, 0) + 1
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
                stored.setdefault(n.value.id, set()).add(n.attr)
        reads_of = {}  # name -> every read of it in the scope
        for n in nodes:
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name):
                reads_of.setdefault(n.value.id, []).append([n.attr, n.lineno, n.col_offset, "attr"])
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr" \
                    and len(n.args) in (2, 3) and isinstance(n.args[0], ast.Name) \
                    and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                reads_of.setdefault(n.args[0].id, []).append(
                    [n.args[1].value, n.lineno, n.col_offset, "getattr_default" if len(n.args) == 3 else "getattr"])
        for call in nodes:
            if not isinstance(call, ast.Call):
                continue
            text = _dotted(call.func)
            head, _, rest = (text or "").partition(".")
            if head not in bindings:
                continue
            callee = bindings[head] + ("." + rest if rest else "")
            handed = [(a.id, i, None) for i, a in enumerate(call.args) if isinstance(a, ast.Name)]
            handed += [(k.value.id, None, k.arg) for k in call.keywords if k.arg and isinstance(k.value, ast.Name)]
            for name, position, keyword in handed:
                if binds.get(name, 0) > 1 or name in bindings:
                    continue
                reads = [r for r in reads_of.get(name, ()) if r[1] > call.lineno and r[0] not in stored.get(name, ())]
                if reads:
                    out.append({"callee": callee, "position": position, "keyword": keyword, "line": call.lineno,
                                "reads": sorted(reads, key=lambda r: (r[1], r[2]))})
    return out
