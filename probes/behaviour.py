"""Behaviour facts of one function body, in a single pass over its nodes.

The walk is hand-rolled rather than `ast.walk`/`NodeVisitor`: a full vLLM tree has ~2 million
nodes and this pass is most of the probe's cost after parsing. Statements are walked with the
nearest enclosing `if` test (the guard of a `raise`); expressions with a flat stack. Nested
functions and lambdas are folded into the enclosing function (their `self` is the closure's).
"""

import ast

from .choices import branch_builds
from .srctext import SourceText, dotted, last_segment

_Name = ast.Name
_Attribute = ast.Attribute
_Call = ast.Call
_Constant = ast.Constant
_Subscript = ast.Subscript
_Store = ast.Store
_Load = ast.Load
_If = ast.If
_Return = ast.Return
_Raise = ast.Raise
_Assert = ast.Assert
_Assign = ast.Assign
_AugAssign = ast.AugAssign
_AnnAssign = ast.AnnAssign
_ClassDef = ast.ClassDef
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_AST = ast.AST
_Expr = ast.Expr
_BinOp = ast.BinOp
_Compare = ast.Compare
_Tuple = ast.Tuple
_List = ast.List
_BoolOp = ast.BoolOp
_JoinedStr = ast.JoinedStr
_UnaryOp = ast.UnaryOp
_FormattedValue = ast.FormattedValue
_Slice = ast.Slice
_IfExp = ast.IfExp
_BLOCKS = (ast.excepthandler, getattr(ast, "match_case", ast.excepthandler))
# compound statements whose bodies run on some paths only: the fields named (None: every body);
# a `with` body and a `try` body run whenever the statement does
_ON_SOME_PATHS = {ast.For: None, ast.AsyncFor: None, ast.While: None, ast.Try: ("orelse",)}
if hasattr(ast, "TryStar"):
    _ON_SOME_PATHS[ast.TryStar] = ("orelse",)
_VALUE_CUT = 120

_fields_cache = {}


def _child_fields(t):
    """Fields of a node type that may hold nodes (skips ctx and plain strings)."""
    fields = _fields_cache.get(t)
    if fields is None:
        fields = tuple(f for f in t._fields if f not in ("ctx", "id", "attr", "arg", "name", "names",
                                                          "module", "level", "kind", "conversion",
                                                          "is_async", "type_comment", "op"))
        _fields_cache[t] = fields
    return fields


def _is_literal(node):
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is _Constant:
            continue
        if t is ast.UnaryOp and type(n.operand) is _Constant:
            continue
        if t in (ast.Tuple, ast.List, ast.Set):
            stack.extend(n.elts)
            continue
        if t is ast.Dict:
            stack.extend(k for k in n.keys if k is not None)
            stack.extend(n.values)
            continue
        return False
    return True


def _message(node, text):
    """Literal message of `raise X("...")`; f-string fields kept as `{source}`."""
    if type(node) is not _Call or not node.args:
        return None
    arg = node.args[0]
    if type(arg) is _Constant and isinstance(arg.value, str):
        return arg.value
    if type(arg) is ast.JoinedStr:
        out = []
        for part in arg.values:
            if type(part) is _Constant:
                out.append(str(part.value))
            else:  # unparse, not source: f-string field positions are wrong before 3.12
                conv = "!" + chr(part.conversion) if part.conversion and part.conversion > 0 else ""
                out.append("{" + ast.unparse(part.value) + conv + "}")
        return "".join(out)
    return None


def _add(table, key, line):
    lines = table.get(key)
    if lines is None:
        table[key] = [line]
    elif lines[-1] != line:
        lines.append(line)


def _names_read(node):
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is _Name:
            out.add(n.id)
            continue
        for f in _child_fields(type(n)):
            v = getattr(n, f, None)
            if type(v) is list:
                stack.extend(x for x in v if isinstance(x, _AST))
            elif isinstance(v, _AST):
                stack.append(v)
    return out


