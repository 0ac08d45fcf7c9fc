"""Which parameters a function dereferences on every path from its entry, and which it guards.

Why: a parameter the baseline tested for None (`if p is not None:`, `p or default`, an early
`if p is None: return`) and the target now dereferences straight away (`p.x`, `p[i]`, `p()`,
`for _ in p`, `len(p)`, `p + 1`) no longer accepts the `None` a consumer passes. Both halves are
facts an AST can prove cheaply, without a control-flow graph:

* a dereference is *unconditional* when it sits in the straight-line prefix of the body: the
  top-level statements (and `with` bodies) before the first statement that may leave the function
  early (a `return` inside an `if`, a loop or a `try`), in the part of an expression Python always
  evaluates (the first operand of `and`/`or`, the test of `x if c else y`, call arguments, the
  first iterable of a comprehension), and before anything tests or rebinds the parameter;
* a parameter is *guarded* when a test on it accepts None somewhere in the body (`is None`,
  `is not None`, truth, `isinstance`, `p or d`), a test whose None branch is not just a `raise`.

Only the first unconditional dereference is kept, with its line and column: it is the evidence
and the line the error comes from. Guards are looked for in the whole body only for parameters
that can be None by their declaration (default `None`, or an annotation naming None/Optional),
so the extra walk is paid by few functions.
"""

import ast

_Name = ast.Name
_Attribute = ast.Attribute
_Subscript = ast.Subscript
_Call = ast.Call
_BinOp = ast.BinOp
_Compare = ast.Compare
_BoolOp = ast.BoolOp
_IfExp = ast.IfExp
_Constant = ast.Constant
_If = ast.If
_AST = ast.AST
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)

# Builtins that iterate their (first) argument; a shadowed name is rare enough in a library.
_ITERATING = frozenset({"list", "tuple", "set", "frozenset", "sorted", "enumerate", "sum", "any", "all",
                        "dict", "zip", "reversed"})
_ORDERING = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "** or pow()", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
           ast.BitOr: "|", ast.BitXor: "^"}


def param_facts(fn, params, optional):
    """({param: [line, col, how, detail]}, {param: [line, how]}) for FunctionDef `fn`.

    `params` are the names a caller binds (no receiver, no *args/**kwargs); `optional` the ones
    whose declaration admits None. `how` of a dereference is attr, setattr, item, setitem, call,
    iter, unpack, len, arith, compare or in; `detail` the attribute, operator or builtin."""
    scan = _Prefix(set(params))
    completed = scan.body(fn.body)
    guards = scan.guards
    if scan.weak and (completed or scan.done or not scan.live):  # the whole prefix was read: a
        for name, g in scan.weak.items():  # None that stays None past its test met no use
            if name not in scan.derefs:
                guards.setdefault(name, g)
    rest = [p for p in optional if p not in guards and p not in scan.derefs]
    if rest:
        _guards_anywhere(fn.body, set(rest), guards)
    return scan.derefs, guards


def _none_names(test):
    """{name: how} of the names a test checks for None/truth/type; None-safe tests only."""
    out = {}
    stack = [test]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is _Name:
            out.setdefault(n.id, "truth")
        elif t is ast.UnaryOp and type(n.op) is ast.Not:
            stack.append(n.operand)
        elif t is _BoolOp:
            stack.extend(n.values)
        elif t is _Compare and len(n.ops) == 1 and type(n.ops[0]) in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq):
            left, right = n.left, n.comparators[0]
            if type(right) is _Constant and right.value is None and type(left) is _Name:
                out[left.id] = "none"
            elif type(left) is _Constant and left.value is None and type(right) is _Name:
                out[right.id] = "none"
        elif t is _Call and type(n.func) is _Name and n.func.id in ("isinstance", "callable", "hasattr") \
                and n.args and type(n.args[0]) is _Name:
            out.setdefault(n.args[0].id, "isinstance" if n.func.id == "isinstance" else "truth")
    return out


