"""What a module reads off a web app's `state` by name (stdlib, Python 3.9+).

vLLM's OpenAI server builds its serving objects into the Starlette app's `state`
(`init_app_state(engine_client, app.state, args)` stores `state.openai_serving_chat = ...`). A
serving add-on that mounts its own routes on that app reads them back by name, through the
request: `request.app.state.openai_serving_tokenization`. Nothing there names a vLLM type, so no
typed path reaches the read; when vLLM renames what it stores (`serving_tokenization`), the route
raises AttributeError at its first request. The probe records the names read and where; drift
compares them with what the target's `init_app_state` stores on each side
(drift/analysis/rules/app_state.py).
"""

import ast

from .astwalk import walk


def _on_app_state(node):
    """Whether `node` is `<...>.app.state` or `app.state` (a name `app`, a module's FastAPI app)."""
    if not (isinstance(node, ast.Attribute) and node.attr == "state"):
        return False
    owner = node.value
    return (isinstance(owner, ast.Attribute) and owner.attr == "app") or \
        (isinstance(owner, ast.Name) and owner.id == "app")


def app_state_reads(tree):
    """[[name, line, col, how], ...]: `X.app.state.name` loaded ("attr"), `getattr(X.app.state,
    "name")` ("getattr") or with a default ("default"). Names the module stores there itself
    (`app.state.name = ...`, `setattr(app.state, "name", v)`) are its own: left out."""
    out, own = [], set()
    for node in walk(tree):
        if isinstance(node, ast.Attribute) and _on_app_state(node.value):
            if isinstance(node.ctx, ast.Load):
                out.append([node.attr, node.lineno, node.col_offset, "attr"])
            else:
                own.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 2 \
                and _on_app_state(node.args[0]) and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            name = node.args[1].value
            if node.func.id == "getattr":
                how = "default" if len(node.args) > 2 or node.keywords else "getattr"
                out.append([name, node.args[1].lineno, node.args[1].col_offset, how])
            elif node.func.id == "setattr":
                own.add(name)
    return [row for row in out if row[0] not in own]
