"""Pure function from one module's source to its facts (the Module object of SCHEMA.md).

Nothing is imported or executed: the facts are what the AST alone can show. Errors in the input
(syntax, encoding, null bytes) are recorded in the module's "error", never raised, so one bad
file never stops a scan of a thousand good ones.
"""

import ast

from .behaviour import function_behaviour
from .copies import statement_shape
from .cli_args import parser_facts
from .forwards import kwargs_forwards
from .choices import env_defaults, env_exprs, return_sources
from .name_tables import name_checks
from .deprecations import deprecations
from .derefs import can_be_none, param_facts
from .unread import unread_params
from .param_reads import param_attr_reads
from .srctext import SourceText, decorator_name, dotted, last_segment

# Bump when the extracted facts change shape or meaning: cached facts of an older version are
# then re-parsed instead of served.
FACTS_VERSION = "1.10-nd2+ifc2+kvl+mr2+lv-rb2+fw+dep+bn+ht+kwc+cli3+unp+amb2+ur+pf3+pc2+fc+pr+ic+cp17b+env18+r19v+r21nr+rc2+bt+mc+lc"

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NAME_VALUE_MAX = 80
_KIND_BY_BASE = {
    "BaseModel": "pydantic", "BaseSettings": "pydantic", "RootModel": "pydantic",
    "NamedTuple": "namedtuple", "TypedDict": "typeddict",
    "Enum": "enum", "IntEnum": "enum", "StrEnum": "enum", "Flag": "enum", "IntFlag": "enum",
    "Protocol": "protocol",
}


def empty_module(path: str, *, sha256, is_package: bool, error) -> dict:
    """A Module object with no facts, for files that could not be read or parsed."""
    return {"path": path, "sha256": sha256, "is_package": is_package, "error": error, "all": None,
            "imports": {}, "names": {}, "functions": {}, "classes": {}}


def module_facts(source: bytes, *, module: str, path: str, sha256=None) -> dict:
    """Facts of one module; `module` is its dotted name, `path` relative to the package's parent."""
    is_package = path.endswith("__init__.py")
    try:
        source.decode("utf-8")
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        msg = exc.msg if exc.msg else str(exc)
        if "codec can't decode" in msg or "unicode error" in msg:
            error = "UnicodeDecodeError: " + msg
        elif "null bytes" in msg:  # ValueError before 3.11.?, SyntaxError after: one message
            error = "ValueError: source code string cannot contain null bytes"
        elif exc.lineno is None:
            error = "SyntaxError: %s" % msg
        else:
            error = "SyntaxError: %s (line %s)" % (msg, exc.lineno)
        return empty_module(path, sha256=sha256, is_package=is_package, error=error)
    except UnicodeDecodeError as exc:
        try:  # a coding cookie (latin-1 etc.) is legal Python; ast.parse honours it
            tree = ast.parse(source, filename=path)
            source = _reencode(source)
        except (SyntaxError, ValueError, UnicodeDecodeError, LookupError):
            return empty_module(path, sha256=sha256, is_package=is_package,
                                error="UnicodeDecodeError: %s" % exc)
    except ValueError as exc:
        error = "ValueError: %s" % exc
        if "null bytes" in str(exc):
            error = "ValueError: source code string cannot contain null bytes"
        return empty_module(path, sha256=sha256, is_package=is_package, error=error)
    except (RecursionError, MemoryError) as exc:
        return empty_module(path, sha256=sha256, is_package=is_package,
                            error="%s: %s" % (type(exc).__name__, exc))
    out = empty_module(path, sha256=sha256, is_package=is_package, error=None)
    package = module if is_package else module.rpartition(".")[0]
    text = SourceText(source)
    _Module(text, package, out).body(tree.body, type_checking=False)
    envs = env_defaults(tree.body, text)
    if envs:
        out["env_defaults"] = envs
    exprs = env_exprs(tree.body, text)
    if exprs:
        out["env_exprs"] = exprs
    if "__getattr__" in out["functions"]:
        out["getattr_names"] = _getattr_names(tree)
    checks, tables = name_checks(tree)
    if checks:
        out["name_checks"] = checks
        out["name_tables"] = tables
    renames = deprecations(tree)
    if renames:
        out["deprecations"] = renames
    return out