class _Scan:
    """Mutable accumulator of one function's behaviour while its body is walked."""

    __slots__ = ("text", "self_name", "params", "sets", "resets", "reads", "calls", "raises", "asserts",
                 "shape_returns", "kwarg_defaults", "ctor", "assigns", "pending", "types", "sites", "depth",
                 "value_returns", "probes", "held", "name_calls", "local_imports", "builds", "tuple_returns",
                 "by_name", "held_tests", "kw_calls", "pos_calls", "flag_calls", "held_reads", "unpacks", "bare_calls", "unset_checks",
                 "globals_set", "param_sets", "param_hands", "cond", "omit_warns", "named_sites",
                 "result_calls", "forwards")

    def __init__(self, text, self_name, params):
        self.text = text
        self.self_name = self_name
        self.params = params
        self.sets = {}
        self.resets = {}
        self.reads = {}
        self.calls = {}
        self.raises = []
        self.asserts = []
        self.shape_returns = []
        self.kwarg_defaults = {}
        self.ctor = []
        self.kw_calls = []  # [callee, line, [positional srcs], {keyword: src}] of lower-case calls with keywords
        self.pos_calls = []  # [callee, line, [argument nodes]]: `self.x.name(a, b)`, positional arguments only
        self.flag_calls = []  # [callee, line, [argument texts]]: `x.name(a, True, b)`, names and flags only
        self.unpacks = {}  # name -> [[call line, names unpacked, unpack line]]: `a, b = x.name(...)`
        self.bare_calls = {}  # name -> first line of `name()`: a call of a plain name with no arguments
        self.named_sites = {}  # name -> [[line, positional count, [keywords], 1 if *args/**kw]] of `name(...)`;
        # kept (under its dotted source) only for a name a lazy import inside the function binds
        # (written under the dotted name a lazy import inside the function gives it)
        self.forwards = {}  # "self.x" -> [method]: `return self.x.method(...)`, a call handed to a held object
        self.result_calls = {}  # method -> {called: line}: `x.method().called()` (locals: see _result_calls)
        self.unset_checks = []  # names the function fails on when None: `assert G is not None`, `if G is None: raise`
        self.globals_set = []  # names the function declares `global` (a setter of module state)
        self.assigns = {}  # local name -> list of value nodes (simple `name = expr`)
        self.pending = []  # expressions not yet walked
        self.types = {}  # self.<attr> -> what kind of value it is first given (see _value_kind)
        self.sites = {}  # name -> [[line, positional count, [keywords], 1 if *args/**kw]] of `x.name(...)`
        self.depth = 0  # nesting of inner functions: their returns are not this function's
        self.value_returns = []  # lines of this function's own `return <value other than None>`
        self.probes = {}  # subject -> {name: [line, fallback_of]}: getattr/hasattr(subject, "name")
        self.held = {}  # "self.x" -> {method: line}: calls on an object the instance holds
        self.held_reads = {}  # "self.x" -> {attr: line}: `self.x.attr` read (not called)
        self.name_calls = {}  # local -> {method: line}: calls on a local (kept only for built locals)
        self.local_imports = {}  # local -> dotted: imports inside the function (lazy imports)
        self.builds = []  # ("self.x" or local, callee node): objects this function constructs
        self.tuple_returns = []  # this function's own `return (a, 2, b * c)`: shape-like tuples
        self.by_name = {}  # dispatcher -> [[line, method, npos, [keywords]]]: `x.rpc("m", args=(..))`
        self.held_tests = {}  # "x.f" -> lines: `self.x.f` read in an `if`/`while` test (a switch it obeys)
        self.param_sets = {}  # parameter -> {attr: [line, kind, 1 if only on some paths]}: `param.attr = v`
        self.param_hands = []  # [callee, parameter, position or keyword, line, 1 if on some paths]: `f(param)`
        self.cond = 0  # > 0 while walking a branch, a loop body or an except handler
        self.omit_warns = {}  # parameter -> line of `if param is None: warnings.warn(..., DeprecationWarning)`

    def forward(self, value):
        """`return self.x.m(...)`: what the held object's `m` returns is this function's value."""
        if type(value) is ast.Await:
            value = value.value
        if type(value) is _Call and type(value.func) is _Attribute:
            recv = value.func.value
            if type(recv) is _Attribute and type(recv.value) is _Name and recv.value.id == self.self_name:
                names = self.forwards.setdefault("self." + recv.attr, [])
                if value.func.attr not in names:
                    names.append(value.func.attr)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node):
        """Queue an expression; all of a function's expressions are walked once in `flush`."""
        self.pending.append(node)

    def flush(self):
        self_name = self.self_name
        stack = self.pending
        pop = stack.pop
        push = stack.append
        extend = stack.extend
        reads = self.reads
        while stack:
            n = pop()
            t = type(n)
            if t is _Name or t is _Constant:
                continue
            if t is _Attribute:
                v = n.value
                if type(v) is _Name:
                    if v.id == self_name and type(n.ctx) is _Load:
                        _add(reads, n.attr, n.lineno)
                    continue
                if type(v) is _Attribute and type(v.value) is _Name and v.value.id == self_name \
                        and type(n.ctx) is _Load:  # `self.x.attr` read, not called (a held call pushes `self.x`)
                    self.held_reads.setdefault("self." + v.attr, {}).setdefault(n.attr, n.lineno)
                push(v)
                continue
            if t is _Call:
                func = n.func
                if type(func) is _Name and (func.id == "getattr" or func.id == "hasattr") and len(n.args) >= 2:
                    self.probe(n)
                if type(func) is _Attribute:  # how the target calls `.name(...)`: for inverse drift
                    recv = func.value
                    if type(recv) is _Attribute and type(recv.value) is _Name and recv.value.id == self_name:
                        self.held.setdefault("self." + recv.attr, {}).setdefault(func.attr, n.lineno)
                    elif type(recv) is _Name and recv.id != self_name:
                        self.name_calls.setdefault(recv.id, {}).setdefault(func.attr, n.lineno)
                    elif type(recv) is _Call and type(recv.func) is _Attribute:  # `x.m().called()`
                        self.result_calls.setdefault(recv.func.attr, {}).setdefault(func.attr, n.lineno)
                    if len(n.args) == 1 and type(n.args[0]) is ast.Constant and type(n.args[0].value) is str \
                            and n.args[0].value.isidentifier() and func.attr not in _NOT_DISPATCH:
                        self.by_name.setdefault(func.attr, []).append(_by_name_site(n))
                    star = any(type(a) is ast.Starred for a in n.args) or any(k.arg is None for k in n.keywords)
                    site = [n.lineno, len(n.args), [k.arg for k in n.keywords if k.arg]]
                    if star:
                        site.append(1)
                    sites = self.sites.get(func.attr)
                    if sites is None:
                        self.sites[func.attr] = [site]
                    else:
                        sites.append(site)
                elif type(func) is _Name and func.id in self.assigns:
                    self.alias_site(func.id, n)
                elif type(func) is _Name:
                    star = any(type(a) is ast.Starred for a in n.args) or any(k.arg is None for k in n.keywords)
                    site = [n.lineno, len(n.args), [k.arg for k in n.keywords if k.arg]]
                    if star:
                        site.append(1)
                    self.named_sites.setdefault(func.id, []).append(site)
                if type(func) is _Name and not n.args and not n.keywords and self.depth == 0:
                    self.bare_calls.setdefault(func.id, n.lineno)
                if n.args and not n.keywords and type(func) is _Attribute:
                    if self_name is not None:
                        self.pos_call(n)
                    self.flag_call(n)
                if type(func) is _Attribute and type(func.value) is _Name and func.value.id == self_name:
                    _add(self.calls, func.attr, n.lineno)
                else:
                    recv = func.value if type(func) is _Attribute else None
                    held_call = type(recv) is _Attribute and type(recv.value) is _Name and recv.value.id == self_name
                    push(recv if held_call else func)
                    if n.keywords:
                        tf = type(func)
                        head = func.id if tf is _Name else func.attr if tf is _Attribute else ""
                        if head[:1].isupper():
                            self.ctor_call(n)
                        elif head:
                            self.kw_call(n)
                    elif type(func) is _Attribute and func.attr == "setdefault" and len(n.args) == 2:
                        self.setdefault(n)
                extend(n.args)
                for kw in n.keywords:
                    push(kw.value)
                continue
            if t is _BinOp:
                push(n.left)
                push(n.right)
                continue
            if t is _Subscript:
                push(n.value)
                push(n.slice)
                continue
            if t is _Compare:
                push(n.left)
                extend(n.comparators)
                continue
            if t is _Tuple or t is _List:
                extend(n.elts)
                continue
            if t is _BoolOp or t is _JoinedStr:
                extend(n.values)
                continue
            if t is _UnaryOp:  # the rest: explicit for the frequent ones, children in field order
                push(n.operand)
                continue
            if t is _FormattedValue:
                push(n.value)
                if n.format_spec is not None:
                    push(n.format_spec)
                continue
            if t is _Slice:
                if n.lower is not None:
                    push(n.lower)
                if n.upper is not None:
                    push(n.upper)
                if n.step is not None:
                    push(n.step)
                continue
            if t is _IfExp:
                push(n.test)
                push(n.body)
                push(n.orelse)
                continue
            if t is ast.Lambda:
                self.expr_args(n.args)
                push(n.body)
                continue
            for f in _child_fields(t):
                v = getattr(n, f, None)
                if type(v) is list:
                    for x in v:
                        if isinstance(x, _AST):
                            push(x)
                elif v is not None and isinstance(v, _AST):
                    push(v)

    def bound_here(self, func):
        """A callee named through this function's own imports or locals (`cls`, `mod.Impl`,
        `getattr(mod, "Impl")`): what it builds is found only by reading the function."""
        while type(func) is _Attribute:
            func = func.value
        if type(func) is _Call and type(func.func) is _Name and func.func.id == "getattr" and func.args:
            return self.bound_here(func.args[0])
        return type(func) is _Name and (func.id in self.assigns or func.id in self.local_imports)

    def probe(self, call):
        """`getattr(x, "name"[, d])` / `hasattr(x, "name")` on a parameter, a local or `self.x`:
        the target asks whether an object has a member (interface checks, optional hooks)."""
        key = call.args[1]
        if type(key) is not _Constant or not isinstance(key.value, str):
            return
        subject = _subject(call.args[0], self.self_name)
        if subject is not None:
            self.probes.setdefault(subject, {}).setdefault(key.value, [call.lineno, None])

    def alias_site(self, name, call):
        """A call through a local bound once to `x.m` or `functools.partial(x.m, ...)`: a call of
        `.m(...)` with the partial's arguments first (vLLM captures CUDA graphs that way)."""
        values = self.assigns.get(name) or []
        if len(values) != 1:
            return
        value = values[0]
        npos, kws, star = 0, [], False
        if type(value) is _Call and (dotted(value.func) or "").rsplit(".", 1)[-1] == "partial" and value.args:
            npos = len(value.args) - 1
            kws = [k.arg for k in value.keywords if k.arg]
            star = any(type(a) is ast.Starred for a in value.args) or any(k.arg is None for k in value.keywords)
            value = value.args[0]
        if type(value) is not _Attribute:
            return
        star = star or any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords)
        site = [call.lineno, npos + len(call.args), kws + [k.arg for k in call.keywords if k.arg]]
        if star:
            site.append(1)
        self.sites.setdefault(value.attr, []).append(site)

    def expr_args(self, args):
        for d in args.defaults:
            self.expr(d)
        for d in args.kw_defaults:
            if d is not None:
                self.expr(d)

    def setdefault(self, node):
        """`kwargs.setdefault("k", <literal>)` fills a keyword like `kwargs["k"] = <literal>`."""
        key, value = node.args
        if type(key) is _Constant and isinstance(key.value, str) and _is_literal(value):
            self.kwarg_defaults[key.value] = {"value": self.text.of(value, _VALUE_CUT), "line": node.lineno}

    def ctor_call(self, node):
        callee = dotted(node.func)
        if not callee or not last_segment(callee)[:1].isupper():
            return
        keywords = {}
        for kw in node.keywords:
            src = self.text.of(kw.value, _VALUE_CUT)
            keywords["**" if kw.arg is None else kw.arg] = src
        if all(k == "**" for k in keywords):
            return
        self.ctor.append((callee, node.lineno, keywords, node.keywords))

    def kw_call(self, node):
        """`x.name(a, k=v)` / `name(a, k=v)` with a lower-case name and keywords: the argument
        texts, so a consumer's identical call can be given the rewrite the target made to its own
        (a keyword dropped, an optional one added in its place). Only calls passing a keyword by
        name are kept: those are the ones a keyword removal can break."""
        callee = dotted(node.func)
        if not callee:
            return
        keywords = {}
        for kw in node.keywords:
            if kw.arg is not None:
                keywords[kw.arg] = self.text.of(kw.value, _VALUE_CUT)
        if not keywords:
            return
        args = [("*" if type(a) is ast.Starred else "") + (self.text.of(a, _VALUE_CUT) or "") for a in node.args]
        if any(k.arg is None for k in node.keywords):
            keywords["**"] = "1"
        self.kw_calls.append([callee, node.lineno, args, keywords])

    def pos_call(self, node):
        """`self.name(a, b)` / `self.x.name(a, b)`: a method call on the instance or on what it holds
        that passes positional arguments only, with their texts (facts +pc). kw_calls misses these;
        they are what lets a consumer's copy of the baseline's own positional call get the rewrite
        the target made to it (a new required argument appended, the arguments replaced)."""
        callee = dotted(node.func)
        if not callee or callee.split(".", 1)[0] != self.self_name or not last_segment(callee)[:1].islower():
            return
        if any(type(a) is ast.Starred for a in node.args):
            return
        self.pos_calls.append([callee, node.lineno, node.args])

    def flag_call(self, node):
        """`x.name(a, b, True, c)`: a method call on any receiver whose positional arguments are
        all plain names or constants, at least one of them True/False/None (facts +fc). A hook
        vLLM calls with a fixed flag in one slot (0.12's selector passed `True` for a plugin's
        `use_v1`) shows the only value that slot ever held, so an override the target stops
        passing it to can bind that value and behave as it did."""
        callee = dotted(node.func)
        if not callee or not last_segment(callee)[:1].islower():
            return
        flag = False
        for a in node.args:
            t = type(a)
            if t is _Constant:
                flag = flag or a.value is None or type(a.value) is bool
            elif t is not _Name:
                return
        if flag:
            self.flag_calls.append([callee, node.lineno, [self.text.of(a, _VALUE_CUT) or "" for a in node.args]])

    def test_reads(self, test):
        """`self.x.f` read in a branch test: the method behaves by a setting of an object it
        holds (`if not self.scheduler_config.enable_chunked_prefill and ...`). A default that
        changed for `f` changes what this method does for every caller: DRIFT050 follows it."""
        self_name = self.self_name
        if self_name is None:
            return
        for n in ast.walk(test):
            if type(n) is _Attribute and type(n.ctx) is _Load:
                v = n.value
                if type(v) is _Attribute and type(v.value) is _Name and v.value.id == self_name:
                    _add(self.held_tests, v.attr + "." + n.attr, n.lineno)

    # -- statements --------------------------------------------------------------------------
    def stmts(self, body, guard):
        pending = self.pending
        for st in body:
            t = type(st)
            if t is _Assign:
                self.assign(st.targets, st.value, st.lineno)
                self.hand(st.value)
            elif t is _Expr:
                pending.append(st.value)
                self.hand(st.value)
            elif t is _If:
                pending.append(st.test)
                self.test_reads(st.test)
                if any(type(b) is _Raise for b in st.body):
                    self.unset_check(st.test, False)
                omitted = _omitted_param(st.test)
                if omitted in self.params and not self.depth and _warns_deprecation(st.body):
                    self.omit_warns.setdefault(omitted, st.lineno)
                self.cond += 1
                self.stmts(st.body, (st.test, False))
                if st.orelse:
                    self.stmts(st.orelse, (st.test, True))
                self.cond -= 1
            elif t is _Return:
                if st.value is not None:
                    if self.depth == 0 and not (type(st.value) is _Constant and st.value.value is None):
                        self.value_returns.append(st.lineno)
                    if type(st.value) is ast.IfExp:
                        self.shape_returns.append(st)
                    elif type(st.value) is _Tuple and self.depth == 0 and _shape_like(st.value):
                        self.tuple_returns.append(st)
                    elif self.depth == 0:
                        self.forward(st.value)
                    self.expr(st.value)
            elif t is _Raise:
                self.raise_(st, guard)
            elif t is _Assert:
                self.assert_(st)
                self.unset_check(st.test, True)
            elif t is ast.Global:
                self.globals_set.extend(st.names)
            elif t in _FUNCS:
                for d in st.decorator_list:
                    self.expr(d)
                self.expr_args(st.args)
                self.depth += 1
                self.stmts(st.body, guard)
                self.depth -= 1
            elif t is _AugAssign:
                self.target(st.target, st.lineno, False)
                self.expr(st.value)
            elif t is _AnnAssign:
                if st.value is not None:
                    if type(st.target) is _Attribute:
                        self.target(st.target, st.lineno, False, st.value, st.annotation)
                    self.assign([st.target], st.value, st.lineno)
            elif t is _ClassDef:
                continue
            elif t is ast.ImportFrom or t is ast.Import:
                self.import_(st)
            else:
                if t is ast.While:
                    self.test_reads(st.test)
                for f in _child_fields(t):
                    v = getattr(st, f, None)
                    if type(v) is list:
                        if v and isinstance(v[0], ast.stmt):
                            some = _ON_SOME_PATHS.get(t, ()) is None or f in _ON_SOME_PATHS.get(t, ())
                            self.cond += some
                            self.stmts(v, guard)
                            self.cond -= some
                        else:
                            for x in v:
                                if isinstance(x, _BLOCKS):
                                    if getattr(x, "type", None) is not None:
                                        self.expr(x.type)
                                    if getattr(x, "guard", None) is not None:
                                        self.expr(x.guard)
                                    self.cond += 1
                                    self.stmts(x.body, guard)
                                    self.cond -= 1
                                elif isinstance(x, _AST):
                                    self.expr(x)
                    elif v is not None and isinstance(v, _AST):
                        self.expr(v)

    def hand(self, value):
        """`f(param)` / `await f(state=param)` as a statement or an assigned value: the function
        hands one of its parameters on, so what `f` stores on it is stored on the caller's
        object too (a chain of initialisers filling one state object)."""
        if type(value) is ast.Await:
            value = value.value
        if type(value) is not _Call or self.depth:
            return
        callee = _resolve_callee(self, value.func, 0)
        if not callee:
            return
        some = 1 if self.cond else 0
        for i, a in enumerate(value.args):
            if type(a) is ast.Starred:
                return  # positions after a *args are unknown
            if type(a) is _Name and a.id in self.params:
                self.param_hands.append([callee[0], a.id, i, value.lineno, some])
        for k in value.keywords:
            if k.arg and type(k.value) is _Name and k.value.id in self.params:
                self.param_hands.append([callee[0], k.value.id, k.arg, value.lineno, some])

    def import_(self, st):
        """An import inside the function (a lazy import): the local name it binds."""
        if type(st) is ast.Import:
            for a in st.names:
                if a.asname:
                    self.local_imports[a.asname] = a.name
                else:
                    self.local_imports[a.name.partition(".")[0]] = a.name.partition(".")[0]
        elif not st.level and st.module:
            for a in st.names:
                if a.name != "*":
                    self.local_imports[a.asname or a.name] = st.module + "." + a.name

    def target(self, tgt, line, is_none, value=None, annotation=None):
        t = type(tgt)
        if t is _Attribute and type(tgt.value) is _Name and tgt.value.id == self.self_name:
            if type(value) is _Call and type(value.func) in (_Name, _Attribute, _Call):
                self.builds.append(("self." + tgt.attr, value.func))
            _add(self.resets if is_none else self.sets, tgt.attr, line)
            if self.types.get(tgt.attr) in (None, "lit:None"):
                kind = ("ann:" + self.text.of(annotation, _VALUE_CUT)) if annotation is not None else \
                    _value_kind(self.local_value(value), self.params)
                if kind:
                    self.types[tgt.attr] = kind
        elif t is _Attribute and type(tgt.value) is _Name and tgt.value.id in self.params and not self.depth:
            stored = self.param_sets.setdefault(tgt.value.id, {})
            kind = ("ann:" + self.text.of(annotation, _VALUE_CUT)) if annotation is not None else \
                _value_kind(self.local_value(value), self.params)
            if kind and kind.startswith("call:"):  # a class imported inside the function: its dotted name
                head, dot, rest = kind[5:].partition(".")
                if head in self.local_imports:
                    kind = "call:" + self.local_imports[head] + dot + rest
            before = stored.get(tgt.attr)
            some = 1 if self.cond else 0
            if before is None:
                stored[tgt.attr] = [line, kind, some]
            else:  # stored twice: on every path when either store is; typed by the first typed store
                before[2] = before[2] and some
                if before[1] in (None, "lit:None") and kind:
                    before[1] = kind
        elif t is ast.Tuple or t is ast.List:
            for e in tgt.elts:
                self.target(e, line, is_none)
        elif t is ast.Starred:
            self.target(tgt.value, line, is_none)
        else:
            self.expr(tgt)

    def local_value(self, value):
        """`q = vllm_config.quant_config; self.quant_config = q`: a local bound once, before, to
        something other than a parameter stands for its value (the attribute then has the
        type `vllm_config.quant_config` has, as if written directly)."""
        if type(value) is _Name and value.id not in self.params:
            values = self.assigns.get(value.id)
            if values is not None and len(values) == 1 and type(values[0]) is not _Name:
                return values[0]
        return value

    def assign(self, targets, value, line):
        if len(targets) == 1 and type(targets[0]) is _Name:  # the common `x = …`: fast path
            name = targets[0].id
            if type(value) is _Call and self.bound_here(value.func):
                self.builds.append((name, value.func))  # `obj = cls(...)`, cls bound here
            values = self.assigns.get(name)
            if values is None:
                self.assigns[name] = [value]
            else:
                values.append(value)
            self.pending.append(value)
            return
        if len(targets) == 1 and type(targets[0]) in (_Tuple, _List):
            self.unpack(targets[0], value, line)
        is_none = type(value) is _Constant and value.value is None
        for tgt in targets:
            if type(tgt) in (_Tuple, _List) and type(value) in (_Tuple, _List) and len(tgt.elts) == len(value.elts):
                for sub_t, sub_v in zip(tgt.elts, value.elts):  # a, b = None, x: pairwise
                    self.target(sub_t, line, type(sub_v) is _Constant and sub_v.value is None)
            else:
                self.target(tgt, line, is_none, value if len(targets) == 1 else None)
            t = type(tgt)
            if t is _Name:
                self.assigns.setdefault(tgt.id, []).append(value)
            elif t is _Subscript and type(tgt.value) is _Name:
                key = tgt.slice
                if type(key) is _Constant and isinstance(key.value, str) and _is_literal(value):
                    self.kwarg_defaults[key.value] = {"value": self.text.of(value, _VALUE_CUT), "line": line}
        self.expr(value)

    def unpack(self, tgt, value, line):
        """`a, b, c = x.m(...)` (awaited or not), or `r = x.m(...)` then `a, b = r`: how many
        names the result of a method call is unpacked into. A consumer override of `m` whose
        tuple has another length makes Python raise there (`ValueError: not enough values to
        unpack`), so the count is the contract the target's own code holds the method to. A
        starred target takes any length: not recorded."""
        if any(type(e) is ast.Starred for e in tgt.elts):
            return
        if type(value) is _Name:  # the result was kept in a local first
            values = self.assigns.get(value.id)
            value = values[-1] if values and len(values) == 1 else None
        if type(value) is ast.Await:
            value = value.value
        if type(value) is not _Call or type(value.func) is not _Attribute:
            return
        self.unpacks.setdefault(value.func.attr, []).append([value.lineno, len(tgt.elts), line])

    def unset_check(self, test, holds):
        """A plain name the function refuses to go on without: `assert G is not None` / `assert G`
        (`holds`: the test must be true) or `if G is None: raise` / `if not G: raise` (it must be
        false). Kept for names that are neither parameters nor locals: module state some context
        must have set (`get_current_X()` over `_current_X`)."""
        name = None
        if type(test) is _Name and holds:
            name = test.id
        elif type(test) is ast.UnaryOp and type(test.op) is ast.Not and type(test.operand) is _Name and not holds:
            name = test.operand.id
        elif type(test) is _Compare and type(test.left) is _Name and len(test.ops) == 1 \
                and type(test.comparators[0]) is _Constant and test.comparators[0].value is None:
            op = type(test.ops[0])
            if (op is ast.IsNot and holds) or (op is ast.Is and not holds):
                name = test.left.id
        if name is not None and self.depth == 0 and name not in self.params and name != self.self_name:
            self.unset_checks.append(name)

    def raise_(self, st, guard):
        exc = st.exc
        if exc is not None:
            self.expr(exc)
            if st.cause is not None:
                self.expr(st.cause)
            func = exc.func if type(exc) is _Call else exc
            etype = dotted(func) or self.text.of(func, _VALUE_CUT)
            guard_src = None
            if guard is not None:
                guard_src = self.text.of(guard[0], _VALUE_CUT * 2)
                if guard[1] and guard_src is not None:
                    guard_src = "not (" + guard_src + ")"
            self.raises.append({"type": etype, "line": st.lineno, "message": _message(exc, self.text),
                                "guard": guard_src})

    def assert_(self, st):
        seen = []
        stack = [st.test]
        while stack:
            n = stack.pop()
            if type(n) is _Attribute and type(n.value) is _Name and n.value.id in self.params:
                key = (n.value.id, n.attr)
                if key not in seen:
                    seen.append(key)
                continue
            for f in _child_fields(type(n)):
                v = getattr(n, f, None)
                if type(v) is list:
                    stack.extend(x for x in v if isinstance(x, _AST))
                elif isinstance(v, _AST):
                    stack.append(v)
        if seen:
            src = self.text.of(st.test, _VALUE_CUT * 2)
            for subject, attr in sorted(seen):
                self.asserts.append({"line": st.lineno, "subject": subject, "attr": attr, "src": src})
        self.expr(st.test)
        if st.msg is not None:
            self.expr(st.msg)

    # -- results -----------------------------------------------------------------------------
    def depends_on(self, test, order):
        """Parameters `test` reads directly or through simple local aliases."""
        seen = set()
        todo = list(_names_read(test))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for value in self.assigns.get(name, ()):
                todo.extend(_names_read(value))
        return [p for p in order if p in seen]

    def return_shapes(self, order):
        out = []
        text = self.text
        for st in self.shape_returns:
            v = st.value
            body, orelse = v.body, v.orelse
            if type(body) is _Subscript:
                seq, elem = orelse, body
            elif type(orelse) is _Subscript:
                seq, elem = body, orelse
            else:
                continue
            seq_src = text.of(seq)
            if seq_src is None or seq_src != text.of(elem.value):
                continue
            out.append({"line": st.lineno, "src": text.of(v, _VALUE_CUT * 2), "shape": "element_or_sequence",
                        "depends_on": self.depends_on(v.test, order)})
        return out

    def positional_calls(self):
        """pos_calls as records: each identifier argument's latest simple assignment above the call
        (`num_sampled_tokens = np.ones(num_reqs, dtype=np.int32)`) goes in "locals"."""
        out = []
        for callee, line, args in self.pos_calls:
            local = {}
            for a in args:
                if type(a) is _Name:
                    values = [v for v in self.assigns.get(a.id) or () if getattr(v, "lineno", line) < line]
                    if values:
                        local[a.id] = self.text.of(values[-1], _VALUE_CUT * 3)
            rec = {"callee": callee, "line": line, "args": [self.text.of(a, _VALUE_CUT) or "" for a in args]}
            if local:
                rec["locals"] = local
            out.append(rec)
        return out

    def ctor_calls(self):
        out = []
        for callee, line, keywords, kw_nodes in self.ctor:
            used = set()
            for kw in kw_nodes:
                used |= _names_read(kw.value)
            local = {}
            for name in sorted(used):
                values = self.assigns.get(name)
                if values:
                    local[name] = self.text.of(values[-1], _VALUE_CUT * 3)
            out.append({"callee": callee, "line": line, "keywords": keywords, "locals": local})
        return out