def _when_none(test, name):
    """The test's truth when `name` is None: True, False, or None when it cannot be told."""
    t = type(test)
    if t is _Name:
        return False if test.id == name else None
    if t is ast.UnaryOp and type(test.op) is ast.Not:
        v = _when_none(test.operand, name)
        return None if v is None else not v
    if t is _Compare and len(test.ops) == 1:
        op = type(test.ops[0])
        left, right = test.left, test.comparators[0]
        named = (type(left) is _Name and left.id == name and type(right) is _Constant and right.value is None) or \
                (type(right) is _Name and right.id == name and type(left) is _Constant and left.value is None)
        if named and op in (ast.Is, ast.Eq):
            return True
        if named and op in (ast.IsNot, ast.NotEq):
            return False
        return None
    if t is _Call and type(test.func) is _Name and test.func.id in ("isinstance", "callable", "hasattr") \
            and test.args and type(test.args[0]) is _Name and test.args[0].id == name:
        return False
    if t is _BoolOp:
        vals = [_when_none(v, name) for v in test.values]
        if type(test.op) is ast.Or:
            return True if True in vals else (False if all(v is False for v in vals) else None)
        return False if False in vals else (True if all(v is True for v in vals) else None)
    return None


def _only_raises(body):
    return len(body) == 1 and type(body[0]) is ast.Raise


def _rejects(st, name):
    """`if p is None: raise ...` (or `if p: ... else: raise`): None is refused, not accepted."""
    v = _when_none(st.test, name)
    return (v is True and _only_raises(st.body)) or (v is False and bool(st.orelse) and _only_raises(st.orelse))


_NESTED = ("body", "orelse", "finalbody", "handlers", "cases")


def _flow(stmts):
    """(may leave the function early, names it binds) for statements, read statement by
    statement (expressions are not walked: a walrus or a `yield` inside an expression is rare
    enough to leave to the prefix ending at the next compound statement)."""
    exits = False
    bound = set()
    stack = list(stmts)
    while stack:
        st = stack.pop()
        t = type(st)
        if t is ast.Return:
            exits = True
            continue
        if t is ast.Expr:
            if type(st.value) in (ast.Yield, ast.YieldFrom):
                exits = True
            continue
        if t is ast.Assign:
            for tgt in st.targets:
                _store_names(tgt, bound)
            if type(st.value) in (ast.Yield, ast.YieldFrom):
                exits = True
            continue
        if t is ast.AugAssign or t is ast.AnnAssign:
            _store_names(st.target, bound)
            continue
        if t in _FUNCS or t is ast.ClassDef:
            bound.add(st.name)
            continue
        if t is ast.For or t is ast.AsyncFor:
            _store_names(st.target, bound)
        elif t is ast.With or t is ast.AsyncWith:
            for item in st.items:
                if item.optional_vars is not None:
                    _store_names(item.optional_vars, bound)
        elif t is ast.Import or t is ast.ImportFrom:
            bound.update((a.asname or a.name).split(".")[0] for a in st.names)
            continue
        for f in _NESTED:
            sub = getattr(st, f, None)
            if sub:
                for x in sub:
                    if isinstance(x, ast.stmt):
                        stack.append(x)
                    else:  # an except handler or a match case: its body holds the statements
                        name = getattr(x, "name", None)
                        if type(name) is str:
                            bound.add(name)
                        stack.extend(x.body)
    return exits, bound


def _store_names(tgt, out):
    t = type(tgt)
    if t is _Name:
        out.add(tgt.id)
    elif t is ast.Tuple or t is ast.List:
        for e in tgt.elts:
            _store_names(e, out)
    elif t is ast.Starred:
        _store_names(tgt.value, out)