def _getattr_names(tree):
    """Names a PEP 562 module `__getattr__` may still answer: the strings it compares or looks
    up, and the keys of module-level dicts it reads (vLLM keeps deprecation maps that way)."""
    fn = next((n for n in tree.body if type(n) in _FUNCS and n.name == "__getattr__"), None)
    if fn is None:
        return []
    dicts = {}
    for st in tree.body:
        if type(st) in (ast.Assign, ast.AnnAssign) and type(st.value) is ast.Dict:
            targets = st.targets if type(st) is ast.Assign else [st.target]
            keys = [k.value for k in st.value.keys if type(k) is ast.Constant and isinstance(k.value, str)]
            for t in targets:
                if type(t) is ast.Name:
                    dicts[t.id] = keys
    names = set()
    for node in ast.walk(fn):
        if type(node) is ast.Constant and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)
        elif type(node) is ast.Name and node.id in dicts:
            names.update(dicts[node.id])
    return sorted(names)


def _reencode(source: bytes) -> bytes:
    import io
    import tokenize
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding).encode("utf-8")


def _resolve(package: str, level: int, name):
    """Absolute module of `from <level dots><name> import …` inside `package`."""
    if level == 0:
        return name or ""
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        base = ""
    else:
        base = ".".join(parts[:len(parts) - (level - 1)])
    if name:
        return base + "." + name if base else name
    return base


def _is_type_checking(test) -> bool:
    name = dotted(test)
    return name is not None and last_segment(name) == "TYPE_CHECKING"


class _Module:
    """Walks the module-level statements (and if/try blocks) into the Module object."""

    def __init__(self, text: SourceText, package: str, out: dict):
        self.text = text
        self.package = package
        self.out = out

    def body(self, stmts, *, type_checking: bool):
        out = self.out
        overloads = {}
        for st in stmts:
            t = type(st)
            if t is ast.Import or t is ast.ImportFrom:
                self.imports(st, type_checking)
            elif t in _FUNCS:
                fn = function_facts(st, text=self.text, qualprefix="", method=False)
                _place(out["functions"], overloads, st, fn, self.text)
            elif t is ast.ClassDef:
                out["classes"][st.name] = class_facts(st, text=self.text, qualprefix="")
            elif t is ast.Assign or t is ast.AnnAssign:
                self.assign(st)
            elif t is ast.If:
                tc = type_checking or _is_type_checking(st.test)
                self.body(st.body, type_checking=tc)
                self.body(st.orelse, type_checking=type_checking)
            elif t is ast.Try or t.__name__ == "TryStar":
                self.body(st.body, type_checking=type_checking)
                for h in st.handlers:
                    self.body(h.body, type_checking=type_checking)
                self.body(st.orelse, type_checking=type_checking)
                self.body(st.finalbody, type_checking=type_checking)
            elif t is ast.With:
                self.body(st.body, type_checking=type_checking)

    def imports(self, st, type_checking):
        imports = self.out["imports"]
        if type(st) is ast.Import:
            for alias in st.names:
                if alias.asname:
                    local, target = alias.asname, alias.name
                else:
                    local = target = alias.name.partition(".")[0]
                entry = {"target": target, "line": st.lineno}
                if type_checking:
                    entry["type_checking"] = True
                imports[local] = entry
            return
        base = _resolve(self.package, st.level or 0, st.module)
        for alias in st.names:
            if alias.name == "*":
                entry = {"target": base, "line": st.lineno}
                if type_checking:
                    entry["type_checking"] = True
                imports.setdefault("*", []).append(entry)
                continue
            entry = {"target": base + "." + alias.name if base else alias.name, "line": st.lineno}
            if type_checking:
                entry["type_checking"] = True
            imports[alias.asname or alias.name] = entry

    def assign(self, st):
        out = self.out
        if type(st) is ast.AnnAssign:
            targets = [st.target]
        else:
            targets = st.targets
        value = st.value
        for tgt in targets:
            if type(tgt) is ast.Name:
                src = self.text.of(value) if value is not None else None
                rec = {"line": st.lineno, "value": src}
                if src is not None and len(src) > _NAME_VALUE_MAX:
                    rec["value"] = None
                    callee = dotted(value.func) if type(value) is ast.Call else None
                    if callee:  # `EMPTY = Output(req_ids=[], ...)` too long to keep: what builds it
                        rec["built"] = callee
                out["names"][tgt.id] = rec
                if tgt.id == "__all__":
                    out["all"] = _literal_all(value)
            elif type(tgt) in (ast.Tuple, ast.List):
                for e in tgt.elts:
                    if type(e) is ast.Name:
                        out["names"][e.id] = {"line": st.lineno, "value": None}


def _literal_all(value):
    if type(value) in (ast.List, ast.Tuple):
        names = []
        for e in value.elts:
            if type(e) is not ast.Constant or not isinstance(e.value, str):
                return None
            names.append(e.value)
        return names
    return None