def function_behaviour(fn, *, text: SourceText, self_name, params):
    """Behaviour facts of `fn` (a FunctionDef); `self_name` is None outside methods."""
    order = [p for p in params if p != self_name]
    scan = _Scan(text, self_name, set(order))
    scan.stmts(fn.body, None)
    scan.flush()
    if scan.probes:
        _fallbacks(scan, fn.body, ())
    tail = None
    last = fn.body[-1] if fn.body else None
    if type(last) is _Return and (last.value is None or (type(last.value) is _Constant and last.value.value is None)):
        tail = last.lineno
    return {
        "tail_return_none": tail,
        "self_sets": _sorted_lines(scan.sets),
        "self_resets": _sorted_lines(scan.resets),
        "self_reads": _sorted_lines(scan.reads),
        "self_calls": _sorted_lines(scan.calls),
        "raises": scan.raises,
        "asserts": scan.asserts,
        "return_shapes": scan.return_shapes(order),
        "kwarg_defaults": scan.kwarg_defaults,
        "ctor_calls": scan.ctor_calls(),
        "self_types": scan.types,
        "call_sites": scan.sites,
        "value_returns": scan.value_returns,
        "probes": scan.probes,
        **({"by_name_calls": scan.by_name} if scan.by_name else {}),
        **({"kw_calls": [{"callee": c, "line": ln, "args": a, "keywords": k} for c, ln, a, k in scan.kw_calls]}
           if scan.kw_calls else {}),
        **({"pos_calls": scan.positional_calls()} if scan.pos_calls else {}),
        **({"flag_calls": [{"callee": c, "line": ln, "args": a} for c, ln, a in scan.flag_calls]}
           if scan.flag_calls else {}),
        **({"held_reads": scan.held_reads} if scan.held_reads else {}),
        **({"held_tests": _sorted_lines(scan.held_tests)} if scan.held_tests else {}),
        **({"unpacks": scan.unpacks} if scan.unpacks else {}),
        **({"bare_calls": {scan.local_imports.get(n, n): ln for n, ln in scan.bare_calls.items()}}
           if scan.bare_calls else {}),  # a name imported inside the function: its dotted source
        **({"param_sets": scan.param_sets} if scan.param_sets else {}),
        **_imported_calls(scan),
        **_result_calls(scan),
        **({"forwards": scan.forwards} if scan.forwards else {}),
        **_param_hands(scan),
        **({"omit_warns": scan.omit_warns} if scan.omit_warns else {}),
        **_ambient(scan),
        **_built(scan),
        **_tuple_returns(scan),
        **_choices(fn, scan),
    }


