"""Renames a module's own deprecation code names (old name -> successor), for fixes to follow.

Why: when vLLM deprecates a name it usually says in code what replaces it, a release before the
name goes: a shim that warns and hands the value on (`if guided_decoding is not None: warn(...);
structured_outputs = guided_decoding`), a helper called with both names
(`handle_deprecated(self, "enable_sequence_parallelism", "enable_sp", ...)`), a deprecated
subclass alias whose warning names its base (`GuidedDecodingParams(StructuredOutputsParams)`:
"Please use StructuredOutputsParams instead"), or a deprecated property returning the successor
(`return not self.enable_log_requests`). Once the target drops the old name, a consumer's use of it
can be rewritten to the successor the baseline itself named, with the value conversion the shim
performed. Only what the AST shows is recorded; a warning whose text names a successor the code
does not hand the value to is not a rename.

Each record: {"owner": class name or "" (module level), "old", "new", "via": "keyword" (a
parameter of the owner's constructor or of function `func`), "attribute" (read on an instance)
or "name" (the class itself), "func": the function whose parameter it is ("" for a class's
constructor), "convert": None (the value passes unchanged), "not" or the callee's source text
(`Cls(**v)`: "Cls(**{})"), "line"}.
"""

import ast
import re

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_WARNERS = frozenset(("warn", "warning", "warning_once", "warn_once", "deprecated", "info_once", "info"))
_USE = re.compile(r"(?:[Uu]se|replaced (?:with|by)|[Rr]enamed to|in favou?r of)\s+[`'\"]?([A-Za-z_]\w*)")
_DEPRECATED = re.compile(r"deprecat", re.IGNORECASE)


def _text(node):
    """The constant text of a message: string literals, f-strings and `+` joins (holes dropped)."""
    if type(node) is ast.Constant and isinstance(node.value, str):
        return node.value
    if type(node) is ast.JoinedStr:
        return "".join(v.value for v in node.values if type(v) is ast.Constant and isinstance(v.value, str))
    if type(node) is ast.BinOp and type(node.op) is ast.Add:
        return (_text(node.left) or "") + (_text(node.right) or "")
    if type(node) is ast.Call and type(node.func) is ast.Name and node.args:  # DeprecationWarning("...")
        return _text(node.args[0])
    return None


def _call_name(node):
    f = node.func
    if type(f) is ast.Name:
        return f.id
    if type(f) is ast.Attribute:
        return f.attr
    return None


def _warning_texts(nodes):
    """Texts of deprecation warnings among `nodes` (statements or decorators), walked deep."""
    out = []
    for top in nodes:
        for node in ast.walk(top):
            if type(node) is not ast.Call:
                continue
            name = _call_name(node) or ""
            if name not in _WARNERS and not _DEPRECATED.search(name):
                continue
            parts = [_text(a) for a in list(node.args) + [k.value for k in node.keywords]]
            text = " ".join(p for p in parts if p)
            if _DEPRECATED.search(text) or _DEPRECATED.search(name):
                out.append(text)
    return out


def _successors(texts):
    return {m.group(1) for t in texts for m in _USE.finditer(t)}


def _subject(node, self_name):
    """The name an `if` tests for being set: `x is not None`, `self.x is not None`, `x`, `self.x`."""
    if type(node) is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) is ast.IsNot:
        node = node.left
    if type(node) is ast.Name:
        return node.id, False
    if (type(node) is ast.Attribute and type(node.value) is ast.Name and self_name
            and node.value.id == self_name):
        return node.attr, True
    return None


def _convert(value, old, on_self, self_name):
    """How the shim turns the old value into the new one: None (as is), "not", a call's text with
    `{}` where the value goes; False when the value is not the old name's."""
    def is_old(n):
        if on_self:
            return (type(n) is ast.Attribute and n.attr == old and type(n.value) is ast.Name
                    and n.value.id == self_name)
        return type(n) is ast.Name and n.id == old
    if is_old(value):
        return None
    if type(value) is ast.UnaryOp and type(value.op) is ast.Not and is_old(value.operand):
        return "not"
    if type(value) is ast.Call and len(value.args) + len(value.keywords) == 1:
        callee = ast.unparse(value.func) if hasattr(ast, "unparse") else None
        if callee is None:
            return False
        if value.args and is_old(value.args[0]):
            return callee + "({})"
        if value.keywords and value.keywords[0].arg is None and is_old(value.keywords[0].value):
            return callee + "(**{})"
    return False