def _place(table, overloads, node, fn, text):
    """Put `fn` in `table`, folding @overload stubs into the implementation that follows."""
    name = node.name
    decos = fn["decorators"]
    if any(last_segment(d) == "overload" for d in decos):
        overloads.setdefault(name, []).append(
            {"line": fn["line"], "params": fn["params"], "returns": fn["returns"]})
        fn["overloads"] = overloads[name]
        table[name] = fn
        return
    if name in table and any(d.endswith((".setter", ".deleter")) for d in decos):
        if any(d.endswith(".setter") for d in decos):
            table[name]["setter"] = True  # `obj.name = v` works; without it, assigning raises
        return  # keep the property getter: it carries the signature a consumer reads
    fn["overloads"] = overloads.pop(name, [])
    table[name] = fn


_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")


def params_of(args, text: SourceText) -> list:
    of = text.of
    posonly = args.posonlyargs
    positional = posonly + args.args if posonly else args.args
    n_pos_only = len(posonly)
    defaults = args.defaults
    first_default = len(positional) - len(defaults)
    out = []
    for i, a in enumerate(positional):
        d = defaults[i - first_default] if i >= first_default else None
        ann = a.annotation
        out.append({"name": a.arg, "kind": _KINDS[0] if i < n_pos_only else _KINDS[1],
                    "default": of(d) if d is not None else None,
                    "annotation": of(ann) if ann is not None else None})
    if args.vararg is not None:
        out.append(_param(args.vararg, _KINDS[2], None, text))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(_param(a, _KINDS[3], d, text))
    if args.kwarg is not None:
        out.append(_param(args.kwarg, _KINDS[4], None, text))
    return out


def _param(arg, kind, default, text):
    return {"name": arg.arg, "kind": kind,
            "default": text.of(default) if default is not None else None,
            "annotation": text.of(arg.annotation) if arg.annotation is not None else None}


def function_facts(node, *, text: SourceText, qualprefix: str, method: bool) -> dict:
    decorators = [decorator_name(d, text) for d in node.decorator_list]
    params = params_of(node.args, text)
    self_name = None
    if method and params and params[0]["kind"] in _KINDS[:2]:
        if not any(last_segment(d) in ("staticmethod", "classmethod") for d in decorators):
            self_name = params[0]["name"]
    behaviour = function_behaviour(node, text=text, self_name=self_name,
                                   params=[p["name"] for p in params])
    bindable = [p for p in params if p["kind"] in _KINDS[:2] or p["kind"] == _KINDS[3]]
    if bindable and method and (self_name is not None or "classmethod" in [last_segment(d) for d in decorators]):
        bindable = bindable[1:] if bindable[0] is params[0] else bindable
    if bindable:
        derefs, guards = param_facts(node, [p["name"] for p in bindable],
                                     [p["name"] for p in bindable if can_be_none(p)])
        if derefs:
            behaviour["param_derefs"] = derefs
        if guards:
            behaviour["param_guards"] = guards
        unread = unread_params(node, [p["name"] for p in bindable])
        if unread:
            behaviour["unread_params"] = unread
        attr_reads = param_attr_reads(node, [p["name"] for p in bindable])
        if attr_reads:
            behaviour["param_reads"] = attr_reads
    if any(last_segment(d) in ("property", "cached_property") for d in decorators):
        behaviour["returns_src"] = return_sources(node.body, text)
    if any(b"add_argument" in line or b"parser" in line for line in text.lines[node.lineno - 1:node.end_lineno]):
        cli = parser_facts(node)  # a builder, or one that only hands its parser on (probes/cli_args.py)
        if cli:
            behaviour["cli"] = cli
    shape = statement_shape(node)
    if shape:  # a consumer's copy of this body is held to the next release's (rules/copies.py)
        behaviour["shape"] = shape
    if node.args.kwarg is not None:  # `f(x, **kwargs)` handing the caller's keywords on (probes/forwards.py)
        forwards = kwargs_forwards(node, lambda n: text.of(n, 120))
        if forwards:
            behaviour["kwargs_into"] = forwards
    return {
        "name": node.name, "qualname": qualprefix + node.name,
        "line": node.lineno, "end_line": node.end_lineno,
        "is_async": type(node) is ast.AsyncFunctionDef,
        "decorators": decorators, "params": params,
        "returns": text.of(node.returns) if node.returns is not None else None,
        "overloads": [], "behaviour": behaviour, "nested": {},
    }


def _class_kind(decorators, bases, fields):
    for d in decorators:
        if last_segment(d) == "dataclass":
            return "dataclass"
    for b in bases:
        kind = _KIND_BY_BASE.get(last_segment(b.partition("[")[0]))
        if kind is not None:
            return kind
    if any(f["initvar"] for f in fields):
        return "dataclass"  # InitVar only means something to a dataclass transform
    return "class"