def _omitted_param(test):
    """`p` for a test `p is None`, else None."""
    if type(test) is ast.Compare and type(test.left) is _Name and len(test.ops) == 1 \
            and type(test.ops[0]) is ast.Is and type(test.comparators[0]) is _Constant \
            and test.comparators[0].value is None:
        return test.left.id
    return None


_DEPRECATION_WORDS = ("deprecat", "will be required", "will be removed")


def _warns_deprecation(body):
    """Whether a block warns that what it handles is deprecated: a `warn`/`warning`/`warning_once`
    call passing DeprecationWarning or FutureWarning, or whose message says so."""
    for st in body:
        value = st.value if type(st) is _Expr else None
        if type(value) is not _Call:
            continue
        func = value.func
        name = func.attr if type(func) is _Attribute else func.id if type(func) is _Name else ""
        if name not in ("warn", "warning", "warning_once", "warn_once"):
            continue
        for a in list(value.args) + [k.value for k in value.keywords]:
            if (type(a) is _Name and a.id in ("DeprecationWarning", "FutureWarning")) or \
                    (type(a) is _Attribute and a.attr in ("DeprecationWarning", "FutureWarning")):
                return True
            texts = [a] if type(a) is _Constant else list(a.values) if type(a) is _JoinedStr else []
            if any(type(t) is _Constant and isinstance(t.value, str)
                   and any(w in t.value.lower() for w in _DEPRECATION_WORDS) for t in texts):
                return True
    return False