def _assigned(stmts, self_name, on_self):
    """(new name, value node) of `new = value` / `self.new = value` among `stmts`."""
    for st in stmts:
        if type(st) is not ast.Assign or len(st.targets) != 1:
            continue
        t = st.targets[0]
        if on_self and type(t) is ast.Attribute and type(t.value) is ast.Name and t.value.id == self_name:
            yield t.attr, st.value
        elif not on_self and type(t) is ast.Name:
            yield t.id, st.value


def _shims(fn, owner, params, self_name, out):
    """`if old is not None: warn("... use new ..."); new = old` inside `fn`."""
    for node in ast.walk(fn):
        if type(node) is not ast.If:
            continue
        subject = _subject(node.test, self_name)
        if subject is None:
            continue
        old, on_self = subject
        if not on_self and old not in params:
            continue
        texts = _warning_texts(node.body)
        if not texts or not any(old in t for t in texts):
            continue
        named = _successors(texts)
        for new, value in _assigned(node.body, self_name, on_self):
            if new == old or (named and new not in named):
                continue
            conv = _convert(value, old, on_self, self_name)
            if conv is False:
                continue
            if on_self:  # a field handed on in __post_init__: the constructor keyword and the attribute
                via = ("keyword", "attribute")
                func = ""
            else:
                via = ("keyword",)
                func = "" if fn.name == "__init__" and owner else fn.name
            for v in via:
                out.append({"owner": owner, "old": old, "new": new, "via": v, "func": func,
                            "convert": conv, "line": node.lineno})


def _helper_calls(fn, owner, out):
    """`handle_deprecated(self, "old", "new", ...)`: a deprecation helper given both names."""
    for node in ast.walk(fn):
        if type(node) is not ast.Call or not _DEPRECATED.search(_call_name(node) or ""):
            continue
        strs = [a for a in node.args if type(a) is ast.Constant and isinstance(a.value, str)]
        lists = [a for a in node.args if type(a) is ast.List]
        if len(strs) >= 2 and strs[0].value.isidentifier() and strs[1].value.isidentifier() and not lists:
            for via in ("keyword", "attribute"):
                out.append({"owner": owner, "old": strs[0].value, "new": strs[1].value, "via": via, "func": "",
                            "convert": None, "line": node.lineno})


def _property(fn, owner, self_name, out):
    """A deprecated property returning the successor: `return self.new` / `return not self.new`."""
    decos = [d for d in fn.decorator_list]
    texts = _warning_texts(decos) + _warning_texts(fn.body)
    if not texts:
        return
    rets = [n for n in ast.walk(fn) if type(n) is ast.Return and n.value is not None]
    if len(rets) != 1:
        return
    value, conv = rets[0].value, None
    if type(value) is ast.UnaryOp and type(value.op) is ast.Not:
        value, conv = value.operand, "not"
    if (type(value) is ast.Attribute and type(value.value) is ast.Name and value.value.id == self_name
            and value.attr in _successors(texts) and value.attr != fn.name):
        out.append({"owner": owner, "old": fn.name, "new": value.attr, "via": "attribute", "func": "",
                    "convert": conv, "line": fn.lineno})


def _class_alias(cls, out):
    """`class Old(New)` whose own code only warns "Old is deprecated ... use New instead"."""
    bases = {b.id if type(b) is ast.Name else b.attr for b in cls.bases if type(b) in (ast.Name, ast.Attribute)}
    own = [st for st in cls.body if type(st) in _FUNCS and st.name in ("__init__", "__post_init__", "__new__")]
    texts = _warning_texts(own) + _warning_texts(cls.decorator_list)
    texts = [t for t in texts if cls.name in t]
    for new in sorted(_successors(texts) & bases):
        out.append({"owner": "", "old": cls.name, "new": new, "via": "name", "func": "", "convert": None,
                    "line": cls.lineno})


def _self_name(fn):
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _params(fn):
    a = fn.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}


def deprecations(tree):
    """Every rename the module's deprecation code shows (see the module docstring)."""
    out = []
    for st in tree.body:
        if type(st) in _FUNCS:
            _shims(st, "", _params(st), None, out)
        elif type(st) is ast.ClassDef:
            _class_alias(st, out)
            for m in st.body:
                if type(m) not in _FUNCS:
                    continue
                self_name = _self_name(m)
                is_prop = any((type(d) is ast.Name and d.id in ("property", "cached_property"))
                              or (type(d) is ast.Attribute and d.attr in ("setter",)) for d in m.decorator_list)
                if is_prop:
                    _property(m, st.name, self_name, out)
                    continue
                _shims(m, st.name, _params(m) - {self_name}, self_name, out)
                _helper_calls(m, st.name, out)
    seen, uniq = set(), []
    for r in out:
        key = (r["owner"], r["old"], r["new"], r["via"], r["func"])
        if key not in seen:
            seen.add(key)
            uniq.append(r)
    return uniq
