"""Which class a function builds depends on a test, and what a test's inputs default to.

A release can swap the class it builds for a role (its model runner, its scheduler) behind an
`if`: `if self.use_v2: self.runner = RunnerV2(...) else: self.runner = Runner(...)`. A plugin
that patches `Runner` then patches nothing the target uses, and nothing raises. Three small
facts let drift see that without the source: the two arms of such a branch (per function,
`choices`), the default each environment variable of a settings module falls back to
(`env_defaults`: vLLM's `envs.py` maps names to `lambda: f(os.getenv("NAME", "0"))`), and the
values a property returns (`returns_src`), so a test's default can be evaluated.

Stdlib only, Python 3.9.
"""

import ast

_CUT = 160
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _capital(name):
    return bool(name) and name.rsplit(".", 1)[-1][:1].isupper()


def _built(stmts, resolve, text, out):
    """Every `x = Cls(...)`, `x: T = Cls(...)`, `return Cls(...)` in `stmts` (through nested
    if/with/try blocks) as [dotted, line, holder source or "return"]."""
    for st in stmts:
        t = type(st)
        value, holder = None, None
        if t is ast.Assign and len(st.targets) == 1:
            value, holder = st.value, st.targets[0]
        elif t is ast.AnnAssign and st.value is not None:
            value, holder = st.value, st.target
        elif t is ast.Return:
            value = st.value
        if type(value) is ast.Call:
            where = "return" if holder is None else text.of(holder, 80)
            for name in resolve(value.func):
                if _capital(name):
                    out.append([name, st.lineno, where])
            continue
        if t is ast.If:
            _built(st.body, resolve, text, out)
            _built(st.orelse, resolve, text, out)
        elif t is ast.With or t is ast.AsyncWith:
            _built(st.body, resolve, text, out)
        elif t is ast.Try or t.__name__ == "TryStar":
            _built(st.body, resolve, text, out)
            for h in st.handlers:
                _built(h.body, resolve, text, out)
            _built(st.orelse, resolve, text, out)
            _built(st.finalbody, resolve, text, out)


def branch_builds(body, resolve, text):
    """[{"line", "test", "then": [[dotted, line, holder]], "else": [...]}]: every `if` of the
    function (not of nested functions) whose two arms build classes, where the arms do not
    build the same ones. `resolve(func)` names a callee through the function's imports and
    locals (bare names stay as written; drift resolves them through the module's imports)."""
    found = []
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, _NESTED):
            continue
        if type(st) is ast.If and st.orelse:
            then, other = [], []
            _built(st.body, resolve, text, then)
            _built(st.orelse, resolve, text, other)
            if then and other and {e[0] for e in then} != {e[0] for e in other}:
                found.append({"line": st.lineno, "test": text.of(st.test, _CUT), "then": then, "else": other})
        for f in ("body", "orelse", "finalbody"):
            v = getattr(st, f, None)
            if type(v) is list:
                stack.extend(x for x in v if isinstance(x, ast.stmt))
        for h in getattr(st, "handlers", None) or ():
            stack.extend(h.body)
    found.sort(key=lambda c: c["line"])
    return found


def _getenv(node):
    """(name, default node) of `os.getenv("N", d)` / `os.environ.get("N", d)` / `getenv("N")`."""
    if type(node) is not ast.Call or not node.args or len(node.args) > 2 or node.keywords:
        return None
    f = node.func
    ok = (type(f) is ast.Attribute and f.attr == "getenv") or (type(f) is ast.Name and f.id == "getenv") or \
        (type(f) is ast.Attribute and f.attr == "get" and type(f.value) is ast.Attribute and f.value.attr == "environ")
    key = node.args[0]
    if not ok or type(key) is not ast.Constant or not isinstance(key.value, str):
        return None
    return key.value, (node.args[1] if len(node.args) == 2 else None)


def _setting_lambdas(stmts):
    """(key, lambda) for each `"NAME": lambda: <expr>` entry of a module-level dict: the shape of
    vLLM's settings table (`environment_variables` in envs.py), read by env_defaults and env_exprs."""
    for st in stmts:
        value = st.value if type(st) in (ast.Assign, ast.AnnAssign) else None
        if type(value) is not ast.Dict:
            continue
        for k, v in zip(value.keys, value.values):
            if type(k) is ast.Constant and isinstance(k.value, str) and type(v) is ast.Lambda:
                yield k, v


def env_defaults(stmts, text):
    """{NAME: {"line", "expr", "default"}} for each `"NAME": lambda: <expr>` entry of a
    module-level dict whose expr reads the variable NAME itself: what the setting evaluates to
    when the variable is unset is expr with that read replaced by its default ("None" when the
    read has none)."""
    out = {}
    for k, v in _setting_lambdas(stmts):
        for n in ast.walk(v.body):
            got = _getenv(n)
            if got is not None and got[0] == k.value:
                default = got[1]
                out[k.value] = {"line": k.lineno, "expr": text.of(v.body, _CUT * 2),
                                "read": text.of(n, _CUT),
                                "default": "None" if default is None else text.of(default, _CUT)}
                break
    return out


def _environ_read(node, name):
    """Whether `node` reads variable `name` as `os.environ["name"]` or tests `"name" in os.environ`."""
    t = type(node)
    if t is ast.Subscript and type(node.value) is ast.Attribute and node.value.attr == "environ":
        key = node.slice
        if type(key) is ast.Index:  # Python < 3.9
            key = key.value
        return type(key) is ast.Constant and key.value == name
    if t is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) in (ast.In, ast.NotIn):
        right = node.comparators[0]
        return type(node.left) is ast.Constant and node.left.value == name and \
            type(right) is ast.Attribute and right.attr == "environ"
    return False


def env_exprs(stmts, text):
    """{NAME: {"line", "expr"}} for each `"NAME": lambda: <expr>` entry of a module-level dict whose
    expr reads the variable NAME itself in any form (`os.getenv`, `os.environ.get`,
    `os.environ["NAME"]`, `"NAME" in os.environ`): what the setting evaluates, whole, so a
    consumer's read of a setting the target dropped can evaluate it as the baseline did."""
    out = {}
    for k, v in _setting_lambdas(stmts):
        for n in ast.walk(v.body):
            got = _getenv(n)
            if (got is not None and got[0] == k.value) or _environ_read(n, k.value):
                out[k.value] = {"line": k.lineno, "expr": text.of(v.body, _CUT * 2)}
                break
    return out


def return_sources(body, text):
    """[[line, source]] of the function's own `return <expr>` statements, in order (a property's
    possible values)."""
    out = []
    stack = list(reversed(body))
    while stack:
        st = stack.pop()
        if isinstance(st, _NESTED):
            continue
        if type(st) is ast.Return:
            out.append([st.lineno, "None" if st.value is None else text.of(st.value, 80)])
            continue
        children = []
        for f in ("body", "orelse", "finalbody"):
            v = getattr(st, f, None)
            if type(v) is list:
                children.extend(x for x in v if isinstance(x, ast.stmt))
        for h in getattr(st, "handlers", None) or ():
            children.extend(h.body)
        stack.extend(reversed(children))
    return out