def _param_hands(scan):
    """{"param_hands": [...]} for the parameters the function also stores on itself (an
    initialiser of that object handing it to the next one); absent otherwise. Every other
    hand-on of a parameter is left out: there are tens of thousands in vLLM, and an object
    nothing stores on needs none."""
    hands = [h for h in scan.param_hands if h[1] in scan.param_sets and h[0].rsplit(".", 1)[-1][:1].islower()]
    return {"param_hands": hands} if hands else {}


def _ambient(scan):
    """{"unset_checks": [...]} for names the function fails on when unset and never binds itself
    (module state: the getter of an ambient context), {"globals_set": [...]} for names it declares
    `global` (a setter of that state); absent otherwise."""
    out = {}
    checks = sorted({n for n in scan.unset_checks if n not in scan.assigns and n not in scan.globals_set})
    if checks:
        out["unset_checks"] = checks
    if scan.globals_set:
        out["globals_set"] = sorted(set(scan.globals_set))
    return out


def _choices(fn, scan):
    """{"choices": [...]} when an `if` of the function builds other classes in its two arms
    (probes/choices.py); absent otherwise."""
    found = branch_builds(fn.body, lambda func: _resolve_callee(scan, func, 0), scan.text)
    return {"choices": found} if found else {}


def _subject(node, self_name):
    """What a probe asks about, as text: a name (`model`) or an attribute of self (`self.engine`)."""
    t = type(node)
    if t is _Name:
        return node.id
    if t is _Attribute and type(node.value) is _Name and node.value.id == self_name:
        return "self." + node.attr
    return None