class _Prefix:
    """Walks the straight-line prefix of a body; `live` are the parameters still untouched."""

    __slots__ = ("live", "derefs", "guards", "weak", "done")

    def __init__(self, live):
        self.live = live
        self.derefs = {}
        self.guards = {}  # a None is replaced, or the function returns, before any use
        self.weak = {}  # a test lets a None pass without using it; it stays None afterwards
        self.done = None  # "return" / "raise" when the prefix ends at one of those

    def hit(self, name, node, how, detail):
        self.derefs[name] = [node.lineno, node.col_offset, how, detail]
        self.live.discard(name)

    def body(self, stmts):
        """False when the prefix ends inside these statements."""
        for st in stmts:
            if not self.live or not self.stmt(st):
                return False
        return True

    def stmt(self, st):
        t = type(st)
        live = self.live
        if t is ast.Expr:
            self.expr(st.value)
        elif t is ast.Assign:
            value = st.value
            for name, how in _replaces(st.targets, value).items():
                if name in live:
                    self.guards[name] = [st.lineno, how]
            if type(value) is _Name and value.id in live and any(type(x) in (ast.Tuple, ast.List) for x in st.targets):
                self.hit(value.id, value, "unpack", "")
            self.expr(value)
            for tgt in st.targets:
                self.store(tgt)
        elif t is ast.AnnAssign:
            if st.value is not None:
                self.expr(st.value)
                self.store(st.target)
        elif t is ast.AugAssign:
            tgt = st.target
            if type(tgt) is _Name and tgt.id in live:
                op = _BINOPS.get(type(st.op))
                if op:
                    self.hit(tgt.id, tgt, "arith", op[:2].strip() + "=")
                live.discard(tgt.id)
            else:
                self.expr(st.value)
                self.store(tgt)
        elif t is ast.Return:
            if st.value is not None:
                self.expr(st.value)
            self.done = "return"
            return False
        elif t is ast.Raise:
            if st.exc is not None:
                self.expr(st.exc)
            self.done = "raise"
            return False
        elif t is ast.Assert:
            live.difference_update(_none_names(st.test))  # asserted: None is refused there, by the assert
            self.expr(st.test)
        elif t is _If:
            names = _none_names(st.test)
            tested = [n for n in names if n in live]
            live.difference_update(tested)
            self.expr(st.test)
            keep = set()
            for name in tested:
                if not _rejects(st, name) and self.none_path(st, name, names[name]):
                    keep.add(name)
            return self.branches(st.body + st.orelse, keep)
        elif t is ast.For or t is ast.AsyncFor:
            self.iterated(st.iter)
            target = set()
            _store_names(st.target, target)
            live.difference_update(target)
            return self.branches(st.body + st.orelse)
        elif t is ast.While:
            names = _none_names(st.test)
            for name, how in names.items():
                if name in live:
                    live.discard(name)
                    self.guards[name] = [st.lineno, how]
            self.expr(st.test)
            return self.branches(st.body + st.orelse)
        elif t is ast.With or t is ast.AsyncWith:
            for item in st.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.store(item.optional_vars)
            return self.body(st.body)
        elif t in _FUNCS:
            for d in st.decorator_list:
                self.expr(d)
            live.discard(st.name)
        elif t is ast.ClassDef:
            live.discard(st.name)
        elif t in (ast.Pass, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal):
            if t is ast.Import or t is ast.ImportFrom:
                live.difference_update((a.asname or a.name).split(".")[0] for a in st.names)
        else:  # try, match, del and the rest: the prefix ends here
            return False
        return True

    def none_path(self, st, name, how):
        """Follow a None in `name` through `if` statement `st` that tests it. True when it leaves
        the `if` still None and untouched (a weak guard: what follows decides)."""
        v = _when_none(st.test, name)
        if v is None:
            return False  # which branch a None takes is not known: nothing more is said
        branch = st.body if v else st.orelse
        sub = _Prefix({name})
        through = sub.body(branch)
        if name in sub.derefs:  # the None branch itself uses it
            self.derefs.setdefault(name, sub.derefs[name])
            return False
        if name not in sub.live and not sub.done:  # `if p is None: p = 3`: replaced on the None path
            self.guards[name] = [st.lineno, how]  # (`body` reads a branch to its end even when the
            return False  # rebinding emptied `live` at its last statement: `through` says nothing then)
        if through:
            if _flow(branch)[0]:
                return False  # a return somewhere in the branch: the path after is not known
            self.weak.setdefault(name, [st.lineno, how])
            self.live.add(name)
            return True
        if name not in sub.live and not sub.done or sub.done == "return":
            self.guards[name] = [st.lineno, how]  # replaced, or the function returns, on the None path
        return False

    def branches(self, stmts, keep=()):
        """Statements that run only sometimes: the prefix goes on past them unless they may
        return; a parameter they may rebind is no longer known (except one that a test sent
        past them as None: `keep`)."""
        exits, bound = _flow(stmts)
        if exits:
            if not keep:
                return False
            # a None in `keep` skips the branch that may return: the rest runs for it, and
            # only for it (for anyone else it runs only when that argument is None)
            self.live.intersection_update(keep)
            return True
        self.live.difference_update(bound - set(keep))
        return True

    def store(self, tgt):
        t = type(tgt)
        live = self.live
        if t is _Name:
            live.discard(tgt.id)
        elif t is _Attribute:
            v = tgt.value
            if type(v) is _Name and v.id in live:
                self.hit(v.id, tgt, "setattr", tgt.attr)
            else:
                self.expr(v)
        elif t is _Subscript:
            v = tgt.value
            self.expr(tgt.slice)
            if type(v) is _Name and v.id in live:
                self.hit(v.id, tgt, "setitem", "")
            else:
                self.expr(v)
        elif t is ast.Tuple or t is ast.List:
            for e in tgt.elts:
                self.store(e)
        elif t is ast.Starred:
            self.store(tgt.value)

    def iterated(self, node):
        if type(node) is _Name and node.id in self.live:
            self.hit(node.id, node, "iter", "")
        else:
            self.expr(node)

    def expr(self, node):
        """Record dereferences of live parameters in the always-evaluated part of `node`."""
        live = self.live
        stack = [node]
        pop = stack.pop
        push = stack.append
        while stack and live:
            n = pop()
            t = type(n)
            if t is _Name or t is _Constant:
                continue
            if t is _Attribute:
                v = n.value
                if type(v) is _Name:
                    if v.id in live:
                        self.hit(v.id, n, "attr", n.attr)
                else:
                    push(v)
            elif t is _Call:
                func = n.func
                if type(func) is _Name:
                    if func.id in live:
                        self.hit(func.id, n, "call", "")
                    elif func.id in _ITERATING or func.id == "len":
                        for a in (n.args if func.id == "zip" else n.args[:1]):
                            if type(a) is _Name and a.id in live:
                                self.hit(a.id, a, "len" if func.id == "len" else "iter", func.id)
                else:
                    push(func)
                for a in reversed(n.keywords):
                    push(a.value)
                for a in reversed(n.args):
                    push(a)
            elif t is _Subscript:
                v = n.value
                push(n.slice)
                if type(v) is _Name:
                    if v.id in live:
                        self.hit(v.id, n, "item", "")
                else:
                    push(v)
            elif t is _BinOp:
                op = _BINOPS.get(type(n.op))
                for side in (n.right, n.left):
                    if type(side) is _Name and side.id in live and op:
                        self.hit(side.id, side, "arith", op)
                    else:
                        push(side)
            elif t is _Compare:
                first = type(n.ops[0])
                right = n.comparators[0]
                if first in _ORDERING:
                    for side in (right, n.left):
                        if type(side) is _Name and side.id in live:
                            self.hit(side.id, side, "compare", _ORDERING[first])
                        else:
                            push(side)
                elif first in (ast.In, ast.NotIn) and type(right) is _Name and right.id in live:
                    self.hit(right.id, right, "in", "")
                    push(n.left)
                else:
                    for name, how in _none_names(n).items():
                        if name in live:  # `flag = p is None`: a test, not a use
                            self.weak.setdefault(name, [n.lineno, how])
                    push(right)
                    push(n.left)
            elif t is _BoolOp:
                first = n.values[0]
                if type(first) is _Name and first.id in live:
                    self.weak.setdefault(first.id, [first.lineno, "truth"])
                else:
                    push(first)
            elif t is _IfExp:
                for name, how in _none_names(n.test).items():
                    if name in live:  # `p.x if p is not None else d`: a test, then only sometimes a use
                        self.weak.setdefault(name, [n.lineno, how])
                push(n.test)
            elif t in _COMPS:
                self.iterated_in(n.generators[0].iter, stack)
            elif t is ast.Lambda:
                continue
            elif t is ast.NamedExpr:
                push(n.value)
                live.discard(n.target.id)
            elif t is ast.Starred:
                push(n.value)
            elif t is ast.Tuple or t is ast.List or t is ast.Set:
                for e in reversed(n.elts):
                    push(e)
            elif t is ast.Dict:
                for k, v in zip(reversed(n.keys), reversed(n.values)):
                    push(v)
                    if k is not None:
                        push(k)
            elif t is ast.JoinedStr:
                for v in reversed(n.values):
                    push(v)
            elif t is ast.FormattedValue:
                push(n.value)
            elif t is ast.UnaryOp:
                push(n.operand)
            elif t is ast.Await:
                push(n.value)
            elif t is ast.Slice:
                for part in (n.step, n.upper, n.lower):
                    if part is not None:
                        push(part)
            # anything else (yield, ...): not followed

    def iterated_in(self, node, stack):
        if type(node) is _Name and node.id in self.live:
            self.hit(node.id, node, "iter", "")
        else:
            stack.append(node)