def class_facts(node, *, text: SourceText, qualprefix: str) -> dict:
    qualname = qualprefix + node.name
    decorators = [decorator_name(d, text) for d in node.decorator_list]
    bases = [text.of(b) for b in node.bases]
    # options that change construction (`extra="forbid"`) live in decorator calls and class keywords
    options = [text.of(d, 160) for d in node.decorator_list if type(d) is ast.Call]
    options += [text.of(k, 160) for k in node.keywords if k.arg not in (None, "metaclass")]
    kw_only_all = any(
        type(d) is ast.Call and last_segment(dotted(d.func)) == "dataclass"
        and any(k.arg == "kw_only" and type(k.value) is ast.Constant and k.value.value is True
                for k in d.keywords)
        for d in node.decorator_list)
    fields, methods, attrs, nested = [], {}, {}, {}
    overloads = {}
    kw_only = kw_only_all
    for st in node.body:
        t = type(st)
        if t is ast.AnnAssign and type(st.target) is ast.Name:
            ann = text.of(st.annotation)
            if last_segment((ann or "").partition("[")[0]) == "KW_ONLY":
                kw_only = True
                continue
            fields.append(_field(st, ann, text, kw_only))
        elif t is ast.Assign:
            for tgt in st.targets:
                if type(tgt) is ast.Name:
                    attrs[tgt.id] = {"line": st.lineno, "value": text.of(st.value, 120)}
        elif t in _FUNCS:
            fn = function_facts(st, text=text, qualprefix=qualname + ".", method=True)
            _place(methods, overloads, st, fn, text)
        elif t is ast.ClassDef:
            nested[st.name] = class_facts(st, text=text, qualprefix=qualname + ".")
    out = {
        "name": node.name, "qualname": qualname, "line": node.lineno, "end_line": node.end_lineno,
        "bases": bases, "decorators": decorators,
        "kind": _class_kind(decorators, bases, fields),
        "fields": fields, "methods": methods, "attrs": attrs, "nested": nested, "options": options,
        "instance_attrs": _instance_attrs(methods),
    }
    meta = [k.value for k in node.keywords if k.arg == "metaclass"]
    if meta:  # `class _Backend(metaclass=_BackendMeta)`: its class-level lookups go through that class
        out["metaclass"] = text.of(meta[0], 120)
    return out


def _instance_attrs(methods):
    """What the class sets on `self` anywhere, `__init__` first: attr -> line, method, value kind.

    A consumer reads `self.input_batch` in its subclass, or `runner.kv_caches` on an instance;
    these are the attributes that exist at run time though no class body declares them."""
    out = {}
    order = sorted(methods.values(), key=lambda f: (f["name"] != "__init__", f["line"]))
    for fn in order:
        beh = fn.get("behaviour") or {}
        types = beh.get("self_types") or {}
        for table in (beh.get("self_sets") or {}, beh.get("self_resets") or {}):
            for attr, lines in table.items():
                if attr not in out:
                    out[attr] = {"line": lines[0], "method": fn["name"], "value": types.get(attr)}
                elif out[attr]["value"] is None and types.get(attr):
                    out[attr]["value"] = types[attr]
    return out


def _field(st, ann, text, kw_only):
    bare = (ann or "").partition("[")[0]
    value = st.value
    has_default = value is not None
    field_kw_only = kw_only
    init = True
    if type(value) is ast.Call and last_segment(dotted(value.func)) in ("field", "Field"):
        keys = {k.arg: k.value for k in value.keywords if k.arg}
        is_ellipsis = lambda n: type(n) is ast.Constant and n.value is Ellipsis  # noqa: E731
        has_default = ("default_factory" in keys or ("default" in keys and not is_ellipsis(keys["default"]))
                       or (last_segment(dotted(value.func)) == "Field" and bool(value.args)
                           and not is_ellipsis(value.args[0])))
        kw = keys.get("kw_only")
        if type(kw) is ast.Constant and isinstance(kw.value, bool):
            field_kw_only = kw.value
        flag = keys.get("init")
        if type(flag) is ast.Constant and flag.value is False:
            init = False  # field(init=False): not a constructor parameter
    return {
        "name": st.target.id, "annotation": ann,
        "default": text.of(value) if value is not None else None,
        "has_default": has_default,
        "initvar": last_segment(bare) == "InitVar",
        "classvar": last_segment(bare) == "ClassVar",
        "kw_only": field_kw_only, "init": init, "line": st.lineno,
    }