def _probe_of(node, self_name):
    """(subject, name) when `node` is `getattr(s, "name"...)` or `hasattr(s, "name")`."""
    if type(node) is _Call and type(node.func) is _Name and node.func.id in ("getattr", "hasattr") \
            and len(node.args) >= 2 and type(node.args[1]) is _Constant and isinstance(node.args[1].value, str):
        subject = _subject(node.args[0], self_name)
        if subject is not None:
            return subject, node.args[1].value
    return None


def _absent_test(scan, test):
    """(subject, name, absent_when_true) when an `if` test says whether a probed member exists:
    `hasattr(m, "a")`, `callable(f)` / `f is None` / `f` with `f = getattr(m, "a", None)`."""
    negated = False
    while type(test) is _UnaryOp and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    absent_when_true = False
    if type(test) is _Compare and len(test.ops) == 1 and type(test.comparators[0]) is _Constant \
            and test.comparators[0].value is None and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
        absent_when_true = isinstance(test.ops[0], ast.Is)
        test = test.left
    elif type(test) is _Call and type(test.func) is _Name and test.func.id == "callable" and len(test.args) == 1:
        test = test.args[0]
    found = _probe_of(test, scan.self_name)
    if found is None and type(test) is _Name:
        for v in scan.assigns.get(test.id, ()):
            found = found or _probe_of(v, scan.self_name)
    if found is None:
        return None
    return found[0], found[1], absent_when_true != negated