def _replaces(targets, value):
    """{name: how} for `p = p or d`, `p = d if p is None else p`: a None replaced in place."""
    names = {t.id for t in targets if type(t) is _Name}
    if not names:
        return {}
    t = type(value)
    if t is _BoolOp and type(value.op) is ast.Or and type(value.values[0]) is _Name and value.values[0].id in names:
        return {value.values[0].id: "truth"}
    if t is _IfExp:
        return {k: v for k, v in _none_names(value.test).items() if k in names}
    return {}


def _guards_anywhere(stmts, names, guards):
    """Guards past the prefix that settle a None by themselves: `if p is None:` whose branch
    replaces p or returns without using it, and `p = p or d` / `p = d if p is None else p`.
    (A test that lets a None go on, `if p is not None: ...`, says nothing there: what follows
    it is not read.) Statements are read one by one, expressions are not walked."""
    stack = list(stmts)
    while stack and names:
        st = stack.pop()
        t = type(st)
        if t is _If:
            for name, how in _none_names(st.test).items():
                if name not in names:
                    continue
                v = _when_none(st.test, name)
                branch = st.body if v else st.orelse if v is False else None
                if not branch:
                    continue
                sub = _Prefix({name})
                sub.body(branch)
                if name in sub.derefs:
                    continue
                if sub.done == "return" or (name not in sub.live and sub.done is None):
                    guards[name] = [st.lineno, how]
                    names.discard(name)
        elif t is ast.Assign:
            for name, how in _replaces(st.targets, st.value).items():
                if name in names:
                    guards[name] = [st.lineno, how]
                    names.discard(name)
        for f in _NESTED:
            sub_stmts = getattr(st, f, None)
            if sub_stmts:
                for x in sub_stmts:
                    if isinstance(x, ast.stmt):
                        stack.append(x)
                    else:
                        stack.extend(x.body)


def can_be_none(param):
    """Whether a parameter's declaration admits None (facts' param dict)."""
    if param.get("default") == "None":
        return True
    ann = param.get("annotation") or ""
    return "None" in ann or "Optional" in ann


def _literal_kind(node):
    t = type(node)
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd) and type(node.operand) is _Constant:
        node, t = node.operand, _Constant
        if type(node.value) not in (int, float, complex):
            return None
    if t is not _Constant:
        return None
    v = node.value
    return "None" if v is None else type(v).__name__ if type(v) in (bool, int, float, complex, str, bytes) else None


def literal_args(call):
    """[[index, kind, line, col]] of a call's positional arguments that are literal constants
    (kind None, bool, int, float, complex, str, bytes), up to the first `*args`: the values a
    consumer passes that drift can hold against what the target's body does with them."""
    out = []
    for i, a in enumerate(call.args):
        if type(a) is ast.Starred:
            break
        kind = _literal_kind(a)
        if kind is not None:
            out.append([i, kind, a.lineno, a.col_offset])
    return out
