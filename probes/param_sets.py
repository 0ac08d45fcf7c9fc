"""The attributes a function stores on each of its parameters (stdlib, 3.9+).

Why: vLLM's `init_app_state(engine_client, state, args)` fills the server's `State` object the
caller hands it (`state.openai_serving_tokenization = OpenAIServingTokenization(...)`). A serving
add-on that builds its own `State`, hands it over and then reads `state.openai_serving_chat`
depends on those names, though no signature mentions them. When vLLM stores another name
(0.25: `state.serving_tokenization`), the add-on's read fails or, through `getattr(state, name,
None)`, silently finds nothing. The probe records, per parameter, each attribute stored on it
with its first line and the class the stored value is built from (last name segment of a call's
callee, "" otherwise), and the functions the parameter is handed on to by position
(`init_pooling_state(engine_client, state, args)`), so one hop into a helper is followed too.
"""

import ast

_MAX_ATTRS = 64


def _callee_name(value):
    if isinstance(value, ast.Await):
        value = value.value
    if isinstance(value, ast.Call):
        f = value.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return ""


def param_sets(fn, names):
    """({param: {attr: [first line, built class name or ""]}}, {param: [[callee name, position]]})
    for the parameters in `names` the body never rebinds."""
    wanted = set(names)
    if not wanted:
        return {}, {}
    sets, hands, rebound = {}, {}, set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t in (ast.Assign, ast.AnnAssign):
            targets = node.targets if t is ast.Assign else [node.target]
            for tgt in targets:
                if isinstance(tgt, ast.Attribute) and isinstance(tgt.value, ast.Name) and tgt.value.id in wanted:
                    seen = sets.setdefault(tgt.value.id, {})
                    if tgt.attr not in seen or node.lineno < seen[tgt.attr][0]:
                        seen[tgt.attr] = [node.lineno, _callee_name(node.value) if node.value is not None else ""]
        elif t is ast.Call and isinstance(node.func, ast.Name):
            for i, a in enumerate(node.args):
                if isinstance(a, ast.Name) and a.id in wanted:
                    row = [node.func.id, i]
                    if row not in hands.setdefault(a.id, []):
                        hands[a.id].append(row)
        elif t is ast.Name and node.id in wanted and type(node.ctx) is not ast.Load:
            rebound.add(node.id)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            a = node.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is not None and arg.arg in wanted:
                    rebound.add(arg.arg)
        stack.extend(ast.iter_child_nodes(node))
    out_sets = {n: dict(sorted(v.items())) for n, v in sets.items() if n not in rebound and len(v) <= _MAX_ATTRS}
    out_hands = {n: v for n, v in hands.items() if n not in rebound}
    return out_sets, out_hands