def _mark(scan, node, absent):
    """Probes in `node` made where `absent` members are known missing: fallbacks for them."""
    for n in ast.walk(node):
        if type(n) is _BoolOp and isinstance(n.op, ast.Or):  # getattr(m, "a", None) or getattr(m, "b", None)
            first = _probe_of(n.values[0], scan.self_name)
            if first is not None:
                for v in n.values[1:]:
                    _fallback(scan, _probe_of(v, scan.self_name), ((first[0], first[1]),))
        else:
            found = _probe_of(n, scan.self_name)
            if found is not None and absent:
                _fallback(scan, found, absent)


def _fallback(scan, found, absent):
    if found is None:
        return
    for subject, name in absent:
        if subject == found[0] and name != found[1]:
            entry = scan.probes.get(subject, {}).get(found[1])
            if entry is not None and entry[1] is None:
                entry[1] = name
            return


def _fallbacks(scan, body, absent):
    """Walk statements with the probed members known missing there, so a probe of another name
    on the same object in that branch is recorded as the fallback it is (the baseline accepting
    an older method name where the new one is absent)."""
    for st in body:
        t = type(st)
        if t is _If:
            a = _absent_test(scan, st.test)
            _mark(scan, st.test, absent)
            yes, no = absent, absent
            if a is not None:
                if a[2]:
                    yes = absent + ((a[0], a[1]),)
                else:
                    no = absent + ((a[0], a[1]),)
            _fallbacks(scan, st.body, yes)
            _fallbacks(scan, st.orelse, no)
            if a is not None and not a[2] and st.body and type(st.body[-1]) in (_Return, _Raise) and not st.orelse:
                absent = no  # `if hasattr(m, "a"): return ...`: below, "a" is missing
            continue
        for f in _child_fields(t):
            v = getattr(st, f, None)
            items = v if type(v) is list else [v]
            for x in items:
                if isinstance(x, ast.stmt):
                    _fallbacks(scan, [x], absent)
                elif isinstance(x, _BLOCKS):
                    _fallbacks(scan, x.body, absent)
                elif isinstance(x, _AST) and not isinstance(x, ast.stmt):
                    _mark(scan, x, absent)


_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)


def _shape_like(tup):
    """A tuple of sizes: every element a name, an int literal or arithmetic of those (the way
    `get_kv_cache_shape` spells a buffer's layout), at least one of them not a bare name."""
    elts = tup.elts
    if not elts or len(elts) > 8:
        return False
    literal = False
    for e in elts:
        stack = [e]
        while stack:
            n = stack.pop()
            t = type(n)
            if t is _Name:
                continue
            if t is _Constant and type(n.value) is int:
                literal = True
            elif t is _BinOp and type(n.op) in _ARITH:
                literal = True
                stack.append(n.left)
                stack.append(n.right)
            else:
                return False
    return literal


def _tuple_returns(scan):
    """{"tuple_returns": [[line, [element source, ...]], ...]} for shape-like tuple returns, so a
    rule can read which axis holds a literal (a K/V `2`) on both sides of an upgrade."""
    if not scan.tuple_returns:
        return {}
    text = scan.text
    return {"tuple_returns": [[st.lineno, [text.of(e, _VALUE_CUT) or "" for e in st.value.elts]]
                              for st in scan.tuple_returns]}


_NOT_DISPATCH = frozenset({"get", "pop", "setdefault", "getenv", "index", "count", "startswith", "endswith",
                           "split", "join", "format", "encode", "decode", "info", "debug", "warning", "error"})


def _by_name_site(call):
    """`x.dispatch("method", args=(a, b), kwargs={"k": v})`: a method named by a string that the
    receiver runs elsewhere (vLLM's `collective_rpc` runs it on every worker). [line, method,
    positional count (None when `args=` is not a tuple or list literal), keywords (None when
    `kwargs=` is not a dict literal or `dict(...)`)]; other keywords are the dispatcher's own."""
    npos, kws = 0, []
    for k in call.keywords:
        v = k.value
        if k.arg is None:
            npos = kws = None
        elif k.arg == "args":
            npos = len(v.elts) if type(v) in (ast.Tuple, ast.List) and not any(
                type(e) is ast.Starred for e in v.elts) else None
        elif k.arg == "kwargs":
            if type(v) is ast.Dict and all(type(x) is ast.Constant and type(x.value) is str for x in v.keys):
                kws = [x.value for x in v.keys]
            elif type(v) is _Call and type(v.func) is _Name and v.func.id == "dict" and not v.args \
                    and all(x.arg for x in v.keywords):
                kws = [x.arg for x in v.keywords]
            else:
                kws = None
    return [call.lineno, call.args[0].value, npos, kws]


def _built(scan):
    """Objects the function constructs from a class it imports lazily or picks into a local
    (`from plugin.mod import Impl as X; cls = X; self.engine = cls(...)`), with the calls made on
    them: {"builds": {"self.engine": [dotted, ...]}, "held_calls": {"self.engine": {m: line}}}.
    Calls on `self.x` are kept for every x (the object may be built in another method)."""
    out = {}
    builds = {}
    for holder, func in scan.builds:
        names = _resolve_callee(scan, func, 0)
        if names and any(n != dotted(func) for n in names):
            builds.setdefault(holder, [])
            builds[holder].extend(n for n in names if n not in builds[holder])
    if builds:
        out["builds"] = builds
    held = dict(scan.held)
    for holder in builds:
        if holder in scan.name_calls:
            held[holder] = scan.name_calls[holder]
    if held:
        out["held_calls"] = held
    return out


def _resolve_callee(scan, node, depth):
    """Dotted names a callee can be, through the function's own imports and simple locals."""
    if depth > 8:
        return []
    t = type(node)
    if t is _Name:
        if node.id in scan.local_imports:
            return [scan.local_imports[node.id]]
        values = scan.assigns.get(node.id)
        if values:
            out = []
            for v in values:
                out.extend(x for x in _resolve_callee(scan, v, depth + 1) if x not in out)
            return out
        return [node.id]
    if t is _Attribute:
        return [b + "." + node.attr for b in _resolve_callee(scan, node.value, depth + 1)]
    if t is _Call and len(node.args) == 1 and type(node.args[0]) is _Constant \
            and isinstance(node.args[0].value, str) and last_segment(dotted(node.func) or "") == "import_module":
        return [node.args[0].value]  # importlib.import_module("plugin.mod")
    if t is _Call and type(node.func) is _Name and node.func.id == "getattr" and len(node.args) >= 2 \
            and type(node.args[1]) is _Constant and isinstance(node.args[1].value, str):
        return [b + "." + node.args[1].value for b in _resolve_callee(scan, node.args[0], depth + 1)]
    return []


_LITERALS = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict", ast.Set: "set",
             ast.SetComp: "set", ast.Tuple: "tuple", ast.JoinedStr: "str", ast.Lambda: "function"}


def _value_kind(value, params):
    """What a `self.x = value` makes x, as far as the AST shows: the callee of a call
    ("call:torch.zeros"), a parameter ("param:vllm_config"), a literal's type ("lit:int"),
    another attribute ("attr:self.a.b"). drift resolves callees and parameters' annotations."""
    if value is None:
        return None
    t = type(value)
    if t is ast.IfExp:  # `X(...) if cond else None`: what it is when it is something
        body, other = _value_kind(value.body, params), _value_kind(value.orelse, params)
        return body if other in (None, "lit:None") else other if body in (None, "lit:None") else \
            (body if body == other else None)
    if t is ast.BoolOp and isinstance(value.op, ast.Or):  # `x or Default()`
        kinds = [k for k in (_value_kind(v, params) for v in value.values) if k not in (None, "lit:None")]
        return kinds[-1] if kinds else None
    if t is ast.BoolOp:  # `cond and X()`: X when it is something
        return _value_kind(value.values[-1], params)
    if t is ast.Call:
        name = dotted(value.func)
        return "call:" + name if name else None
    if t is _Name:
        return "param:" + value.id if value.id in params else None
    if t is _Constant:
        return "lit:" + ("None" if value.value is None else type(value.value).__name__)
    if t is ast.ListComp and type(value.elt) is ast.Call and dotted(value.elt.func):
        # `[Scheduler(...) for v in range(pp)]`: a list of what the call builds (facts +lc)
        return "lit:list[" + dotted(value.elt.func) + "]"
    if t in _LITERALS:
        return "lit:" + _LITERALS[t]
    if t is _Attribute:
        name = dotted(value)
        return "attr:" + name if name else None
    return None


def _imported_calls(scan):
    """{"imported_calls": {dotted: sites}}: the calls of names a lazy import inside the function
    binds (`from m import f as g` ... `g(x, k=1)`), under the dotted name they resolve to. A
    consumer that assigns its own `f` over `m.f` is called here (the import runs at call time), with
    these arguments; the name the call is written with may be an alias no text search for `f` finds."""
    out = {}
    for name, sites in scan.named_sites.items():
        dotted = scan.local_imports.get(name)
        if dotted and "." in dotted:
            out.setdefault(dotted, []).extend(sites)
    return {"imported_calls": out} if out else {}


def _result_calls(scan):
    """{"result_calls": {method: {called: line}}}: the methods this function calls on what a call
    of `.method(...)` returned (`r = self.connector.stats(); r.is_empty()`, or chained). Where
    `.method` is a hook a consumer overrides, these are calls vLLM makes on the consumer's return
    value: a method the consumer's returned object only inherits as a stub fails there."""
    out = {}
    for local, called in scan.name_calls.items():
        values = scan.assigns.get(local)
        if not values or local in scan.params:
            continue
        names = set()
        for v in values:
            if type(v) is ast.Await:
                v = v.value
            names.add(v.func.attr if type(v) is _Call and type(v.func) is _Attribute else None)
        if len(names) == 1 and None not in names:
            into = out.setdefault(names.pop(), {})
            for m, line in called.items():
                into.setdefault(m, line)
    for method, called in scan.result_calls.items():
        into = out.setdefault(method, {})
        for m, line in called.items():
            into.setdefault(m, line)
    return {"result_calls": out} if out else {}


def _sorted_lines(table):
    if not table:
        return table
    for key, lines in table.items():
        if len(lines) > 1:
            table[key] = sorted(set(lines))
    return table
