"""Every way a consumer module's code reaches the target, as symbolic paths (stdlib, 3.9+).

A plugin reaches vLLM through far more than calls of imported names: `self.<attr>` in its
subclasses of vLLM classes, attributes of objects vLLM hands back, methods it patches onto vLLM
classes, originals it saved before patching, keywords gathered in a dict. The probe cannot type
these (it has no facts of the target beside it), so it records each use as a *path*: a typed
root followed by syntactic steps, which drift evaluates against the target's and the baseline's
facts with its one resolver.

Roots: ``sym:<dotted>`` (a name this module imports or defines), ``self:<module>.<Class>`` (the
instance inside a consumer class), ``super:<module>.<Class>``, ``named:<json>`` (what a consumer
method returns when it may be a *name getter* defined elsewhere, `return getattr(mod,
self.target_class)`: the receiver, the method and the argument paths, for drift to resolve with
the string the receiver's class sets). Steps: ``.name`` (attribute),
``()`` (call), ``[]`` (subscript). Local variables, parameters with annotations, `isinstance`
narrowing and module-level aliases give names their paths; branches never assume a type that
their test rules out.
"""

import ast
import json
import re

from .accepted_names import accepted_names_held, reads_accepted_names
from .bound_methods import bound_function, same_object
from .astwalk import once, walk
from .copies import statement_shape
from .attr_dicts import attribute_dicts
from .derefs import literal_args
from .forwards import star_forwarding
from .joins import candidates
from .kwarg_keys import kwarg_keys
from .mock_patches import local_strings, patch_installation
from .override_reads import self_use
from .returned_builds import returned_builds
from .runners import inner_call
from .shapes import any_list_shape, list_shape, number_shape, plain_value
from .srctext import dotted as _dotted, relative_module as _relative
from .typeclass import class_refs, dict_entries, type_call, type_class
from .unread import unread_params

MAX_PATH = 8
_SUBSCRIPT_HOW = {ast.Load: "get", ast.Store: "set", ast.Del: "del"}
MAX_SRC = 120
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _src(lines, node):
    try:
        if node.lineno == node.end_lineno:
            text = lines[node.lineno - 1][node.col_offset:node.end_col_offset]
        else:
            first = lines[node.lineno - 1][node.col_offset:]
            mid = lines[node.lineno:node.end_lineno - 1]
            last = lines[node.end_lineno - 1][:node.end_col_offset]
            text = " ".join(s.strip() for s in [first] + mid + [last])
    except (IndexError, AttributeError, TypeError):
        return ""
    return text if len(text) <= MAX_SRC else text[:MAX_SRC - 1] + "…"


_STORED_CONTAINERS = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict",
                      ast.Tuple: "tuple", ast.Set: "set", ast.SetComp: "set"}


def _stored_kind(value):
    """What a store puts in an attribute, where the expression alone says: "object" for a
    construction (`X(...)`, `mod.X(...)`, an upper-case callee), a container's kind for a
    literal or comprehension; None otherwise."""
    t = type(value)
    if t in _STORED_CONTAINERS:
        return _STORED_CONTAINERS[t]
    if t is ast.Call:
        f = value.func
        name = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else ""
        return "object" if name[:1].isupper() else None
    return None


def _attr_pos(node):
    """(line, col) of the attribute name in `a.b` (where a user looks), not of `a`."""
    line = node.end_lineno or node.lineno
    col = (node.end_col_offset or 0) - len(node.attr)
    return line, max(col, 0)


def strip_optional(node):
    """`Optional[X]`, `X | None`, `"X"` -> the node for X (annotations name the type to use)."""
    for _ in range(4):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
            continue
        if isinstance(node, ast.Subscript) and (_dotted(node.value) or "").split(".")[-1] == "Optional":
            node = node.slice
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = node.left, node.right
            if isinstance(right, ast.Constant) and right.value is None:
                node = left
                continue
            if isinstance(left, ast.Constant) and left.value is None:
                node = right
                continue
            return None
        return node
    return node


def union_members(node):
    """The members of a union annotation (`A | B`, `Union[A, B]`, `Optional[Union[A, B]]`, quoted
    or not), `None` left out; None when the annotation is not a union of two or more."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.Subscript) and (_dotted(node.value) or "").split(".")[-1] == "Optional":
        return union_members(node.slice)
    if isinstance(node, ast.Subscript) and (_dotted(node.value) or "").split(".")[-1] == "Union":
        members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members, stack = [], [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
                stack += [n.right, n.left]
            else:
                members.append(n)
    else:
        return None
    members = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)
               and not (isinstance(m, ast.Name) and m.id == "None")]
    return members if len(members) > 1 else None


_VERSION_CHARS = set("0123456789.rcpostdevab+")
_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _version_literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:1].isdigit() \
            and "." in node.value and set(node.value) <= _VERSION_CHARS:
        return node.value
    if isinstance(node, ast.Tuple) and 2 <= len(node.elts) <= 4 and all(
            isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0 for e in node.elts):
        return ".".join(str(e.value) for e in node.elts)  # `__version_tuple__ < (0, 25)`
    if isinstance(node, ast.Call) and len(node.args) == 1:  # Version("0.12"), parse("0.12")
        return _version_literal(node.args[0])
    return None


def _mentions_version(node):
    return any((isinstance(n, ast.Name) and "version" in n.id.lower())
               or (isinstance(n, ast.Attribute) and "version" in n.attr.lower()) for n in walk(node))


def flag_constants(tree):
    """Module-level `NAME = True` / `NAME = False` bound once and never again in the module: a
    switch the code reads as a constant (`USE_X = False` then `if USE_X: import ...`). Once per
    tree while the walks are memoised (the usage, reach and IR readers all ask); never change it."""
    return once(_flag_constants, tree)


def _flag_constants(tree):
    out, stores = {}, {}
    for node in walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                stores[name] = stores.get(name, 0) + 2
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Constant) and isinstance(st.value.value, bool) \
                and stores.get(st.targets[0].id) == 1:
            out[st.targets[0].id] = st.value.value
    return out


def version_guard(test, names, flags=None):
    """A branch test on the running version, as data drift can evaluate against a target:
    `vllm.__version__ >= "0.12"` -> {"op": ">=", "version": "0.12"}; `helper("0.11.0")` ->
    {"call": dotted helper, "version": "0.11.0"} (the helper's own comparison is recorded where
    it is defined). `not ...` sets "negated"."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    g = None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS:
        op = _OPS[type(test.ops[0])]
        left, right = test.left, test.comparators[0]
        lv, rv = _version_literal(left), _version_literal(right)
        if rv and not lv and _mentions_version(left):
            g = {"op": op, "version": rv}
        elif lv and not rv and _mentions_version(right):
            g = {"op": _FLIP[op], "version": lv}
    elif isinstance(test, ast.Call) and test.args and not test.keywords:
        v = _version_literal(test.args[0])
        name = _dotted(test.func)
        if v and name and len(test.args) == 1:
            head = name.split(".")[0]
            root = names.get(head)
            dotted = (root[0][4:] + name[len(head):]) if root and root[0].startswith("sym:") else name
            g = {"call": dotted, "version": v}
    elif isinstance(test, ast.Call) and not test.args and not test.keywords and isinstance(test.func, ast.Name):
        root = names.get(test.func.id)  # `use_legacy_path()`: a wrapper of a version test, if its module says so
        if root and root[0].startswith("sym:"):
            g = {"call": root[0][4:], "wrapper": True}
    elif flags and isinstance(test, ast.Name) and test.id in flags:
        g = {"const": flags[test.id]}  # the same on every version: code under a False switch never runs
    if g is None and isinstance(test, ast.Compare) and len(test.ops) == 1:
        g = _folded_guard(test, names)
    if g is not None and negated:
        g["negated"] = not g.get("negated")
    return g


def _version_side(node, names):
    """One side of a comparison the consumer writes with its own version values: a version
    literal -> {"version": text}; a name of the consumer's (an enum member `VLLMVersion.v_0_6_3`,
    a module constant `CURRENT_VLLM_VERSION` imported from where it is computed) -> {"ref":
    dotted}, folded where drift knows every module's constants (`version_predicates`); anything
    else that names a version (`self.vllm_version`) -> {"named": True}; else None."""
    lit = _version_literal(node)
    if lit:
        return {"version": lit}
    name = _dotted(node)
    if name:
        head = name.split(".")[0]
        root = names.get(head)
        if root and root[0].startswith("sym:"):
            return {"ref": root[0][4:] + name[len(head):]}
    return {"named": True} if _mentions_version(node) else None


def _folded_guard(test, names):
    """A comparison between the consumer's own version values, evaluated once their values are
    known: `CURRENT_VLLM_VERSION == VLLMVersion.v_0_6_3` -> {"op": "==", "sides": [left, right]};
    `CURRENT in [VLLMVersion.a, VLLMVersion.b]` -> {"op": "in", "sides": [left, [item, ...]]};
    `vllm_version in "0.4.1"` (a text containment) -> {"op": "in-text", ...}. Only comparisons
    with at least one side drift cannot read as a literal on its own (plain literal tests are
    `version_guard`'s); None when a side is neither a version literal nor a name."""
    op_type = type(test.ops[0])
    left, right = _version_side(test.left, names), None
    if left is None:
        return None
    comparator = test.comparators[0]
    if op_type in (ast.In, ast.NotIn):
        if isinstance(comparator, (ast.List, ast.Tuple, ast.Set)) and comparator.elts:
            items = [_version_side(e, names) for e in comparator.elts]
            if any(i is None or "named" in i for i in items):
                return None
            g = {"op": "in", "sides": [left, items]}
        elif isinstance(comparator, ast.Constant) and _version_literal(comparator):
            g = {"op": "in-text", "sides": [left, {"version": comparator.value}]}
        else:
            return None
        return dict(g, negated=True) if op_type is ast.NotIn else g
    if op_type not in _OPS:
        return None
    right = _version_side(comparator, names)
    if right is None or "ref" not in left and "ref" not in right:
        return None  # two literals, or a literal and a version-named value: version_guard's own shape
    return {"op": _OPS[op_type], "sides": [left, right]}


def _version_aliases(fn, names, flags=None):
    """{local name: the expression} for each name a function binds exactly once, to a version test
    or to an `a and <version test>` (probes/reach.py `_version_alias`); names bound more than once,
    or by a loop, `with`, `:=` or an augmented assignment, are left out."""
    if not isinstance(fn, _FUNCS):
        return {}
    counts, values = {}, {}
    for node in walk(fn):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        for t in targets:
            for n in walk(t):
                if isinstance(n, ast.Name):
                    counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    return _bound_once_to_tests(counts, values, names, flags)


def alias_test(test, aliases, attrs, self_name, names, flags=None):
    """`test` read through the names bound once to a version test: a local (`aliases`,
    `_version_aliases`) or `self.<attr>` (`attrs`, `_self_version_aliases`), also as `not x` and as
    operands of `and`/`or` (`if self.use_spec_pp and rank == 0:`; an `and` alias is spliced into an
    `and`, into an `or` only a plain version test goes). The IR's guarded lines (probes/ir.py) and
    the walk of each function read branches the same way."""
    def one(t):
        negated, name = False, t
        if isinstance(name, ast.UnaryOp) and isinstance(name.op, ast.Not):
            negated, name = True, name.operand
        if isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name) and self_name \
                and name.value.id == self_name:
            value = attrs.get(name.attr)
        elif isinstance(name, ast.Name):
            value = aliases.get(name.id)
        else:
            value = None
        if value is None:
            return t
        return ast.UnaryOp(op=ast.Not(), operand=value) if negated else value

    if not aliases and not attrs:
        return test
    test = one(test)
    if not isinstance(test, ast.BoolOp):
        return test
    values, changed = [], False
    for v in test.values:
        a = one(v)
        if a is v:
            values.append(v)
        elif isinstance(test.op, ast.And) and isinstance(a, ast.BoolOp) and isinstance(a.op, ast.And):
            values.extend(a.values)
            changed = True
        elif version_guard(a, names, flags) is not None:
            values.append(a)
            changed = True
        else:
            values.append(v)
    return ast.BoolOp(op=test.op, values=values) if changed else test


def _self_version_aliases(cls_node, names, flags=None):
    """{attribute: the expression} for each `self.<attribute>` the class's methods store exactly once,
    as a version test or an `a and <version test>` (`self.use_spec_pp = spec is not None and
    use_legacy_spec_pp()` in `__init__`): `if self.use_spec_pp:` in any method runs under that test."""
    counts, values = {}, {}
    for fn in cls_node.body:
        if not isinstance(fn, _FUNCS) or not fn.args.args:
            continue
        me = fn.args.args[0].arg
        for node in walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for t in targets:
                for n in walk(t):
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me:
                        counts[n.attr] = counts.get(n.attr, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                    and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == me:
                values[node.targets[0].attr] = node.value
    return _bound_once_to_tests(counts, values, names, flags)


def _bound_once_to_tests(counts, values, names, flags):
    """{name: its value} for the names stored exactly once (`counts`) whose value (`values`) is a
    version test or an `and` holding one."""
    return {name: value for name, value in values.items() if counts.get(name) == 1
            and (version_guard(value, names, flags) is not None or compound_guards(value, names, flags)[0])}


_NUMERIC_OPS = {ast.Sub: "-", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
                ast.LShift: "<<", ast.RShift: ">>"}


def _arithmetic_operands(node):
    """{id(attribute operand): operator} of a binary operation only numbers take (`n % x.a`,
    `x.a // 2`): a list or a tuple there raises TypeError. `%` with a string on the left formats
    it, and `+`/`*` also join and repeat sequences: none of those counts."""
    op = _NUMERIC_OPS.get(type(node.op))
    if op is None or (op == "%" and (type(node.left) is ast.JoinedStr or
                                     (type(node.left) is ast.Constant and isinstance(node.left.value, str)))):
        return {}
    return {id(side): op for side in (node.left, node.right) if type(side) is ast.Attribute}


def _truth_tested(node, whole=False):
    """ids of the attribute reads `node` tests for truth or None: `x.a is None` / `is not None`,
    `not x.a`, each operand of an `and` / `or` but the last (`x.a or default`: the last is the
    value), every operand of a whole test (`whole`: an `if`'s, a conditional expression's)."""
    t = type(node)
    if t is ast.Attribute:
        return {id(node)} if whole else set()
    if t is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) in (ast.Is, ast.IsNot) \
            and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
        return _truth_tested(node.left, True)
    if t is ast.BoolOp:
        out = set()
        for v in node.values if whole else node.values[:-1]:
            out |= _truth_tested(v, True)
        return out
    if t is ast.UnaryOp and isinstance(node.op, ast.Not):
        return _truth_tested(node.operand, True)
    if t is ast.IfExp:
        return _truth_tested(node.test, True)
    return set()


def compound_guards(test, names, flags=None):
    """Version tests inside `a and <version test>` / `a or <version test>`: (the guards the
    body runs under, the guards the else branch runs under). `if flag and vllm_version_is("0.13")`
    runs its body only on 0.13; `if flag or <test>` runs its else only where the test is false."""
    if not isinstance(test, ast.BoolOp):
        return [], []
    found = [g for g in (version_guard(v, names, flags) for v in test.values) if g is not None]
    whole = len(found) == len(test.values)  # every part a version test: the other branch is one of them
    if isinstance(test.op, ast.And):
        return found, [{"any": [dict(g, negated=not g.get("negated")) for g in found]}] if whole else []
    # `if vllm_version_is("0.10.1.1") or vllm_version_is("0.10.1"):` runs its body where either holds
    return [{"any": found}] if whole else [], [dict(g, negated=not g.get("negated")) for g in found]


_SPEC_PART = re.compile(r"^(~=|===|==|!=|<=|>=|<|>)\s*[0-9][0-9A-Za-z.+*!_-]*$")


def specifier_literal(node, consts):
    """A version specifier set written as a literal (`">=0.8.4,<0.9.0"`) or a module constant
    naming one; None for anything else (a bare version or free text is not a range)."""
    if isinstance(node, ast.Name):
        text = consts.get(node.id)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    else:
        return None
    if not text or len(text) > 100:
        return None
    parts = [p.strip() for p in text.split(",")]
    return text.strip() if parts and all(_SPEC_PART.match(p) for p in parts) else None


def decorator_guard(node, consts):
    """A function or class decorated with the consumer's own version gate, `@version_range(
    ">=0.8.4,<0.9.0")` or `@supported(SOME_RANGE)`: {"specs": [...]} (the body runs only on a
    version one of them admits; stacked gates widen the range, as registries of gated patches
    do), or None."""
    specs = []
    for d in getattr(node, "decorator_list", ()):
        if isinstance(d, ast.Call) and len(d.args) == 1 and not d.keywords:
            spec = specifier_literal(d.args[0], consts)
            if spec:
                specs.append(spec)
    return {"specs": specs} if specs else None


def _string_items(node):
    """`("a", "b")` / `["a", "b"]` / `{"a", "b"}` of string literals only -> {text: [line, col]}."""
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or not node.elts:
        return None
    out = {}
    for e in node.elts:
        if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
            return None
        out[e.value] = [e.lineno, e.col_offset]
    return out


def name_lists(tree):
    """Module-level `NAMES = ("a", "b")` (string literals only): the literal node, by name.

    A list derived from one of them keeps its literal node: `tuple(NAMES)`, `list(NAMES)`, and a
    comprehension over it filtered by `hasattr(obj, n)` (`LIVE = tuple(n for n in NAMES if
    hasattr(mod, n))`), the idiom that patches only the names a module still has; such a list's
    name is in `out["?hasattr"]` so a patch through it is known to skip a name that is gone."""
    out = {}
    for st in tree.body:
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
            continue
        if _string_items(st.value):
            out[st.targets[0].id] = st.value
            continue
        source, filtered = _derived_list(st.value)
        if source in out:
            out[st.targets[0].id] = out[source]
            if filtered or source in out.get("?hasattr", ()):
                out.setdefault("?hasattr", set()).add(st.targets[0].id)
    return out


def _derived_list(value):
    """`tuple(L)` / `list(L)` / `[n for n in L]` / `tuple(n for n in L if hasattr(o, n))` ->
    ("L", whether a hasattr test filters it); anything else -> (None, False)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("tuple", "list", "set") \
            and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if isinstance(value, ast.Name):
        return value.id, False
    if not isinstance(value, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) or len(value.generators) != 1:
        return None, False
    gen = value.generators[0]
    if not (isinstance(gen.iter, ast.Name) and isinstance(gen.target, ast.Name)
            and isinstance(value.elt, ast.Name) and value.elt.id == gen.target.id):
        return None, False
    tests = gen.ifs
    if not tests:
        return gen.iter.id, False
    if len(tests) == 1 and isinstance(tests[0], ast.Call) and isinstance(tests[0].func, ast.Name) \
            and tests[0].func.id == "hasattr" and len(tests[0].args) == 2 \
            and isinstance(tests[0].args[1], ast.Name) and tests[0].args[1].id == gen.target.id:
        return gen.iter.id, True
    return None, False


def string_constants(tree):
    """Module-level `NAME = "text"` (what a decorator or a class attribute may name)."""
    out = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            target, value = st.targets[0], st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            target, value = st.target, st.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            out[target.id] = value.value
    return out


def version_compares(tree, prefixes):
    """Comparisons of a target's `__version__` string with a version literal, as written:
    `vllm.__version__ >= "0.9.0"` compares text, so "0.10.0" sorts before "0.9.0"."""
    out = []
    for node in walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OPS):
            continue
        left, right, op = node.left, node.comparators[0], _OPS[type(node.ops[0])]
        for ver, lit, flip in ((left, right, False), (right, left, True)):
            if not (isinstance(lit, ast.Constant) and isinstance(lit.value, str) and _version_literal(lit)):
                continue
            name = _dotted(ver) or ""
            if not name.endswith("__version__"):
                continue
            out.append({"line": node.lineno, "col": node.col_offset, "op": _FLIP[op] if flip else op,
                        "version": lit.value, "of": name})
    return out


def names_carrying(fn, param):
    """`param` and the locals of `fn` assigned from it, directly or through another such local:
    `target = version.parse(v).base_version` carries `v` into the comparison
    `return running == target` (vllm-gcu's `is_vllm_equal`), as a compare of `v` itself does."""
    carried = {param}
    assigns = [n for n in walk(fn) if isinstance(n, ast.Assign) and n.targets
               and all(isinstance(t, ast.Name) for t in n.targets)]
    grew = True
    while grew:
        grew = False
        for a in assigns:
            if any(isinstance(x, ast.Name) and x.id in carried for x in walk(a.value)):
                for t in a.targets:
                    if t.id not in carried:
                        carried.add(t.id)
                        grew = True
    return carried


def signature_pruned(if_node, names):
    """The dicts `if k not in params: del d[k]` (or `d.pop(k)`) prunes to what a callable accepts,
    `params` read off `inspect.signature(C)` (directly or through one of `names`): no key of such
    a d reaches `C(**d)` unaccepted, whatever it held before."""
    test = if_node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn)
            and isinstance(test.left, ast.Name)):
        return []
    if not any(reads_accepted_names(n) or isinstance(n, ast.Name) and n.id in names for n in walk(test.comparators[0])):
        return []
    key, out = test.left.id, []
    for st in if_node.body:
        victim = None
        if isinstance(st, ast.Delete) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript):
            sub = st.targets[0]
            if isinstance(sub.slice, ast.Name) and sub.slice.id == key:
                victim = sub.value
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
                and st.value.func.attr == "pop" and st.value.args and isinstance(st.value.args[0], ast.Name) \
                and st.value.args[0].id == key:
            victim = st.value.func.value
        if isinstance(victim, ast.Name):
            out.append(victim.id)
    return out


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _reraises(handler):
    """Whether the handler's body raises again (`raise`, `raise e`, `raise X from e`) on its last
    statement: the error still leaves the function, only dressed differently."""
    return bool(handler.body) and isinstance(handler.body[-1], ast.Raise)


def _caught_names(handler):
    """The exception names an `except` clause catches (`None` for a bare `except:`)."""
    if handler.type is None:
        return None
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    out = []
    for n in names:
        d = _dotted(n)
        if d:
            out.append(d.split(".")[-1])
    return out


def handler_ranges(tree):
    """[[first, last, handler line, [exception names]]] for each `except <names>:` clause of each
    `try:` (re-raising ones too: what they raise instead is the consumer's choice of error): which
    errors the consumer expects the body's calls to raise, so a target exception class that stops
    deriving from one of those names (`VLLMValidationError(ValueError)` -> `(VLLMClientError)`)
    escapes the handler (drift/analysis/rules/lost_exception_bases.py)."""
    out = []
    for node in walk(tree):
        if not (isinstance(node, ast.Try) or type(node).__name__ == "TryStar") or not node.body:
            continue
        first = node.body[0].lineno
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in node.body)
        for h in node.handlers:
            caught = _caught_names(h)
            if caught:
                out.append([first, last, h.lineno, sorted(set(caught))])
    return out


def caught_ranges(tree):
    """[[first, last, [exception names], try line]] for each `try:` body whose handlers swallow
    the error (no handler on the way re-raises it): a use there that the target breaks raises into
    the handler, which runs its fallback instead (`try: n = runner.attn_backends ... except
    (AttributeError, NotImplementedError): n = 1`). ["*"] for a bare `except:`. The bodies of
    functions defined inside the `try` run later, outside it: they are cut out as ranges of their own
    with no names."""
    out = []
    for node in walk(tree):
        if not (isinstance(node, ast.Try) or type(node).__name__ == "TryStar") or not node.body:
            continue
        names = []
        for h in node.handlers:
            if _reraises(h):
                continue
            caught = _caught_names(h)
            names.extend(["*"] if caught is None else caught)
        if not names:
            continue
        first = node.body[0].lineno
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in node.body)
        out.append([first, last, sorted(set(names)), node.lineno])
        for st in node.body:
            for inner in walk(st):
                if isinstance(inner, _NESTED):
                    out.append([inner.lineno, getattr(inner, "end_lineno", None) or inner.lineno, [], node.lineno])
    return out


def _hasattr_test(test):
    """(True, name) for `hasattr(x, k)`, (False, name) for `not hasattr(x, k)`, None for any other
    test; name is k's text when it is a literal, "*" when it is a variable (a loop's key)."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    call = test.operand if negated else test
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "hasattr" \
            and len(call.args) == 2:
        key = call.args[1]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return not negated, key.value
        return (not negated, "*") if isinstance(key, ast.Name) else None
    return None


def absent_raises(tree):
    """[[test line, raise line, k]] for each `if hasattr(x, k): ... else: raise ...` (and `if not
    hasattr(x, k): raise ...`): where the attribute is missing, the consumer raises there itself.
    A setting applied under such a test (`for k, v in defaults.items(): if hasattr(args, k):
    setattr(args, k, v) else: raise ValueError(...)`) fails at that raise once the target drops
    the attribute, instead of being silently lost. k: the literal name tested, "*" for a variable."""
    out = []
    for node in walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = _hasattr_test(node.test)
        if test is None:
            continue
        has, key = test
        branch = node.orelse if has else node.body
        hit = next((st for st in branch if isinstance(st, ast.Raise)), None)
        if hit is not None:
            out.append([node.test.lineno, hit.lineno, key])
    return out


def version_predicates(tree, module, quals, roots=None, names=None):
    """Consumer helpers that compare the running version with their parameter:
    `def vllm_version_is(v): return Version(vllm.__version__) == Version(v)` -> {"op": "=="}.
    Recognised by what they do, whatever their name: one parameter (besides `self`/`cls` of a
    method, whose calls read `self.helper("0.9")`), and a `return` comparing it with a value that is a version (a name or attribute saying so, or `__version__` read in
    the function). With the module's `names` (`_Module.names`), also helpers with no parameters
    that return one version test (`_wrappers`)."""
    out = {}
    for fn in walk(tree):
        params = [a.arg for a in fn.args.args] if isinstance(fn, _FUNCS) else []
        if params[:1] in (["self"], ["cls"]):
            params = params[1:]  # a method or classmethod called `self.is_new("0.9")`: the version is its one argument
        if len(params) != 1:
            continue
        param = params[0]
        reads_version = any(isinstance(n, ast.Attribute) and n.attr == "__version__" for n in walk(fn))
        carried = names_carrying(fn, param)
        tests = [n.value for n in walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Compare)]
        tests += _true_when(fn)
        for test in tests:
            op = _compared_op(test, carried, reads_version)
            if op is not None:
                out["%s.%s" % (module, quals.get(id(fn), fn.name))] = {"op": op}
                break
    if names is not None:
        out.update(_wrappers(tree, module, quals, names))
    out.update(version_values(tree, module, roots))
    return out


def _wrappers(tree, module, quals, names):
    """Module functions with no parameters whose body returns one version test (a docstring
    aside): `def use_legacy_spec_pp(): return vllm_version_is("0.29.0")` -> {"guard": that test}.
    A branch on a call of one (`if use_legacy_spec_pp():`) is then that test (drift/consumer/guards.py).
    `names`: the module's own names (`_Module.names`: imports and definitions)."""
    out = {}
    for fn in tree.body:
        if not isinstance(fn, _FUNCS) or fn.args.args or fn.args.posonlyargs or fn.args.vararg \
                or fn.args.kwonlyargs or fn.args.kwarg:
            continue
        body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) \
            and isinstance(fn.body[0].value, ast.Constant) else fn.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        g = version_guard(body[0].value, names)
        if g is not None and not g.get("wrapper"):
            out["%s.%s" % (module, quals.get(id(fn), fn.name))] = {"guard": g}
    return out


def _compared_op(test, carried, reads_version):
    """The comparison `test` makes of the running version against the helper's parameter, written
    with the running version on the left ("<": the running version is older), or None."""
    if len(test.ops) != 1 or type(test.ops[0]) not in _OPS:
        return None
    op = _OPS[type(test.ops[0])]
    left, right = test.left, test.comparators[0]
    uses = lambda n: any(isinstance(x, ast.Name) and x.id in carried for x in walk(n))  # noqa: E731
    other = left if uses(right) else right
    if not (reads_version or _mentions_version(other)):
        return None
    if uses(right) and not uses(left):
        return op
    if uses(left) and not uses(right):
        return _FLIP[op]
    return None


# Attributes of a parsed version that only a development, local or pre-release build sets: a
# helper's branch testing them is a special case for such builds, not for a release.
_BUILD_ATTRS = frozenset({"dev", "local", "pre", "post", "is_devrelease", "is_prerelease", "is_postrelease"})


def _true_when(fn):
    """The comparison of a helper written `if <cmp>: return True` ... `return False` (its other
    returns only under tests of a build's dev/local/pre parts, which a release never takes):
    the helper answers that comparison for every release."""
    found = []
    for node in walk(fn):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body or not _is_const_return(body[-1], False):
            continue
        for st in body[:-1]:
            if isinstance(st, ast.If) and isinstance(st.test, ast.Compare) and not st.orelse \
                    and len(st.body) == 1 and _is_const_return(st.body[0], True):
                found.append(st)
    if len(found) != 1:
        return []
    chosen = found[0]
    for node in walk(fn):
        if not isinstance(node, ast.If) or node is chosen:
            continue
        if any(isinstance(n, ast.Return) for n in walk(node)) and not any(
                isinstance(n, ast.Attribute) and n.attr in _BUILD_ATTRS for n in walk(node.test)):
            return []  # another branch answers for releases too: not one comparison
    return [chosen.test]


def _is_const_return(st, value):
    return isinstance(st, ast.Return) and isinstance(st.value, ast.Constant) and st.value.value is value


_VERSION_ATTRS = ("__version__", "__version_tuple__")


def version_values(tree, module, roots=None):
    """The module's own version values, for folding the tests that compare them:
    `{"pkg.const.VLLMVersion.v_0_6_3": {"value": "0.6.3"}}` for an enum member or class constant
    and a module constant bound once to a version literal (a string or a tuple of ints), and
    `{"pkg.const.CURRENT_VLLM_VERSION": {"running": True}}` for a module-level name every binding
    of which (other than `None`) is computed from an installed package's `__version__` or
    `__version_tuple__` (through the module's other such names too: `t = vllm.__version_tuple__`
    then `CURRENT = ".".join(map(str, t[:3]))`). Bindings inside functions are not read: a
    name a function rebinds is no constant. `roots`: the target's top-level names; a version
    read off another package (`torch.__version__`) is not the running target's."""
    bound = {}  # module-level name -> the values bound to it (module statements, their if/try arms)
    classes = {}
    stack = list(tree.body)
    while stack:
        st = stack.pop()
        if isinstance(st, ast.Assign):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(st.value)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            bound.setdefault(st.target.id, []).append(st.value)
        elif isinstance(st, (ast.AugAssign, ast.For, ast.AsyncFor)) and isinstance(st.target, ast.Name):
            bound.setdefault(st.target.id, []).append(None)  # rebound by a loop or an update: not a constant
        elif isinstance(st, ast.ClassDef):
            classes[st.name] = st
        elif isinstance(st, (ast.If, ast.Try, ast.With)) or type(st).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                stack.extend(getattr(st, field, None) or ())
            for h in getattr(st, "handlers", None) or ():
                stack.extend(h.body)
    for node in walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bound.setdefault(name, []).append(None)  # a function rebinds it
    out = {}
    running = set()
    grew = True
    while grew:  # names computed from the running version, through one another
        grew = False
        for name, values in bound.items():
            live = [v for v in values if not (isinstance(v, ast.Constant) and v.value is None)]
            if name in running or not live or any(v is None for v in live):
                continue
            if all(any(isinstance(n, ast.Attribute) and n.attr in _VERSION_ATTRS
                       and (roots is None or (_dotted(n.value) or "").split(".")[0] in roots)
                       or isinstance(n, ast.Name) and n.id in running for n in walk(v)) for v in live):
                running.add(name)
                grew = True
    for name, values in bound.items():
        if name in running:
            out["%s.%s" % (module, name)] = {"running": True}
        elif any(v is not None and any(isinstance(n, ast.Attribute) and n.attr in _VERSION_ATTRS for n in walk(v))
                 for v in values):
            out["%s.%s" % (module, name)] = {"foreign": True}  # another package's version: never the target's
        elif len(values) == 1 and values[0] is not None and _version_literal(values[0]) \
                and not isinstance(values[0], ast.Call):
            out["%s.%s" % (module, name)] = {"value": _version_literal(values[0])}
    for cname, cls in classes.items():
        members = {}
        for st in cls.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                members.setdefault(st.targets[0].id, []).append(st.value)
        for attr, values in members.items():
            if len(values) == 1 and not isinstance(values[0], ast.Call) and _version_literal(values[0]):
                out["%s.%s.%s" % (module, cname, attr)] = {"value": _version_literal(values[0])}
    return out


class _Module:
    def __init__(self, tree, *, module, is_package, prefixes, lines):
        self.module = module
        self.is_package = is_package
        self.prefixes = tuple(prefixes)
        self.own = module.split(".")[0]
        self.prefix_tops = tuple(p.split(".")[0] for p in self.prefixes)
        self.lines = lines
        self.names = {}  # module-level: local -> root path (imports and own defs)
        self.classes = {}
        self.uses = []
        self.calls = []
        self.patches = []
        self.guards = []  # version tests enclosing the statement being walked
        self.returns = {}  # consumer function or method qualname -> path of what it returns
        self.over_annotations = {}  # `over:` root -> the path the consumer's own annotation gives
        self.tests = []  # lines of the `if` tests enclosing the statement being walked
        self.failing = 0  # > 0 while walking an assert's message or a raised exception
        self.consts = string_constants(tree)
        self.name_lists = name_lists(tree)
        self.flags = flag_constants(tree)  # module-level True/False switches (a guard like a version test)
        self.probed = set()  # (owner path, name) tested with hasattr so far in the function being walked
        self.compared = {}  # id(attribute node) -> the string literals an ==, != or `in` test holds it to
        self.tested = set()  # id(attribute node) tested for truth or None (`x.a is None`, `x.a or d`, `if x.a:`)
        self.arith = {}  # id(attribute node) -> the operator of the arithmetic it is an operand of (`n % x.a`)
        self.deco_guards = {}  # function or class qualname -> its own version-gate decorator's guard
        self.saved_inits = _saved_inits(tree.body)  # module-level `_orig = Target.__init__` names
        self.nested_quals = set()  # qualnames of functions defined inside functions
        self.derived = {}  # module-level names -> the paths assignments bound them to
        self._imports(tree)
        for node in tree.body:
            if isinstance(node, (ast.ClassDef,) + _FUNCS):
                self.names.setdefault(node.name, ("sym:%s.%s" % (module, node.name),))

    # -- names ---------------------------------------------------------------------------------
    def _imports(self, tree):
        fallback = _fallback_imports(tree)
        for node in walk(tree):
            if id(node) in fallback:
                continue  # `except ImportError:` re-imports what the `try` body bound: the first choice stands
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.names[a.asname] = ("sym:" + a.name,)
                    else:
                        head = a.name.split(".")[0]
                        self.names[head] = ("sym:" + head,)
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    mod = _relative(self.module, self.is_package, node.level, node.module)
                for a in node.names:
                    if a.name != "*":
                        self.names[a.asname or a.name] = ("sym:%s.%s" % (mod, a.name),)

    def attr_dicts(self, cls):
        """{attr: {key: [line, col]}} of the dicts class `cls` keeps on `self` (probes/attr_dicts.py)."""
        memo = self.__dict__.setdefault("_attr_dicts", {})
        if cls not in memo:
            node = getattr(self, "class_nodes", {}).get(cls)
            memo[cls] = attribute_dicts(node) if node is not None else {}
        return memo[cls]

    def wanted(self, path):
        """Uses worth sending: rooted in the target, in this consumer, or on a consumer `self`."""
        if not path:
            return False
        root = path[0]
        if root.startswith(("self:", "super:", "arg:", "named:", "over:")):
            return True
        dotted = root[4:]
        return any(dotted == p or dotted.startswith(p + ".") for p in self.prefixes + (self.own,))

    def patchable(self, path):
        """A class or module path an assignment patches: a target name, or a class a name getter
        returns (`named:` root), not an instance (`()`) or an element (`[]`)."""
        if not path or "()" in path or any(step.startswith("[") for step in path):
            return False
        return self.is_target(path) or path[0].startswith("named:")

    def is_target(self, path):
        if path and path[0].startswith("over:") and path[0][5:] in self.over_annotations:
            return self.is_target(self.over_annotations[path[0][5:]])  # an annotated override parameter
        if not path or not path[0].startswith("sym:"):
            return False
        dotted = path[0][4:]
        return any(dotted == p or dotted.startswith(p + ".") for p in self.prefixes)

    def type_of_annotation(self, node, env):
        node = strip_optional(node) if node is not None else None
        if node is None:
            return None
        if isinstance(node, ast.Subscript):  # type[X] is the class itself; list[X] etc. unknown
            head = (_dotted(node.value) or "").split(".")[-1]
            if head in ("Type", "type"):
                inner = strip_optional(node.slice)
                return _Chain(self, env).of(inner) if inner is not None else None
            return None
        path = _Chain(self, env).of(node)
        if path and self.wanted(path):
            return path + ("()",)
        return None

    def module_text(self, node):
        """The dotted module name an expression spells, when it is constant: a literal, a module
        constant holding one, or an f-string whose every part is one of those
        (`f"{PKG}.models.{ARCH}"`); None when it is not a dotted name."""
        if isinstance(node, ast.Name):
            text = self.consts.get(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                inner = v.value if isinstance(v, ast.FormattedValue) and v.conversion == -1 \
                    and v.format_spec is None else v
                part = self.consts.get(inner.id) if isinstance(inner, ast.Name) else \
                    inner.value if isinstance(inner, ast.Constant) and isinstance(inner.value, str) else None
                if part is None:
                    return None
                parts.append(part)
            text = "".join(parts)
        else:
            return None
        if not text or not all(part.isidentifier() for part in text.split(".")):
            return None
        return text

    def target_module_named(self, node):
        """`"vllm.v1.core.block_pool"` (a constant `module_text`) -> its dotted name, when it names a
        module inside the target (the bare package name is more often a label, `library =
        "vllm"`); else None."""
        text = self.module_text(node)
        return text if text and any(text.startswith(p + ".") for p in self.prefixes) else None

    def own_module_named(self, node):
        """`"pkg.models.mine"` (a constant `module_text`) -> its dotted name, when it names a module
        of this consumer's own package: `getattr(import_module(...), "Mine")` then names the
        consumer's class the way an import would."""
        text = self.module_text(node)
        return text if text and text.startswith(self.own + ".") else None

    def declared_module(self, cls_qual, seen=None):
        """The one target module a consumer class names in its string class attributes
        (`target_module = "vllm.x"`), own or from a base in this module: a patch class whose
        methods are handed that module. None when it names none or several."""
        seen = seen or set()
        if cls_qual in seen or cls_qual not in self.class_nodes:
            return None
        seen.add(cls_qual)
        node = self.class_nodes[cls_qual]
        named = set()
        for st in node.body:
            value = st.value if isinstance(st, (ast.Assign, ast.AnnAssign)) else None
            m = self.target_module_named(value) if value is not None else None
            if m:
                named.add(m)
        if not named:
            for b in node.bases:
                name = _dotted(b)
                if name and name in self.class_nodes:
                    m = self.declared_module(name, seen)
                    if m:
                        named.add(m)
        return named.pop() if len(named) == 1 else None

    def string_value(self, node):
        """An identifier written as a string literal (or a module constant holding one): the
        class or function name a subclass hands its base's getter; None for anything else."""
        if isinstance(node, ast.Name):
            text = self.consts.get(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            return None
        return text if text and text.isidentifier() else None

    def named_receiver(self, cls_qual, method):
        """Whether `self.<method>(...)` in `cls_qual` may call a name getter defined elsewhere:
        the class (or a base in this module) sets an identifier string as a class attribute, and
        no class of that chain here defines `method` other than as a getter."""
        has_name, todo, seen = False, [cls_qual], set()
        while todo:
            q = todo.pop()
            if q in seen or q not in self.class_nodes:
                continue
            seen.add(q)
            node = self.class_nodes[q]
            for st in node.body:
                if isinstance(st, _FUNCS) and st.name == method and _name_getter(st, _Chain(self, {})) is None:
                    return False
                if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None \
                        and self.string_value(st.value) is not None:
                    has_name = True
            todo.extend(n for n in (_dotted(b) for b in node.bases) if n)
        return has_name

    # -- classes -------------------------------------------------------------------------------
    def class_record(self, node, qual, env):
        chain = _Chain(self, env)
        bases, generic, patch_bases = [], [], []
        for b in node.bases:
            if isinstance(b, ast.Subscript):
                p = chain.of(b.value)
                bases.append(list(p) if p else None)
                args = b.slice.elts if isinstance(b.slice, ast.Tuple) else [b.slice]
                for a in args:
                    ap = chain.of(a)
                    if ap and self.wanted(ap):
                        generic.append(list(ap))
                        if self.is_target(ap) and len(bases) - 1 not in patch_bases:
                            patch_bases.append(len(bases) - 1)  # `Patch[Target]`: see the record below
            else:
                p = chain.of(b) or self.sibling_class(qual, b)
                bases.append(list(p) if p else None)
                if p and len(p) > 1 and self.is_target(p) and all(st.startswith(".") for st in p[1:]):
                    # `class Mine(mod_alias.Base)`: the base is read from the module when the class
                    # is defined, an attribute read like any other (a name gone is an AttributeError)
                    self.use("attr", p, b.lineno, b.col_offset, None)
        decorators = []
        for d in node.decorator_list:
            if isinstance(d, ast.Call):
                for a in d.args:
                    ap = chain.of(a)
                    if ap and self.is_target(ap):
                        decorators.append(list(ap))
        methods, class_attrs = {}, {}
        fields = []  # a dataclass's own fields, in order: its generated __init__ takes them
        for st in node.body:
            if isinstance(st, _FUNCS):
                methods[st.name] = _signature(st)
                if node.bases and st.name != "__init__":  # an override's part of its base's contract
                    methods[st.name].update(self_use(st))
                keys = kwarg_keys(st) if node.bases else None
                if keys:  # `kwargs.get("use_tpu_communicator")`: keywords the target's callers pass by name
                    methods[st.name]["kwarg_keys"] = keys
                if st.name != "__init__":  # an override's, or a method vLLM forwards a hook to
                    built = returned_builds(st, lambda f: _target_path(chain, self, f))
                    if built:
                        methods[st.name]["returns_built"] = built  # a target class it hands back
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and not _class_var(st.annotation):
                    fields.append([st.target.id, st.lineno])
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                self._class_body_read(chain, st.value)
                for t in targets:
                    if isinstance(t, ast.Name):
                        p = chain.of(st.value) if st.value is not None else None
                        if not (p and self.wanted(p)) and isinstance(st, ast.AnnAssign):
                            p = self.type_of_annotation(st.annotation, env)  # `_config: VllmConfig = None`
                        class_attrs[t.id] = {"line": st.lineno, "path": list(p) if p and self.wanted(p) else None}
                        text = self.string_value(st.value)
                        if text is not None:  # `target_class = "Coordinator"`: a name a getter may look up
                            class_attrs[t.id]["str"] = text
        prior = self.classes.get(qual) or {}
        self.classes[qual] = {"line": node.lineno, "col": node.col_offset, "bases": bases, "generic": generic,
                              "decorated_with": decorators, "methods": methods, "class_attrs": class_attrs,
                              "self_attrs": prior.get("self_attrs") or {}}
        if _is_dataclass(node):  # `@dataclass` on the consumer's class: its own fields are constructor parameters
            self.classes[qual]["dataclass_fields"] = fields
        if patch_bases:  # indexes of bases written `Factory[TargetClass]` (a patch or wrapper factory)
            self.classes[qual]["patch_bases"] = patch_bases
        getters = {st.name: g for st in node.body if isinstance(st, _FUNCS) for g in [_name_getter(st, chain)] if g}
        if getters:  # `def _get_target_class(self, mod): return getattr(mod, self.target_class, None)`
            self.classes[qual]["name_getters"] = getters
        posts = [st for st in node.body if isinstance(st, _FUNCS) and st.name == "__post_init__"]
        if posts and node.bases:  # a dataclass's own `__post_init__`: does the base's still run?
            self.classes[qual]["post_init_calls_base"] = _calls_base_post_init(posts[0])
        inits = [st for st in node.body if isinstance(st, _FUNCS) and st.name == "__init__"]
        if inits:  # an __init__ that never hands on to a base's: what the base sets is never set
            saved = _saved_inits(node.body) | self.saved_inits
            self.classes[qual]["init_calls_base"] = _calls_base_init(inits[0], node.name, saved)
            named = _named_base_inits(inits[0], saved)
            if named:  # only `Base.__init__(self, ...)` calls: which bases' `__init__` run, and no other
                self.classes[qual]["init_calls"] = [p for p in (chain.of(n) for n in named) if p]
            above = _super_from(inits[0], node.name, saved)
            if above:  # only `super(Base, self).__init__(...)`: Base's own `__init__` is skipped
                self.classes[qual]["init_super_from"] = [p for p in (chain.of(n) for n in above) if p]

    def _class_body_read(self, chain, value):
        """`_orig = EngineArgs.method` in a class body: the attribute is read when the class is
        defined (when its module is imported), so a member the target no longer has is an
        AttributeError there, as for a base read off a module."""
        p = chain.of(value) if isinstance(value, ast.Attribute) else None
        if p and len(p) > 1 and self.is_target(p) and all(st.startswith(".") and not st.startswith(".?")
                                                          for st in p[1:]):
            self.use("attr", p, value.lineno, value.col_offset, None)

    def sibling_class(self, qual, node):
        """A base named by a class defined beside this one inside the same function (`class
        Mixin: ...` then `class Chat(Mixin, OpenAIServingChat)` in one method body): the function's
        locals are not the module's names, so the base would stay unknown and the mixin's methods
        would never be seen as part of the target class they are combined with."""
        parent = qual.rpartition(".")[0]
        if type(node) is not ast.Name or not parent or parent not in self.quals.values():
            return None
        local = parent + "." + node.id
        return (f"sym:{self.module}.{local}",) if local in self.class_nodes else None

    # -- records -------------------------------------------------------------------------------
    def use(self, kind, path, line, col, function, **extra):
        if kind == "attr" and len(path) > 1 and (tuple(path[:-1]), path[-1]) in self.probed:
            return  # read after `hasattr(obj, "x")` was tested in this function: guarded by the consumer
        rec = {"kind": kind, "path": list(path[:MAX_PATH]), "line": line, "col": col, "function": function}
        rec.update(extra)
        if self.guards:
            rec["guards"] = list(self.guards)
        if self.tests:
            rec["within"] = self.tests[-3:]
        if self.failing:
            rec["on_failure"] = True  # evaluated only on a path that raises anyway
        self.uses.append(rec)


def string_tests(node):
    """{id(attribute node): ([literal, ...], negated)} for a comparison that holds an attribute read to
    string literals: `x.a == "s"`, `"s" != x.a`, `x.a in ("s", "t")` (negated: `!=`, `not in`). What a value of another type (an
    Enum) makes of such a test is decided later, with the target's facts."""
    if len(node.ops) != 1:
        return {}
    op, left, right = node.ops[0], node.left, node.comparators[0]
    if type(op) in (ast.Eq, ast.NotEq):
        for attr, other in ((left, right), (right, left)):
            if type(attr) is ast.Attribute and type(other) is ast.Constant and type(other.value) is str:
                return {id(attr): ([other.value], type(op) is ast.NotEq)}
    elif type(op) in (ast.In, ast.NotIn) and type(left) is ast.Attribute \
            and type(right) in (ast.Tuple, ast.List, ast.Set) and right.elts \
            and all(type(e) is ast.Constant and type(e.value) is str for e in right.elts):
        return {id(left): ([e.value for e in right.elts], type(op) is ast.NotIn)}
    return {}


def _none_stores(body):
    """Names a block's own statements set to `None` (`x = None`, `x: T = None`)."""
    out = set()
    for st in body:
        value = st.value if type(st) in (ast.Assign, ast.AnnAssign) else None
        if isinstance(value, ast.Constant) and value.value is None:
            for t in (st.targets if type(st) is ast.Assign else [st.target]):
                if type(t) is ast.Name:
                    out.add(t.id)
    return out


def _keep_over_none(env, other, body):
    """Where one path of a branch sets a name to `None` and the other binds it to a typed value,
    the name holds that value or None after the merge: reads of it are guarded by a truth test
    (`x.a if x else d`) and reach the value, so it stays bound (not dropped as unknown)."""
    for name in _none_stores(body):
        if name not in env and other.get(name):
            env[name] = other[name]


def _name_getter(fn, chain):
    """A method that looks a name up by a string its class holds: its only value returned is
    `getattr(<param>, self.<attr>[, default])` (or `cls.<attr>`, or a module in place of the
    parameter) -> {"attr", "arg" (the parameter's index, the receiver being 0) or "path",
    "classmethod"}; else None. Subclasses set `<attr>` to the name of a class in a module."""
    args = fn.args.posonlyargs + fn.args.args
    decos = [(_dotted(d) or "").split(".")[-1] for d in fn.decorator_list]
    if not args or "staticmethod" in decos or "property" in decos:
        return None
    names = [a.arg for a in args]
    found = None
    for node in walk(fn):
        if not isinstance(node, ast.Return) or node.value is None \
                or (isinstance(node.value, ast.Constant) and node.value.value is None):
            continue
        v = node.value
        if found is not None or not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                                     and v.func.id == "getattr" and len(v.args) in (2, 3) and not v.keywords):
            return None
        key = v.args[1]
        if not (isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id == names[0]):
            return None
        found = {"attr": key.attr, "classmethod": "classmethod" in decos}
        obj = v.args[0]
        if isinstance(obj, ast.Name) and obj.id in names[1:]:
            found["arg"] = names.index(obj.id)
            found["name"] = obj.id
        else:
            p = chain.of(obj)
            if not (p and chain.mod.wanted(p)):
                return None
            found["path"] = list(p[:MAX_PATH])
    return found


def _saved_inits(body):
    """Names bound in `body` to some class's `__init__` (`_orig_init = Target.__init__`): the
    saved original a patched `__init__` calls instead of `super().__init__`."""
    out = set()
    for st in body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Attribute) \
                and st.value.attr == "__init__":
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                if isinstance(t, ast.Name):
                    out.add(t.id)
    return out


def _calls_base_post_init(fn):
    """Whether a `__post_init__` hands on to a base's: any `super()` call, any read of an
    attribute named `__post_init__` (`Base.__post_init__(self)`), `vars()` or `__dict__`."""
    for node in walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("super", "vars"):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("__post_init__", "__dict__"):
            return True
    return False


def _calls_base_init(fn, cls_name, saved=frozenset()):
    """Whether an `__init__` calls a base `__init__` in any form: `super().__init__(...)`,
    `super(C, self).__init__`, `Base.__init__(self, ...)`, or a saved original of one (`saved`:
    `self._orig_init(...)`, `_orig(self, ...)` after `_orig_init = Target.__init__`); any
    `super()` call, `__dict__` or `vars()` counts too, so nothing is claimed where the state may
    be copied in another way."""
    for node in walk(fn):
        if isinstance(node, ast.Call) and saved:
            f = node.func
            if (isinstance(f, ast.Name) and f.id in saved) or (isinstance(f, ast.Attribute) and f.attr in saved):
                return True
        if isinstance(node, ast.Attribute) and node.attr in ("__init__", "__new__", "__setstate__"):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("super", "vars"):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return True
    return False


def _other_hand_on(node, saved, calls) -> bool:
    """Whether `node` may run the bases' `__init__` some other way than the calls the two scans
    below collect: a call of a saved original (`saved`), of a builtin in `calls` (`vars()`,
    `super()`), or a touch of `__new__` / `__setstate__` / `__dict__` (the object rebuilt or copied)."""
    if isinstance(node, ast.Call):
        f = node.func
        if saved and ((isinstance(f, ast.Name) and f.id in saved) or (isinstance(f, ast.Attribute) and f.attr in saved)):
            return True
        if isinstance(f, ast.Name) and f.id in calls:
            return True
    return isinstance(node, ast.Attribute) and node.attr in ("__new__", "__setstate__", "__dict__")


def _super_from(fn, cls_name, saved=frozenset()):
    """The `X` of each `super(X, self).__init__(...)` in an `__init__` whose only hand-on to a base
    is such calls, X another class than its own: Python starts the lookup after X in the MRO, so X's
    own `__init__` (and those of the classes between) never run. Empty when any other hand-on
    (`super().__init__`, `super(Own, self)`, `Base.__init__(self)`, a saved original, `__new__`,
    `__setstate__`, `__dict__`, `vars()`) may run them."""
    out = []
    for node in walk(fn):
        if _other_hand_on(node, saved, ("vars",)):
            return []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
            sup = node.func.value
            if not (isinstance(sup, ast.Call) and isinstance(sup.func, ast.Name) and sup.func.id == "super"
                    and len(sup.args) == 2 and isinstance(sup.args[0], (ast.Name, ast.Attribute))
                    and isinstance(sup.args[1], ast.Name) and sup.args[1].id == "self"
                    and not (isinstance(sup.args[0], ast.Name) and sup.args[0].id == cls_name)):
                return []
            out.append(sup.args[0])
    return out


def _named_base_inits(fn, saved=frozenset()):
    """The `X` of each `X.__init__(self, ...)` in an `__init__` whose only hand-on to a base is such
    calls (no `super()`, saved original, `__new__`, `__setstate__`, `__dict__` or `vars()`): then
    the bases between the class and X never run their `__init__`. Empty otherwise."""
    out = []
    for node in walk(fn):
        if _other_hand_on(node, saved, ("super", "vars")):
            return []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
            receiver = node.func.value
            if not isinstance(receiver, (ast.Name, ast.Attribute)) or not node.args \
                    or not (isinstance(node.args[0], ast.Name) and node.args[0].id == "self"):
                return []
            out.append(receiver)
    return out


_TARGET_STRING = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*){2,}$")


def _decorator_target(fn):
    """((owner dotted, attribute), string node) for a decorator call given one dotted string of
    three parts or more (`@patch("pkg.mod.Cls.m")`, `@register_patch(target="pkg.mod.f")`):
    the name the decorated function is installed as. None when no decorator names one, or
    more than one string could."""
    found = []
    for d in fn.decorator_list:
        if not isinstance(d, ast.Call):
            continue
        for a in list(d.args) + [k.value for k in d.keywords]:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and _TARGET_STRING.match(a.value):
                owner, _, name = a.value.rpartition(".")
                found.append(((owner, name), a))
    return found[0] if len(found) == 1 else None


def _target_path(chain, scan, node):
    """The target path `node` names in this scope, or None."""
    p = chain.of(node)
    return p if p and scan.is_target(p) else None


def _signature(fn):
    a = fn.args
    params = []
    pos = a.posonlyargs + a.args
    first_default = len(pos) - len(a.defaults)
    for i, p in enumerate(pos):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        params.append([p.arg, kind, i >= first_default])
    if a.vararg:
        params.append([a.vararg.arg, "VAR_POSITIONAL", True])
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append([p.arg, "KEYWORD_ONLY", d is not None])
    if a.kwarg:
        params.append([a.kwarg.arg, "VAR_KEYWORD", True])
    decos = [(_dotted(d.func if isinstance(d, ast.Call) else d) or "") for d in fn.decorator_list]
    out = {"line": fn.lineno, "col": fn.col_offset, "params": params, "decorators": decos,
           "is_async": isinstance(fn, ast.AsyncFunctionDef)}
    shape = statement_shape(fn)
    if shape:  # its body, statement by statement: a copy of a target function? (rules/copies.py)
        out["shape"] = shape
    returns = _return_type(fn)
    if returns:
        out["returns"] = returns  # what the override says it hands the target's callers
    line = _constant_return_line(fn)
    if line:
        out["returns_line"] = line  # the value to change is written there
        value = _constant_return_str(fn)
        if value is not None:
            out["returns_str"] = value  # a name the target may look up (`Enum[x.get_name()]`)
    arity = _tuple_arity(fn)
    if arity is not None:
        out["returns_arity"] = arity  # how many values every `return` hands back: [count, line]
    body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
    if len(body) == 1 and type(body[0]) is ast.Raise and body[0].exc is not None:
        out["raises_only"] = True  # a stub: however it is called, it fails (or fails differently)
    unread = unread_params(fn, [p[0] for p in params if p[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")])
    if unread:
        out["unread"] = unread  # parameters the body never mentions: whatever a caller hands them is ignored
    return out


_STATEMENT_NODES = (ast.stmt, ast.excepthandler) + ((ast.match_case,) if hasattr(ast, "match_case") else ())


def _own_returns(fn):
    """The function's own `return` statements (not those of functions or classes inside it)."""
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if type(n) is ast.Return:
            yield n
            continue
        stack.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, _STATEMENT_NODES))


def _tuple_arity(fn):
    """[count, line of the first return] when every `return` of the function hands back a tuple
    literal of the same length with no starred element (`return out, lse, None`): what the
    target's callers unpack it into must be that many names. None otherwise (a generator, a
    bare return, a computed value: the length is not seen)."""
    counts, first = set(), None
    for st in _own_returns(fn):
        v = st.value
        if type(v) is not ast.Tuple or any(type(e) is ast.Starred for e in v.elts):
            return None
        counts.add(len(v.elts))
        first = st.lineno if first is None else min(first, st.lineno)
    if len(counts) != 1 or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn)):
        return None
    return [counts.pop(), first]


def _return_type(fn):
    """The function's return annotation as written, else the builtin type of the one constant it
    returns (`return "gdn_attention"` is a str); None when neither says."""
    if fn.returns is not None:
        try:
            return ast.unparse(fn.returns).strip("'\"")
        except (AttributeError, ValueError, RecursionError):
            return None
    body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
    if len(body) == 1 and type(body[0]) is ast.Return and isinstance(body[0].value, ast.Constant):
        value = body[0].value.value
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return type(value).__name__
    return None


def _constant_return_line(fn):
    """The line of the one `return <constant>` a function's body is (None otherwise)."""
    body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
    if len(body) == 1 and type(body[0]) is ast.Return and isinstance(body[0].value, ast.Constant):
        return body[0].lineno
    return None


def _constant_return_str(fn):
    """The string the function's one `return "<text>"` returns (short, an identifier-like name), else None."""
    body = fn.body[1:] if fn.body and _is_docstring(fn.body[0]) else fn.body
    value = body[0].value.value if len(body) == 1 and type(body[0]) is ast.Return else None
    return value if isinstance(value, str) and len(value) <= 80 else None


def _is_docstring(st):
    return type(st) is ast.Expr and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)


_COPIERS = (("sym:copy", ".deepcopy"), ("sym:copy", ".copy"), ("sym:copy.deepcopy",), ("sym:copy.copy",))


def _copies(path):
    """Whether a callee path is `copy.deepcopy` / `copy.copy` (however imported): a copy of an
    object is an object of the same class."""
    return path is not None and tuple(path) in _COPIERS


def _says_any(node):
    """`Any` / `typing.Any` (quoted too): an annotation that says nothing of the value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip() in ("Any", "typing.Any")
    return (_dotted(node) or "") in ("Any", "typing.Any", "t.Any")


class _Chain:
    """Path of an expression, without recording anything."""

    def __init__(self, mod, env, cls=None):
        self.mod, self.env, self.cls = mod, env, cls

    def of(self, node, depth=0):
        if depth > MAX_PATH:
            return None
        t = type(node)
        if t is ast.Name:
            if node.id in self.env:
                return self.env[node.id]
            return self.mod.names.get(node.id)
        if t is ast.Attribute:
            v = node.value
            if type(v) is ast.Name:  # `self.x` narrowed by isinstance in this function
                key = v.id + "." + node.attr
                if key in self.env:
                    return self.env[key]
            base = self.of(v, depth + 1)
            return base + ("." + node.attr,) if base else None
        if t is ast.Call:
            fname = node.func.id if type(node.func) is ast.Name else None
            if fname == "super" and self.cls and not node.args:
                return ("super:%s.%s" % (self.mod.module, self.cls),)
            if fname == "getattr" and len(node.args) in (2, 3) and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier() \
                    and not node.keywords:
                base = self.of(node.args[0], depth + 1)  # with a default: a soft step, `.?x` (SCHEMA.md)
                return base + ((".?" if len(node.args) == 3 else ".") + node.args[1].value,) if base else None
            if len(node.args) == 1 and not node.keywords and self._imports_module(node.func):
                named = self.mod.target_module_named(node.args[0]) or self.mod.own_module_named(node.args[0])
                return ("sym:" + named,) if named else None
            if fname == "cast" and len(node.args) == 2:
                return self.mod.type_of_annotation(node.args[0], self.env)
            if len(node.args) == 1 and not node.keywords and _copies(self.of(node.func, depth + 1)):
                return self.of(node.args[0], depth + 1)  # `copy.deepcopy(x)`: an object of x's class
            named = self._named_call(node, depth)
            if named:
                return named
            base = self.of(node.func, depth + 1)
            return base + ("()",) if base else None
        if t is ast.Subscript:  # `x[i]` is an element; `x[a:b]` is a slice, of the same kind as x
            stored = self.stored(node.value) if type(node.slice) is not ast.Slice else None
            if stored:  # a container this function built or annotated (a local, even one named
                return stored  # like a module-level function)
            base = self.of(node.value, depth + 1)
            return base + ("[:]" if type(node.slice) is ast.Slice else "[]",) if base else None
        if t is ast.NamedExpr:
            return self.of(node.value, depth + 1)
        if t is ast.Await:
            return self.of(node.value, depth + 1)
        return None


    def stored(self, node, kind=None):
        """What the function stored in a container it built (`d[k] = v` then `d[k]`), or None."""
        if type(node) is not ast.Name or node.id in self.env:
            return None
        got = getattr(self.mod, "elements", {}).get(node.id)
        if got is None or not got[1] or (kind and got[0] != kind):
            return None
        return got[1]

    def _named_call(self, node, depth):
        """`self._get_target_class(mod)` in a consumer class that sets a name string: a `named:`
        root carrying the receiver, the method and the arguments' paths, since the method may be
        a name getter in a base of another module (drift resolves it, or falls back to the plain
        call's value when it is not one)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) \
                or not (node.args or node.keywords) or any(type(a) is ast.Starred for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            return None
        recv = self.of(func.value, depth + 1)
        if not recv or len(recv) != 1 or not recv[0].startswith(("self:", "sym:")):
            return None
        prefix = "%s:%s." % (recv[0][:recv[0].index(":")], self.mod.module)
        qual = recv[0][len(prefix):] if recv[0].startswith(prefix) else None
        if qual is None or qual not in self.mod.class_nodes or not self.mod.named_receiver(qual, func.attr):
            return None
        args = [self.of(a, depth + 1) for a in node.args]
        args = [list(a[:MAX_PATH]) if a and self.mod.wanted(a) else None for a in args]
        kwargs = {k.arg: self.of(k.value, depth + 1) for k in node.keywords}
        kwargs = {k: list(p[:MAX_PATH]) for k, p in kwargs.items() if p and self.mod.wanted(p)}
        if not any(args) and not kwargs:
            return None
        spec = {"recv": recv[0], "m": func.attr, "args": args}
        if kwargs:
            spec["kwargs"] = kwargs
        return ("named:" + json.dumps(spec, separators=(",", ":"), sort_keys=True),)

    def _imports_module(self, func):
        """`importlib.import_module` however it was imported (`import importlib`, `from importlib
        import import_module`)."""
        if not (isinstance(func, ast.Attribute) and func.attr == "import_module") \
                and not (isinstance(func, ast.Name) and func.id == "import_module"):
            return False
        return self.of(func) in (("sym:importlib", ".import_module"), ("sym:importlib.import_module",))


_MAPPINGS = ("dict", "OrderedDict", "defaultdict", "collections.OrderedDict", "collections.defaultdict")


def _empty_container(value):
    """"dict" for `{}`, `dict()`, `OrderedDict()`, `defaultdict(f)`; "list" for `[]`, `list()`;
    else None."""
    t = type(value)
    if t is ast.Dict and not value.keys:
        return "dict"
    if t is ast.List and not value.elts:
        return "list"
    if t is ast.Call and not value.keywords:
        name = _dotted(value.func)
        if name in _MAPPINGS and len(value.args) <= (1 if name.endswith("defaultdict") else 0):
            return "dict"
        if name == "list" and not value.args:
            return "list"
    return None


_MAPPING_HINTS = ("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict")
_SEQUENCE_HINTS = ("list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "set", "Set",
                   "frozenset", "FrozenSet", "Collection", "deque", "Deque")


def _container_annotation(node):
    """`dict[K, C]` -> ("dict", C); `list[C]`, `Sequence[C]`, `tuple[C, ...]` -> ("list", C); else None."""
    node = strip_optional(node)
    if type(node) is not ast.Subscript:
        return None
    head = (_dotted(node.value) or "").split(".")[-1]
    args = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
    if head in _MAPPING_HINTS and len(args) == 2:
        return "dict", args[1]
    if head in _SEQUENCE_HINTS and len(args) == 1:
        return "list", args[0]
    if head in ("tuple", "Tuple") and len(args) == 2 and type(args[1]) is ast.Constant and args[1].value is Ellipsis:
        return "list", args[0]
    return None


def unpacking(st):
    """`a, b = f(...)` (or `= await f(...)`, `a, *rest = ...`): the call and how many names take
    its result apart (`[plain names, starred]`), so a callee that now returns another number of
    values is seen where Python raises `ValueError: too many values to unpack`; else None."""
    value = st.value.value if type(st.value) is ast.Await else st.value
    if type(value) is not ast.Call:
        return None
    for tgt in st.targets:
        if type(tgt) in (ast.Tuple, ast.List):
            starred = sum(1 for e in tgt.elts if type(e) is ast.Starred)
            return value, [len(tgt.elts) - starred, bool(starred)]
    return None


def item_unpacking(loop):
    """`for a, b in f(...):` (also `async for`, and a comprehension's `for a, *r in f(...)`): the
    call and how many names take each element of its result apart (`[plain names, starred]`), so
    a callee whose items now hold another number of values is seen where Python raises on the
    first element; else None."""
    it = loop.iter.value if type(loop.iter) is ast.Await else loop.iter
    if type(it) is not ast.Call or type(loop.target) not in (ast.Tuple, ast.List):
        return None
    starred = sum(1 for e in loop.target.elts if type(e) is ast.Starred)
    return it, [len(loop.target.elts) - starred, bool(starred)]


def indexed_results(fn):
    """id(call node) -> [the highest constant index read off its result, the line of that read],
    through the one local the result is assigned to (`res = f(...)` or `= await f(...)`, then
    `res[2]`): a callee that now returns fewer values raises IndexError at that read, as one
    unpacked into more names raises ValueError. A local the function binds more than once, or a
    negative index, says nothing."""
    calls, stores = {}, {}
    for node in walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if isinstance(value, ast.Call):
                calls[node.targets[0].id] = value
    out = {}
    for node in walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id in calls and stores.get(node.value.id) == 1 \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int and node.slice.value >= 0:
            key = id(calls[node.value.id])
            if key not in out or node.slice.value > out[key][0]:
                out[key] = [node.slice.value, node.lineno]
    return out


def unawaited_results(fn):
    """id(call node) -> [how, line] for each call whose result the function certainly uses as a
    plain value, never awaiting it nor handing it on: `f(...)` as a statement ("dropped": were
    `f` a coroutine function, its body would never run), `f(...).x`, `f(...)[i]`, `for _ in
    f(...)`, `a, b = f(...)` ("used"), or `r = f(...)` (r bound once) read that way later with
    `r` never awaited, passed to a call, returned or yielded. DRIFT121 reads it for a callee the
    target made `async def`: every such use now gets a coroutine object."""
    out, calls, stores, handed = {}, {}, {}, set()
    for node in walk(fn):
        t = type(node)
        if t is ast.Expr and type(node.value) is ast.Call:
            out[id(node.value)] = ["dropped", node.lineno]
        elif t in (ast.Attribute, ast.Subscript) and type(node.value) is ast.Call:
            out.setdefault(id(node.value), ["used", node.lineno])
        elif t in (ast.For, ast.comprehension) and type(node.iter) is ast.Call:
            out.setdefault(id(node.iter), ["used", node.iter.lineno])
        elif t is ast.Assign and type(node.value) is ast.Call:
            target = node.targets[0] if len(node.targets) == 1 else None
            if type(target) in (ast.Tuple, ast.List):
                out.setdefault(id(node.value), ["used", node.lineno])
            elif type(target) is ast.Name:
                calls[target.id] = node.value
        if t is ast.Name and type(node.ctx) is not ast.Load:
            stores[node.id] = stores.get(node.id, 0) + 1
        elif t in (ast.Await, ast.Return, ast.Yield, ast.YieldFrom, ast.Starred) and type(getattr(node, "value", None)) is ast.Name:
            handed.add(node.value.id)
        elif t is ast.Call:
            handed.update(a.id for a in node.args if type(a) is ast.Name)
            handed.update(k.value.id for k in node.keywords if type(k.value) is ast.Name)
    for node in walk(fn):
        t = type(node)
        var = node.value if t in (ast.Attribute, ast.Subscript) else node.iter if t in (ast.For, ast.comprehension) else None
        if type(var) is ast.Name and var.id in calls and stores.get(var.id) == 1 and var.id not in handed:
            out.setdefault(id(calls[var.id]), ["used", var.lineno])
    return out


class _Function:
    """One function (or the module body): statements in order, names typed as they flow."""

    def __init__(self, mod, *, qual, cls, node, env, probed=(), derived=None):
        self.mod = mod
        self.qual = qual
        self.cls = cls
        self.node = node
        self.env = dict(env)
        self.probed_before = probed  # (owner path, name) pairs the enclosing function tested with hasattr/getattr
        self.dicts = {}  # local dict name -> {key: (line, col)}
        self.self_name = None
        self.seen_calls = set()
        self.loop_keys = {}  # loop variable -> the dict keys it takes (`for k, v in d.items()`)
        self.loop_present = set()  # loop variables over names a hasattr test filtered (only those present)
        self.alternatives = {}  # name -> other paths it may hold (branches that bind it differently)
        self.lists = set()  # local names holding a non-empty list of plain Python values (probes/shapes.py)
        self.empties = set()  # local names bound to `[]`, still open to `.append(...)`
        self.any_lists = set()  # local names bound to a list of any elements (a literal or a comprehension)
        self.namespaces = {}  # local dict -> {key: (key node, value node)}: a `type(...)` namespace
        self.narrowed = set()  # names and `x.attr` keys an isinstance test typed in this function
        # local name -> the paths assignments bound it to (each object itself); a nested function
        # starts with its parent's: `orig = engine.step` then `def paused(v): return orig(v)` read
        # `.step` at the assignment, where Python raises, not in the closure
        self.derived = {k: list(v) for k, v in (derived or {}).items()}
        self.key_guards = {}  # (local dict, key) -> the version tests around the statement that set it
        self.unpacks = {}  # id(call node) -> [names, starred]: `a, b = f(...)` takes f's result apart
        self.item_unpacks = {}  # id(call node) -> [names, starred]: `for a, b in f(...)` takes each item apart
        self.awaited = set()  # id(call node) of each `await f(...)`
        self.indexed = {}  # id(call node) -> [highest constant index read off its result, that read's line]
        self.unawaited = {}  # id(call node) -> [how, line]: its result used as a plain value (unawaited_results)
        self._sig_names = None  # names read off `inspect.signature(C)`, computed at the first `if` that may prune

    def _signature_names(self):
        if self._sig_names is None:
            self._sig_names = accepted_names_held(walk(self.node)) if self.node is not None else set()
        return self._sig_names

    def run(self):
        node = self.node
        gates = self._gates()
        self.mod.guards.extend(gates)
        self.mod.probed = set(self.probed_before)  # a nested function keeps its parent's feature tests
        self.mod.elements = {}  # local container -> (kind, path of what the function stores in it)
        try:
            if isinstance(node, _FUNCS):
                self._params(node)
                self.indexed = indexed_results(node)
                self.unawaited = unawaited_results(node)
            self.block(node.body, self.env)
        finally:
            del self.mod.guards[len(self.mod.guards) - len(gates):]
        return self.env

    def _gates(self):
        """The version gates of this function and of every function or class around it: code
        inside `@version_range(">=0.8,<0.9") def patch(...)` runs only on those versions."""
        if self.node is self.mod.tree:
            return []
        parts = self.qual.split(".")
        return [self.mod.deco_guards[q] for q in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                if q in self.mod.deco_guards]

    def _params(self, fn):
        args = fn.args.posonlyargs + fn.args.args
        decos = [(_dotted(d) or "").split(".")[-1] for d in fn.decorator_list]
        named = _decorator_target(fn) if self.cls is None else None
        owner = ("sym:" + named[0][0],) if named else None
        bound = owner if owner and self.mod.patchable(owner) and named[0][0].rsplit(".", 1)[-1][:1].isupper() else None
        hooked = self._import_hook_module(fn)
        declared = self.mod.declared_module(self.cls) if self.cls else None
        for i, a in enumerate(args + fn.args.kwonlyargs):
            self.env.pop(a.arg, None)
            if i == 0 and self.cls and "staticmethod" not in decos:
                if "classmethod" in decos:
                    self.env[a.arg] = ("sym:%s.%s" % (self.mod.module, self.cls),)
                else:
                    self.env[a.arg] = ("self:%s.%s" % (self.mod.module, self.cls),)
                    self.self_name = a.arg
                continue
            if i == 0 and bound:
                self.env[a.arg] = tuple(bound) + ("()",)
                self.self_name = a.arg
                continue
            if i == 0 and hooked:
                self.env[a.arg] = ("sym:" + hooked,)
                continue
            if declared and a.annotation is not None and (_dotted(a.annotation) or "").split(".")[-1] == "ModuleType":
                self.env[a.arg] = ("sym:" + declared,)  # the module the patch class names as its target
                continue
            p = self.mod.type_of_annotation(a.annotation, self.mod.names) if a.annotation is not None else None
            if i > 0 and self.cls and fn.name != "__init__" and self._may_override(decos):
                # a method of a class with a base: the target's declaration of the method it
                # overrides says what the target hands in this slot (typed in drift, per side);
                # drift falls back to the consumer's own annotation. A parameter that shadows a
                # module-level name (a patch class's `Cls` argument) keeps reading as that name.
                if p or a.arg not in self.mod.names:
                    ref = "%s.%s:%d:%s" % (self.mod.module, self.qual, i if i < len(args) else -1, a.arg)
                    self.env[a.arg] = ("over:" + ref,)
                    if p:
                        self.mod.over_annotations[ref] = list(p)
                    continue
            if p:
                self.env[a.arg] = p
            elif a.annotation is not None and not union_members(a.annotation) and not _says_any(a.annotation):
                if self._declared_container(a.arg, a.annotation):
                    continue
                # a container of nothing drift follows (`dict[str, torch.Tensor]`): what callers hand
                # it (a target object vLLM passed an override) is typed from the call sites, below
            # a union (`engine: A | B`) is typed from its members by the solver, as an unannotated one;
            # `x: Any` promises nothing, so its callers say what it holds, as for an unannotated one
            if self.cls is None or fn.name == "__init__" or ("staticmethod" in decos and not p):
                # typed later by drift from the call sites (or the patch) that pass it
                self.env[a.arg] = ("arg:%s.%s:%d:%s" % (self.mod.module, self.qual, i if i < len(args) else -1,
                                                        a.arg),)
        for extra in (fn.args.vararg, fn.args.kwarg):
            if extra is not None:
                self.env.pop(extra.arg, None)

    def _may_override(self, decos):
        """Whether this method may override a target method: its class names a base this probe
        keeps (the target's or the consumer's own), and it is no static method (whose slots start
        one place earlier). A class method's slots after `cls` are filled as an instance method's
        after `self` (`Platform.check_and_update_config(cls, vllm_config)`)."""
        if "staticmethod" in decos:
            return False
        rec = self.mod.classes.get(self.cls) or {}
        return any(b and self.mod.wanted(tuple(b)) for b in rec.get("bases") or [])

    def _decorator_patch(self, fn):
        """`@register_patch(target="vllm.x.Cls.forward")`: a patch framework's decorator that
        names, as a dotted string, the target attribute the decorated function is installed as.
        Recorded as a patch of that attribute (as `Cls.forward = fn` would be)."""
        owner_name = _decorator_target(fn)
        if owner_name is None:
            return
        (owner, name), node = owner_name
        path = ("sym:" + owner,)
        if not self.mod.patchable(path):
            return
        self.mod.patches.append({"line": node.lineno, "col": node.col_offset, "path": list(path), "name": name,
                                 "function": self.qual, "value": {"function": self.mod.quals.get(id(fn), fn.name),
                                                                  "line": fn.lineno, "signature": _signature(fn)},
                                 "how": "decorator", "guards": list(self.mod.guards)})

    def _import_hook_module(self, fn):
        """`@when_imported("vllm.x")` (wrapt and its kin): the hook is called with that module."""
        for d in fn.decorator_list:
            if isinstance(d, ast.Call) and len(d.args) == 1 and not d.keywords \
                    and (_dotted(d.func) or "").split(".")[-1] == "when_imported":
                return self.mod.target_module_named(d.args[0])
        return None

    # -- statements ----------------------------------------------------------------------------
    def block(self, body, env):
        pushed = 0
        for st in body:
            self.stmt(st, env)
            if type(st) is ast.Assert:  # `assert isinstance(x, C)`: the rest runs only where x is a C
                for test in (st.test.values if isinstance(st.test, ast.BoolOp) and isinstance(st.test.op, ast.And)
                             else [st.test]):
                    self._narrow(env, self._isinstance(test), exits=False)
            if isinstance(st, ast.If) and not st.orelse and st.body and isinstance(st.body[-1], (ast.Return, ast.Raise)):
                guard = version_guard(self._version_alias(st.test), self.mod.names, self.mod.flags)  # `if <version>: return`: the rest is the other branch
                if guard is not None:
                    self.mod.guards.append(dict(guard, negated=not guard.get("negated")))
                    pushed += 1
                else:  # `if not isinstance(x, C): raise`: the rest runs only where x is a C
                    self._narrow(env, self._isinstance(st.test), exits=True)
            elif isinstance(st, ast.If) and not st.orelse and st.body and isinstance(st.body[-1], (ast.Continue, ast.Break)):
                # in a loop, `if not isinstance(x, C): continue`: the rest of the body runs only where x is a C
                self._narrow(env, self._isinstance(st.test), exits=True)
        del self.mod.guards[len(self.mod.guards) - pushed:]

    def stmt(self, st, env):
        t = type(st)
        if t is ast.Assign:
            self._note_unpacking(st)
            vpath = self.expr(st.value, env)
            for tgt in st.targets:
                self.assign(tgt, st.value, vpath, env, st)
        elif t is ast.AnnAssign:
            vpath = self.expr(st.value, env) if st.value is not None else None
            ann = self.mod.type_of_annotation(st.annotation, env)
            if isinstance(st.target, ast.Name):
                self.mod.elements.pop(st.target.id, None)
                if ann or vpath:
                    env[st.target.id] = ann or vpath
                    if not ann:
                        self._derive(st.target.id, vpath)
                else:
                    env.pop(st.target.id, None)
                    self._declared_container(st.target.id, st.annotation)
            else:
                self.assign(st.target, st.value, ann or vpath, env, st)
        elif t is ast.AugAssign:
            self.expr(st.value, env)
            if isinstance(st.target, ast.Name):  # `x += [...]`: what x holds is no longer known
                self.lists.discard(st.target.id)
                self.empties.discard(st.target.id)
            self.expr(st.target, env, store="aug")  # `o.a += v` reads `a` first: it provides nothing
        elif t is ast.If:
            self.expr(st.test, env)
            self._soft_tested(st.test, env)
            self.mod.tests.append(st.test.lineno)  # uses in the body run only if the test did not raise
            try:
                self._if(st, env)
            finally:
                self.mod.tests.pop()
            for name in signature_pruned(st, self._signature_names()):
                self.dicts.pop(name, None)  # pruned to what the callee takes: its keys at `**d` are the callee's
        elif t in (ast.For, ast.AsyncFor):
            self._note_item_unpacking(st)
            self.expr(st.iter, env)
            self.expr(st.target, env, store=True)
            self._unbind(st.target, env)
            self._bind_iterated(st, env)
            keys = self._dict_loop(st)
            if keys:
                self.loop_keys[keys[0]] = keys[1]
                if isinstance(st.iter, ast.Name) and st.iter.id in self.mod.name_lists.get("?hasattr", ()):
                    self.loop_present.add(keys[0])
            self.block(st.body, env)
            if keys:
                self.loop_keys.pop(keys[0], None)
                self.loop_present.discard(keys[0])
            self.block(st.orelse, env)
        elif t is ast.While:
            self.expr(st.test, env)
            self.block(st.body, env)
            self.block(st.orelse, env)
        elif t in (ast.With, ast.AsyncWith):
            for item in st.items:
                vpath = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self._bind_entered(item.optional_vars, vpath, "[awith]" if t is ast.AsyncWith else "[with]", env)
            self.block(st.body, env)
        elif t is ast.Try or t.__name__ == "TryStar":
            before = dict(env)
            self.block(st.body, env)
            tried = {k: v for k, v in env.items() if before.get(k) is not v}
            after_body = dict(env)
            for h in st.handlers:
                if h.name:
                    env.pop(h.name, None)
                self.block(h.body, env)
                _keep_over_none(env, after_body, h.body)  # `except E: x = None`: x is the body's value or None
                if catches_import_error(h):  # `try: from new import X / except ImportError: from old import X`:
                    env.update(tried)  # the first choice names what the code is written against
            self.block(st.orelse, env)
            self.block(st.finalbody, env)
        elif t in _FUNCS:
            for d in st.decorator_list:
                self.expr(d, env)
            self._decorator_patch(st)
            env.pop(st.name, None)
            qual = self.mod.quals.get(id(st))
            if qual and self.node is not self.mod.tree:  # a nested helper: calls to it are consumer calls
                env[st.name] = ("sym:%s.%s" % (self.mod.module, qual),)
        elif t is ast.ClassDef:
            for d in st.decorator_list:  # `@Registry.register({Layer: "name"})`: what it reads and holds
                self.expr(d, env)
            env.pop(st.name, None)
            qual = self.mod.class_quals.get(id(st))
            if qual and self.node is not self.mod.tree:  # a class made inside a function: its bases are
                self.mod.class_record(st, qual, env)  # often names bound there (`B = getattr(mod, "B")`)
        elif t in (ast.Import, ast.ImportFrom):
            for a in st.names:
                local = a.asname or a.name.split(".")[0]
                env.pop(local, None)
                if local in self.mod.names:
                    env[local] = self.mod.names[local]
        elif t is ast.Return:
            vpath = self.expr(st.value, env) if st.value is not None else None
            if vpath and self.mod.wanted(vpath) and isinstance(self.node, _FUNCS):
                self.mod.returns.setdefault(self.qual, list(vpath[:MAX_PATH]))  # what a factory hands back
        elif t is ast.Assert:
            self.expr(st.test, env)
            self._on_failure((st.msg,), env)
        elif t is ast.Raise:
            self._on_failure((st.exc, st.cause), env)
        elif t in (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue):
            pass
        elif t.__name__ == "Match":
            self._match(st, env)
        else:
            for child in ast.iter_child_nodes(st):
                if isinstance(child, ast.expr):
                    self.expr(child, env)
                elif isinstance(child, ast.stmt):
                    self.stmt(child, env)
                elif hasattr(child, "body") and isinstance(getattr(child, "body"), list):  # match cases
                    self.block(child.body, env)

    def _match(self, st, env):
        """`match x:` / `case C(...):` -- in that case's body x is a C, as after `isinstance(x, C)`;
        other cases run in the function's env as before (3.10+ syntax, read by name on 3.9)."""
        self.expr(st.subject, env)
        for case in st.cases:
            pattern = case.pattern
            narrowed = None
            if type(pattern).__name__ == "MatchClass":
                test = ast.Call(func=ast.Name(id="isinstance", ctx=ast.Load()), args=[st.subject, pattern.cls],
                                keywords=[])
                narrowed = self._isinstance(test)
            inner = dict(env) if narrowed else env
            if narrowed:
                self._narrow(inner, narrowed, exits=False)
            if case.guard is not None:
                self.expr(case.guard, inner)
            self.block(case.body, inner)

    def _version_alias(self, test):
        """`test` with a local name (or `self` attribute) bound once to a version test read as that
        expression (`alias_test`)."""
        aliases = self.__dict__.get("_aliases")
        if aliases is None:
            aliases = self._aliases = _version_aliases(self.node, self.mod.names, self.mod.flags)
        attrs = {}
        if self.self_name and self.cls in self.mod.class_nodes:
            memo = self.mod.__dict__.setdefault("_attr_aliases", {})
            if self.cls not in memo:
                memo[self.cls] = _self_version_aliases(self.mod.class_nodes[self.cls], self.mod.names, self.mod.flags)
            attrs = memo[self.cls]
        return alias_test(test, aliases, attrs, self.self_name, self.mod.names, self.mod.flags)

    def _if(self, st, env):
        self.mod.tested.update(_truth_tested(st.test, True))
        test = self._version_alias(st.test)
        guard = version_guard(test, self.mod.names, self.mod.flags)
        if guard is not None:
            yes, no = dict(env), dict(env)
            self.mod.guards.append(guard)
            self.block(st.body, yes)
            self.mod.guards[-1] = dict(guard, negated=not guard.get("negated"))
            self.block(st.orelse, no)
            self.mod.guards.pop()
            self._merge(env, yes, no)
            return
        yes, no = dict(env), dict(env)
        narrowed = self._isinstance(st.test)
        if narrowed:
            name, path, negated, alts = narrowed
            self._narrow(no if negated else yes, (name, path, False, alts), exits=False)
            (yes if negated else no).pop(name, None) if path == env.get(name) else None
        elif isinstance(st.test, ast.BoolOp) and isinstance(st.test.op, ast.And):
            for part in st.test.values:  # `if isinstance(x, C) and ...:` the body runs where x is a C
                got = self._isinstance(part)
                if got and not got[2]:
                    self._narrow(yes, got, exits=False)
        body_guards, else_guards = compound_guards(test, self.mod.names, self.mod.flags)
        self.mod.guards.extend(body_guards)
        try:
            self.block(st.body, yes)
        finally:
            del self.mod.guards[len(self.mod.guards) - len(body_guards):]
        self.mod.guards.extend(else_guards)
        try:
            self.block(st.orelse, no)
        finally:
            del self.mod.guards[len(self.mod.guards) - len(else_guards):]
        _keep_over_none(yes, no, st.body)  # `if c: x = None else: x = make()`: x is a made one or None
        _keep_over_none(no, yes, st.orelse)
        if _leaves(st.body) and not _leaves(st.orelse):  # `if isinstance(x, C): continue`: what
            yes = no  # follows runs only after the other branch, whatever the exiting one bound
        elif _leaves(st.orelse) and not _leaves(st.body):
            no = yes
        self._merge(env, yes, no)

    def _dict_loop(self, st):
        """`for k, v in d.items():` (or `for k in d:`) over a dict built here: (k, its keys)."""
        it, tgt = st.iter, st.target
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items":
            it = it.func.value
            tgt = tgt.elts[0] if isinstance(tgt, ast.Tuple) and len(tgt.elts) == 2 else None
        if isinstance(it, ast.Name) and it.id in self.dicts and isinstance(tgt, ast.Name):
            return tgt.id, self.dicts[it.id]
        names = _string_items(it if not isinstance(it, ast.Name) else self.mod.name_lists.get(it.id))
        if names and isinstance(st.target, ast.Name):  # `for name in ("forward", "load"):` names applied by setattr
            return st.target.id, names
        return None

    def _merge(self, env, yes, no):
        for name in set(yes) | set(no):
            a, b = yes.get(name), no.get(name)
            if a is not None and a == b:
                env[name] = a
            elif a is not None and b is not None and a != env.get(name) and b != env.get(name) \
                    and self.mod.wanted(a) and self.mod.wanted(b):  # both branches bound it, differently
                env[name] = a  # one of two classes (`cls = A` / `cls = B`): uses are checked on both
                self.alternatives[name] = [b]
            elif name in env and (a != env[name] or b != env[name]):
                env.pop(name, None)
            elif name not in env and (a or b) and a != b:
                env.pop(name, None)

    def _isinstance(self, test):
        """`isinstance(x, C)` (or `self.x`, or a tuple of classes) -> (key, path of a C, negated,
        paths of the tuple's other target classes); None unless some class is the target's. A
        class of the tuple that is not the target's (`(ErrorResponse, str)`) is left out: where x
        is one of those, a read of the target class's attribute was never what the branch meant."""
        negated = False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            negated, test = True, test.operand
        exact = _type_test(test)  # `type(x) is C` / `type(x) == C` narrows as isinstance does
        if exact is not None:
            test, negated = exact[0], negated != exact[1]
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2):
            return None
        subject = test.args[0]
        if isinstance(subject, ast.Name):
            key = subject.id
        elif isinstance(subject, ast.Attribute) and isinstance(subject.value, ast.Name):
            key = subject.value.id + "." + subject.attr
        else:
            return None
        paths = []
        for elt in _class_elements(test.args[1]):
            cls = _Chain(self.mod, self.env).of(elt)
            if cls and self.mod.wanted(cls):
                paths.append(cls + ("()",))
        if not paths:
            return None
        return key, paths[0], negated, paths[1:]

    def _narrow(self, env, narrowed, *, exits):
        """Type `key` as the isinstance test's class for the statements that follow (`exits`: the
        test guarded an early exit, so what follows runs where it was false)."""
        if not narrowed:
            return
        key, path, negated, alts = narrowed
        if negated != exits:  # `assert not isinstance(x, C)` / `if isinstance(x, C): return`
            if env.get(key) == path and not alts:
                env.pop(key, None)
            return
        env[key] = path
        self.narrowed.add(key)
        if alts:
            self.alternatives[key] = list(alts)
        else:
            self.alternatives.pop(key, None)

    def _soft_tested(self, test, env):
        """`if getattr(obj, "x", None) is not None:` (or `if getattr(obj, "x", None):`, alone or in
        an `and`/`or`, negated, or inside `callable(...)`, the early-exit form `if x is None or not
        callable(getattr(x, "m", None)): return`): the consumer asked whether `obj.x` is there
        before reading it, as `hasattr` does, so later reads of `obj.x` in the function (and in
        functions nested in it) are guarded by it."""
        parts = test.values if type(test) is ast.BoolOp else [test]
        for part in parts:
            if type(part) is ast.UnaryOp and type(part.op) is ast.Not:
                part = part.operand  # `if x is None or not getattr(x, "m", None): return` asks the same
            if type(part) is ast.Call and type(part.func) is ast.Name and part.func.id == "callable" \
                    and len(part.args) == 1:
                part = part.args[0]  # `callable(getattr(x, "m", None))`
            if type(part) is ast.Compare and len(part.ops) == 1 and type(part.ops[0]) in (ast.IsNot, ast.Is) \
                    and type(part.comparators[0]) is ast.Constant and part.comparators[0].value is None:
                part = part.left
            if not (type(part) is ast.Call and type(part.func) is ast.Name and part.func.id == "getattr"
                    and len(part.args) == 3 and not part.keywords):
                continue
            name = part.args[1]
            if not (type(name) is ast.Constant and isinstance(name.value, str) and name.value.isidentifier()):
                continue
            owner = _Chain(self.mod, env, self.cls).of(part.args[0])
            if owner and self.mod.wanted(owner):
                self.mod.probed.add((tuple(owner), "." + name.value))

    def _bind_entered(self, target, vpath, step, env):
        """`with <path> as x:` -- x is what entering the path gives (`[with]`, `[awith]` for
        `async with`): what the object's `__enter__`/`__aenter__` returns, or the element an
        `@contextmanager`/`@asynccontextmanager` function's declared iterator yields. drift types
        the step from the target's declarations; anything else binds nothing."""
        if type(target) is ast.Name and vpath and len(vpath) + 1 < MAX_PATH:
            path = tuple(vpath) + (step,)
            if self.mod.wanted(path):
                env[target.id] = path
                self._derive(target.id, path)
                return
        self._unbind(target, env)

    def _bind_iterated(self, st, env):
        """`for x in <path>:` -- x is what iterating the path yields (`[*]`: an element of a
        sequence, a key of a mapping); `for v in d.values()` and `for k, v in d.items()` -- v is
        a value of the mapping (`[]`); `for a, b in <path>` and `for i, x in enumerate(<path>)` --
        each name is its position in the element (`[0]`, `[1]`). drift types these steps from the
        container annotations the target declares; a loop over anything else binds nothing."""
        it, tgt = st.iter, st.target
        chain = _Chain(self.mod, env, self.cls)
        names = [tgt] if type(tgt) is ast.Name else list(tgt.elts) if type(tgt) is ast.Tuple else []
        if not names or not all(type(n) is ast.Name for n in names):
            return
        method = it.func.attr if type(it) is ast.Call and type(it.func) is ast.Attribute and not it.args \
            and not it.keywords else None
        if method in ("values", "items"):
            base = chain.of(it.func.value)
            element = chain.stored(it.func.value, "dict") or (tuple(base) + ("[]",) if base else None)
            if method == "items":  # (key, value): only the value is typed
                names, element = (names[1:], element) if len(names) == 2 else ([], None)
            elif len(names) != 1:
                return
            positions = [None]
        elif type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "enumerate" and len(it.args) == 1 \
                and len(names) == 2:
            base = chain.of(it.args[0])
            element = chain.stored(it.args[0], "list") or (tuple(base) + ("[*]",) if base else None)
            names, positions = names[1:], [None]
        else:
            base = chain.of(it)
            stored = chain.stored(it, "list")
            element = stored or (tuple(base) + ("[*]",) if base else None)
            positions = [None] if len(names) == 1 else list(range(len(names)))
            if not stored and element is not None and self.mod.wanted(element) and len(element) < MAX_PATH \
                    and base[-1] == "()":  # `for b in manager.allocate_slots(...)`: the loop iterates what it returns
                bound = self._bound(it, env, base)  # `out = m.step()` first: its steps were read there
                self.mod.use("iter", element, it.lineno, it.col_offset, self.qual, **({"bound": bound} if bound else {}))
        if element is None or not self.mod.wanted(element) or len(element) >= MAX_PATH:
            return
        for name, pos in zip(names, positions * len(names) if positions == [None] else positions):
            path = element if pos is None else element + ("[%d]" % pos,)
            env[name.id] = path
            self._derive(name.id, path)  # a missing name in the iterable fails at the loop, not at each use

    def _on_failure(self, nodes, env):
        """An assert's message and a raised exception are evaluated only on a path that fails
        anyway: a name missing there changes which exception is raised, not whether."""
        self.mod.failing += 1
        try:
            for node in nodes:
                if node is not None:
                    self.expr(node, env)
        finally:
            self.mod.failing -= 1

    def _filtered(self, node, env):
        """`[t for t in c if ...]` (a list, set or generator of c's own elements, some left out):
        the same kind of container as c, as a slice `c[a:b]` is (`[:]`), so `kept[0].x` and
        `for t in kept: t.x` are typed as c's elements are. None for any other comprehension."""
        if type(node) is ast.DictComp or len(node.generators) != 1:
            return None
        gen = node.generators[0]
        if gen.is_async or type(gen.target) is not ast.Name or type(node.elt) is not ast.Name \
                or node.elt.id != gen.target.id:
            return None
        it = gen.iter
        if type(it) is ast.Call:  # `.items()`, `enumerate(...)`: the elements are not c's own
            return None
        base = _Chain(self.mod, env, self.cls).of(it)
        if not base or not self.mod.wanted(base) or len(base) >= MAX_PATH:
            return None
        return tuple(base) + ("[:]",)

    def _unbind(self, target, env):
        for n in walk(target):
            if isinstance(n, ast.Name):
                self.mod.elements.pop(n.id, None)
                env.pop(n.id, None)
                self.dicts.pop(n.id, None)
                self.lists.discard(n.id)
                self.empties.discard(n.id)
                self.any_lists.discard(n.id)

    def assign(self, tgt, value, vpath, env, st):
        t = type(tgt)
        if t is ast.Name:
            self.dicts.pop(tgt.id, None)
            if self.key_guards:
                self.key_guards = {k: g for k, g in self.key_guards.items() if k[0] != tgt.id}
            self._bind_shape(tgt.id, value)
            self.alternatives.pop(tgt.id, None)
            if self.narrowed:  # `x = ...` rebinds x: what `x.attr` was narrowed to no longer holds
                for key in [k for k in self.narrowed if k.startswith(tgt.id + ".")]:
                    env.pop(key, None)
            if vpath is None and isinstance(value, ast.IfExp):  # `A if c else B`
                chain = _Chain(self.mod, env, self.cls)
                a, b = chain.of(value.body), chain.of(value.orelse)
                if a and b and a != b and self.mod.wanted(a) and self.mod.wanted(b):
                    vpath, self.alternatives[tgt.id] = a, [b]
            if vpath:
                env[tgt.id] = vpath
                self._derive(tgt.id, vpath)
            else:
                env.pop(tgt.id, None)
            keys = self._dict_keys(value, env)
            if keys is not None:
                self.dicts[tgt.id] = keys
            self._note_container(tgt.id, value)
            self._type_class(tgt.id, value, env)  # `W = type("W", (Base,), {...})`: a class
        elif t is ast.Attribute:
            if type(tgt.value) is ast.Name:  # `self.x = ...`: an earlier isinstance narrowing is over
                env.pop(tgt.value.id + "." + tgt.attr, None)
            owner = _Chain(self.mod, env, self.cls).of(tgt.value)
            if owner and owner[0].startswith("self:") and len(owner) == 1 and self.cls:
                rec = self.mod.classes.get(self.cls)
                if rec is not None:
                    cur = rec["self_attrs"].get(tgt.attr)
                    path = list(vpath) if vpath and self.mod.wanted(vpath) else None
                    if cur is None or (cur["path"] is None and path):
                        rec["self_attrs"][tgt.attr] = {"line": st.lineno, "path": path}
            elif owner and len(owner) == 1 and self._own_class(owner[0]) is not None:
                # `cls._config = vllm_config` in a classmethod (or `Mine.x = ...`): class state that
                # `cls.x` and `self.x` read later, typed by the value stored
                self.expr(tgt.value, env)
                rec = self._own_class(owner[0])
                cur = rec["class_attrs"].get(tgt.attr)
                path = list(vpath) if vpath and self.mod.wanted(vpath) else None
                if cur is None or (cur["path"] is None and path):
                    rec["class_attrs"][tgt.attr] = {"line": st.lineno, "path": path}
                line, col = _attr_pos(tgt)
                self.mod.use("attr_set", owner + ("." + tgt.attr,), line, col, self.qual)
            elif owner and self._instance_patch(tgt.value, owner, tgt.attr, value, env, _attr_pos(tgt)):
                self.expr(tgt.value, env)
            elif owner and self._function_on_instance(owner, tgt.attr, value, env, _attr_pos(tgt)):
                self.expr(tgt.value, env)
            elif owner and self.mod.patchable(owner):
                line, col = _attr_pos(tgt)
                for chosen in self._patch_values(value, env):
                    self.mod.patches.append({"line": line, "col": col, "path": list(owner), "name": tgt.attr,
                                             "function": self.qual, "value": chosen,
                                             "guards": list(self.mod.guards)})
            else:
                self.expr(tgt.value, env)
                if owner and self.mod.wanted(owner):
                    line, col = _attr_pos(tgt)
                    kind = _stored_kind(value)  # one object built, or a container: DRIFT061 holds it to the target's
                    self.mod.use("attr_set", owner + ("." + tgt.attr,), line, col, self.qual,
                                 **({"stored": kind} if kind else {}))
        elif t is ast.Subscript:
            self.expr(tgt, env, store=True)
            if isinstance(tgt.value, ast.Name):
                self._store_element(tgt.value.id, vpath)
            if isinstance(tgt.value, ast.Name):  # `x[i] = v`: x's elements are no longer known
                self.lists.discard(tgt.value.id)
                self.empties.discard(tgt.value.id)
            if isinstance(tgt.value, ast.Name) and tgt.value.id in self.dicts \
                    and isinstance(tgt.slice, ast.Constant) and isinstance(tgt.slice.value, str):
                self.dicts[tgt.value.id][tgt.slice.value] = [tgt.slice.lineno, tgt.slice.col_offset]
                if self.mod.guards:  # `if version_is("1.0"): d["k"] = v`: the key is there on 1.0 only
                    self.key_guards[(tgt.value.id, tgt.slice.value)] = list(self.mod.guards)
                else:
                    self.key_guards.pop((tgt.value.id, tgt.slice.value), None)
            if isinstance(tgt.value, ast.Name) and tgt.value.id in self.namespaces \
                    and isinstance(tgt.slice, ast.Constant) and isinstance(tgt.slice.value, str):
                self.namespaces[tgt.value.id][tgt.slice.value] = (tgt.slice, value)
        elif t in (ast.Tuple, ast.List):
            for e in tgt.elts:
                self.assign(e, None, None, env, st)
        elif t is ast.Starred:
            self.assign(tgt.value, None, None, env, st)

    def _derive(self, name, path):
        """Remember that `name` holds the value of an expression read where it was assigned:
        a missing attribute in that expression fails there, not at each later use of `name`."""
        self.derived.setdefault(name, []).append(path)

    def _bound(self, node, env, path):
        """How many leading steps of `path` (the path of `node`) are a local's value, read at
        the assignment that bound it (`x = self.gone(...)` then `x.foo()`: `.gone` is not read
        here); 0 when the expression starts from no such local."""
        while True:
            t = type(node)
            if t is ast.Attribute:
                if type(node.value) is ast.Name and node.value.id + "." + node.attr in env:
                    return 0  # `self.x` narrowed by isinstance here: no assignment read it
                node = node.value
            elif t is ast.Call:
                func = node.func
                if type(func) is ast.Name and func.id == "getattr" and len(node.args) == 2:
                    node = node.args[0]
                elif type(func) is ast.Name and func.id in ("super", "cast"):
                    return 0
                else:
                    node = func
            elif t in (ast.Subscript, ast.NamedExpr, ast.Await):
                node = node.value
            elif t is ast.Name:
                cur = env.get(node.id)
                if cur is None or len(cur) < 2 or not path or tuple(path[:len(cur)]) != tuple(cur):
                    return 0
                bound = self.derived.get(node.id, []) + self.mod.derived.get(node.id, [])
                return len(cur) if any(p is cur for p in bound) else 0
            else:
                return 0

    def _own_class(self, root):
        """The record of a class this module defines, for a `sym:` root naming it (else None)."""
        prefix = "sym:%s." % self.mod.module
        return self.mod.classes.get(root[len(prefix):]) if root.startswith(prefix) else None

    def _patch_values(self, value, env):
        """What an installation may bind, one record value per candidate (probes/joins.py): each
        arm of `fa if new else fb`, each value of a local set per branch; the installed value itself
        (possibly unknown, None) when no candidate is known."""
        if value is None:
            return [None]
        out = []
        for node in candidates(value, self.node):
            got = self._patch_value(node, env)
            if got is not None and got not in out:
                out.append(got)
        return out or [self._patch_value(value, env)]

    def _patch_value(self, value, env):
        if value is None:
            return None
        if isinstance(value, ast.Name) and value.id in self.mod.defs:
            fn = self._def_named(value) or self.mod.defs[value.id]  # the helper nested here, if any
            return {"function": self.mod.quals.get(id(fn), value.id), "line": fn.lineno, "signature": _signature(fn)}
        if isinstance(value, ast.Lambda):
            return {"function": "<lambda>", "line": value.lineno}
        p = _Chain(self.mod, env).of(value)
        return {"path": list(p)} if p and self.mod.wanted(p) else None

    def _dict_keys(self, value, env):
        """Keys of a dict built here: `{"k": v}` or `dict(k=v)` (None when not a dict literal)."""
        if isinstance(value, ast.Dict):
            keys = {}
            for k in value.keys:
                if k is None:
                    return None  # {**other}: the keys are not all known
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    keys[k.value] = [k.lineno, k.col_offset]
            return keys
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
                and not value.args:
            return {k.arg: [k.value.lineno, max(k.value.col_offset - len(k.arg) - 1, 0)]
                    for k in value.keywords if k.arg}
        return None

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, node, env, store=False):
        """Record the uses in `node`; return its path (None when untyped)."""
        if node is None:
            return None
        chain = _Chain(self.mod, env, self.cls)
        t = type(node)
        if t is ast.Compare or t is ast.BoolOp or t is ast.IfExp or t is ast.UnaryOp:
            self.mod.tested.update(_truth_tested(node))
        if t is ast.BinOp:
            self.mod.arith.update(_arithmetic_operands(node))
        if t in (ast.Attribute, ast.Call, ast.Subscript, ast.Name, ast.NamedExpr, ast.Await):
            path = chain.of(node)
            self._record_chain(node, env, chain, top=True, store=store)
            if t is ast.NamedExpr and isinstance(node.target, ast.Name):
                if path:
                    env[node.target.id] = path
                    self._derive(node.target.id, path)
                else:
                    env.pop(node.target.id, None)
            return path
        if t in (ast.Lambda,):
            return None
        if t is ast.IfExp or t is ast.BoolOp:
            return self._guarded_expr(node, env)
        if t is ast.Dict or t is ast.Compare:
            self._held_types(node, chain)
        if t is ast.Compare:
            self.mod.compared.update(string_tests(node))
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            inner = dict(env)
            for gen in node.generators:
                self._note_item_unpacking(gen)
                self.expr(gen.iter, inner)
                self._unbind(gen.target, inner)
                self._bind_iterated(gen, inner)  # `[t for t in c if t.x]`: t is an element of c, as in a loop
                for cond in gen.ifs:
                    self.expr(cond, inner)
            for child in ("elt", "key", "value"):
                if hasattr(node, child):
                    self.expr(getattr(node, child), inner)
            return self._filtered(node, env)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, env)
            elif isinstance(child, ast.keyword):
                self.expr(child.value, env)
            elif isinstance(child, ast.comprehension):
                self.expr(child.iter, env)
        return None

    def _expr_narrowed(self, node, env, tests, negated):
        """Walk `node`, which runs only where each of `tests` came out true (`negated`: false):
        `isinstance(x, C) and x.a`, `x.a if isinstance(x, C) else d`, `not isinstance(x, C) or
        x.a` -- x is a C in it. The narrowing stays inside `node`: env and the function's tables
        are as before once it is walked."""
        narrowed = [n for n in (self._isinstance(t) for t in tests) if n]
        if not narrowed:
            self.expr(node, env)
            return
        inner = dict(env)
        saved = {n[0]: (n[0] in self.narrowed, self.alternatives.get(n[0])) for n in narrowed}
        for key, path, neg, alts in narrowed:
            self._narrow(inner, (key, path, neg != negated, alts), exits=False)
        try:
            self.expr(node, inner)
        finally:
            for key, (was, alts) in saved.items():
                if not was:
                    self.narrowed.discard(key)
                if alts is None:
                    self.alternatives.pop(key, None)
                else:
                    self.alternatives[key] = alts

    def _version_picked_keys(self, node, env, kw_guards):
        """The keys of `**(A if <version test> else B)` with A and B dict displays (or `dict(...)`):
        each arm's keys, guarded by the test as the arm runs (into `kw_guards`). None (keys unknown)
        when the test is not a version test or an arm is not a dict drift can read."""
        guard = version_guard(node.test, self.mod.names, self.mod.flags)
        if guard is None or not all(isinstance(a, (ast.Dict, ast.Call)) for a in (node.body, node.orelse)):
            return None
        keys = {}
        for part, negated in ((node.body, False), (node.orelse, True)):
            got = self._dict_keys(part, env)
            if got is None:
                return None
            arm = dict(guard, negated=not guard.get("negated")) if negated else guard
            for name, pos in got.items():
                if name in keys:  # in both arms: passed on every version
                    kw_guards.pop(name, None)
                    continue
                keys[name] = pos
                kw_guards[name] = list(self.mod.guards) + [arm]
        return keys

    def _guarded_expr(self, node, env):
        """`a if <version test> else b`, `<version test> and a`, `<version test> or a`: each
        operand runs only on the versions its test lets through, as in an `if` statement."""
        if type(node) is ast.IfExp:
            self.expr(node.test, env)
            guard = version_guard(node.test, self.mod.names, self.mod.flags)
            self.mod.tests.append(node.test.lineno)  # either branch runs only if the test did not raise
            try:
                for part, negated in ((node.body, False), (node.orelse, True)):
                    if guard is not None:
                        self.mod.guards.append(dict(guard, negated=not guard.get("negated")) if negated else guard)
                    try:
                        self._expr_narrowed(part, env, [node.test], negated)
                    finally:
                        if guard is not None:
                            self.mod.guards.pop()
            finally:
                self.mod.tests.pop()
            return None
        pushed = 0  # a BoolOp: each value runs only when the ones before it let evaluation go on
        try:
            for i, value in enumerate(node.values):
                self._expr_narrowed(value, env, node.values[:i], isinstance(node.op, ast.Or))
                guard = version_guard(value, self.mod.names, self.mod.flags)
                if guard is not None:
                    if isinstance(node.op, ast.Or):  # `t or x`: x runs only where t is false
                        guard = dict(guard, negated=not guard.get("negated"))
                    self.mod.guards.append(guard)
                    pushed += 1
        finally:
            del self.mod.guards[len(self.mod.guards) - pushed:]
        return None

    def _record_chain(self, node, env, chain, *, top, store=False, subscript=None):
        """Walk a chain `a.b(x).c[y]`: one call record per call, one attribute use for the
        outermost attribute, then the sub-expressions (arguments, slices) in their own right.
        `subscript`: the outermost attribute is indexed (`x.c[y]`), "get", "set" or "del" by the
        subscript's context: the use says so, for a value that can no longer be indexed."""
        t = type(node)
        if t is ast.Attribute:
            if top:
                base = chain.of(node.value)
                if base and self.mod.wanted(base):
                    line, col = _attr_pos(node)
                    bound = self._bound(node.value, env, base)
                    extra = {"bound": bound} if bound else {}
                    if subscript and not store:
                        extra["subscript"] = subscript
                    if store == "aug":
                        extra["aug"] = True
                    if not store and id(node) in self.mod.tested:
                        extra["tested"] = True
                    if not store and id(node) in self.mod.arith:
                        extra["arith"] = self.mod.arith.pop(id(node))
                    if not store and id(node) in self.mod.compared:
                        extra["vs_str"], negated = self.mod.compared.pop(id(node))
                        if negated:
                            extra["vs_negated"] = True
                    self.mod.use("attr_set" if store else "attr", base + ("." + node.attr,), line, col, self.qual,
                                 **extra)
            self._record_chain(node.value, env, chain, top=False)
        elif t is ast.Call:
            self._call(node, env, chain)
            func = node.func
            if type(func) is ast.Attribute:
                self._record_chain(func.value, env, chain, top=False)
            elif type(func) is not ast.Name:
                self._record_chain(func, env, chain, top=False)
            for a in node.args:
                self.expr(a.value if type(a) is ast.Starred else a, env)
            for k in node.keywords:
                self.expr(k.value, env)
        elif t is ast.Subscript:
            how = _SUBSCRIPT_HOW.get(type(node.ctx)) if top else None
            self._record_chain(node.value, env, chain, top=True, subscript=how)
            self.expr(node.slice, env)
        elif t in (ast.NamedExpr, ast.Await):
            if t is ast.Await and type(node.value) is ast.Call:
                self.awaited.add(id(node.value))  # `await f(...)`: f must still return an awaitable
            self.expr(node.value, env)
        elif t is ast.Name:
            if top and subscript and not store:  # `pos["offset"]` where pos holds a typed path: the
                held = chain.of(node)  # one record DRIFT061 needs, for a value that no longer indexes
                if held and self.mod.wanted(held) and len(held) < MAX_PATH:
                    self.mod.use("item", tuple(held), node.lineno, node.col_offset, self.qual, subscript=subscript)
            return
        else:
            self.expr(node, env)

    def _note_unpacking(self, st):
        found = unpacking(st)
        if found:
            self.unpacks[id(found[0])] = found[1]

    def _note_item_unpacking(self, loop):
        found = item_unpacking(loop)
        if found:
            self.item_unpacks[id(found[0])] = found[1]

    def _call(self, node, env, chain):
        self.env_of_call = env
        key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        if key in self.seen_calls:
            return
        self.seen_calls.add(key)
        func = node.func
        inner = inner_call(node, chain.of(func))  # `asyncio.to_thread(f, x, k=v)` calls f(x, k=v)
        if inner is not None:
            self._call(inner, env, chain)
        fname = func.id if type(func) is ast.Name else None
        if fname == "setattr" and len(node.args) == 3:
            self._setattr(node, env, chain)
            return
        self._appended(node)
        if fname in ("isinstance", "issubclass") and len(node.args) == 2 and fname not in env:
            self._type_args(node, fname, chain)
        if fname in ("getattr", "hasattr") and len(node.args) in (2, 3) and not node.keywords:
            self._getattr(node, fname, chain)
            return
        installed = patch_installation(node, chain.of, self._strings())
        if installed is not None:  # `patch("pkg.Cls.m", fn)`, `patch.object(Cls, "m", fn)`: `Cls.m = fn`
            self._installation(node, installed, env)
        callee = chain.of(func)
        if not callee or not self.mod.wanted(callee):
            return
        if type(func) is ast.Attribute:
            line, col = _attr_pos(func)
        else:
            line, col = func.lineno, func.col_offset
        keywords, kw_cols, via_dict, kw_guards = [], {}, [], {}
        star_kwargs = False
        for k in node.keywords:
            if k.arg:
                keywords.append(k.arg)
                kw_cols[k.arg] = [k.lineno if hasattr(k, "lineno") else node.lineno,
                                  k.col_offset if hasattr(k, "col_offset") else node.col_offset]
            else:
                keys = None
                if isinstance(k.value, ast.Name):
                    keys = self.dicts.get(k.value.id)
                    kw_guards.update({key: self.key_guards[(k.value.id, key)] for key in keys or ()
                                      if (k.value.id, key) in self.key_guards})
                elif isinstance(k.value, (ast.Dict, ast.Call)):
                    keys = self._dict_keys(k.value, env)
                elif isinstance(k.value, ast.IfExp):  # `**({} if vllm_version_is("0.28") else {"kw": v})`
                    keys = self._version_picked_keys(k.value, env, kw_guards)
                elif isinstance(k.value, ast.Attribute) and isinstance(k.value.value, ast.Name) \
                        and k.value.value.id == self.self_name and self.cls:
                    # `**self.model_args`: the keys the class writes into it are passed, and maybe others
                    for name, pos in self.mod.attr_dicts(self.cls).get(k.value.attr, {}).items():
                        if name not in kw_cols:
                            keywords.append(name)
                            kw_cols[name] = pos
                            via_dict.append(name)
                if keys is None:
                    star_kwargs = True
                else:
                    for name, pos in keys.items():
                        if name not in kw_cols:
                            keywords.append(name)
                            kw_cols[name] = pos
                            via_dict.append(name)
        args = kwargs = None
        if callee[0].startswith("sym:") and not self.mod.is_target(callee):  # a consumer helper or class
            args = [self._arg(a, chain) for a in node.args]
            kwargs = {k.arg: self._arg(k.value, chain) for k in node.keywords if k.arg}
        self.mod.calls.append({
            "line": line, "col": col, "end_line": node.end_lineno, "function": self.qual,
            "call_line": node.lineno,
            "callee": {"path": list(callee[:MAX_PATH])}, "callee_src": _src(self.mod.lines, func),
            "positional": sum(1 for a in node.args if type(a) is not ast.Starred),
            "star_args": any(type(a) is ast.Starred for a in node.args),
            "keywords": keywords, "star_kwargs": star_kwargs, "kw_cols": kw_cols, "via_dict": via_dict,
            "kw_values": {k.arg: _src(self.mod.lines, k.value) for k in node.keywords if k.arg},
            "result": None, "args": args, "kwargs": kwargs,
        })
        names = [a.id if type(a) is ast.Name else None for a in node.args]
        if any(names):  # which local each positional argument hands on (an object built earlier in the function)
            self.mod.calls[-1]["arg_names"] = names
        bound = self._bound(func, env, callee)
        if bound:
            self.mod.calls[-1]["bound"] = bound
        if id(node) in self.unpacks:
            self.mod.calls[-1]["unpacked"] = self.unpacks[id(node)]
        if id(node) in self.item_unpacks:
            self.mod.calls[-1]["unpacked_items"] = self.item_unpacks[id(node)]
        if id(node) in self.awaited:
            self.mod.calls[-1]["awaited"] = True
        if id(node) in self.indexed:
            self.mod.calls[-1]["indexed"] = self.indexed[id(node)]
        if id(node) in self.unawaited and id(node) not in self.awaited:
            self.mod.calls[-1]["unawaited"] = self.unawaited[id(node)]
        if self.mod.failing:
            self.mod.calls[-1]["on_failure"] = True
        kw_guards = {k: g for k, g in kw_guards.items() if k in via_dict}
        if kw_guards:
            self.mod.calls[-1]["kw_guards"] = kw_guards
        if self.mod.calls[-1]["star_args"] or self.mod.calls[-1]["star_kwargs"]:
            fwd = star_forwarding(self.node, node)  # `super().__init__(*args, **kwargs)`: the callers' arguments
            if fwd:
                self.mod.calls[-1]["forwards"] = fwd
        if self.mod.is_target(callee):  # consumer classes handed to the target (`register_model(a, Mine)`)
            handed = [r for r in (class_refs(a, chain, self.mod.own, self.mod.prefix_tops) for a in
                                  list(node.args) + [k.value for k in node.keywords]) if r]
            if handed:
                self.mod.calls[-1]["class_args"] = handed
        shapes = self._shapes(node)
        if shapes:
            self.mod.calls[-1].update(shapes)
        lits = literal_args(node)  # None and other constants passed positionally (probes/derefs.py)
        if lits:
            self.mod.calls[-1]["arg_lits"] = lits
            if node.args and type(node.args[0]) is ast.Constant and type(node.args[0].value) is str \
                    and node.args[0].value.isidentifier() and len(node.args[0].value) <= 64:
                self.mod.calls[-1]["name_arg"] = node.args[0].value  # `rpc("update_weights")`: a method by name
                if node.args[0].lineno != node.lineno:  # the name on its own line of a long call
                    self.mod.calls[-1]["name_line"] = node.args[0].lineno
        if self.mod.guards:
            self.mod.calls[-1]["guards"] = list(self.mod.guards)
        root = _narrowed_key(func, self.env_of_call) or _root_name(func)
        if root is not None and root in self.narrowed and root in self.env_of_call:
            self.mod.calls[-1]["narrowed"] = True  # typed by an isinstance test: this callee wins
        if root is not None and root in self.alternatives and root in self.env_of_call:
            prefix = len(self.env_of_call[root])
            for alt in self.alternatives[root]:
                twin = dict(self.mod.calls[-1], callee={"path": list((tuple(alt) + tuple(callee[prefix:]))[:MAX_PATH])})
                if twin.get("bound") == prefix:
                    twin["bound"] = len(alt)
                self.mod.calls.append(twin)

    def _held_types(self, node, chain):
        """A target name held as a type without being called: a dict key (`{Layer: "name"}`, a
        registry keyed by class, looked up with `type(m)` or `issubclass`) or the right side of
        `type(x) is Layer` / `==`. Where the name became a function, the lookup or test silently
        never matches (or `issubclass` over the keys raises)."""
        if type(node) is ast.Dict:
            held = [("class_key", k) for k in node.keys if type(k) in (ast.Name, ast.Attribute)]
        else:
            left = node.left
            is_type = type(left) is ast.Call and type(left.func) is ast.Name and left.func.id == "type" \
                and len(left.args) == 1
            held = [("type_cmp", c) for op, c in zip(node.ops, node.comparators)
                    if is_type and type(op) in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)
                    and type(c) in (ast.Name, ast.Attribute)]
        for kind, elt in held:
            path = chain.of(elt)
            if path and self.mod.is_target(path) and "()" not in path and not any(p.startswith("[") for p in path):
                line, col = _attr_pos(elt) if type(elt) is ast.Attribute else (elt.lineno, elt.col_offset)
                self.mod.use(kind, path, line, col, self.qual)

    def _type_args(self, node, fname, chain):
        """`isinstance(x, T)` / `issubclass(c, (A, T))`: each target name used as a type, so a
        class that became a function (a factory) in the target is seen where Python rejects it."""
        spec = node.args[1]
        for elt in (spec.elts if type(spec) is ast.Tuple else [spec]):
            path = chain.of(elt)
            if path and self.mod.is_target(path) and "()" not in path and not any(p.startswith("[") for p in path):
                line, col = _attr_pos(elt) if type(elt) is ast.Attribute else (elt.lineno, elt.col_offset)
                self.mod.use("type_arg", path, line, col, self.qual, call=fname, tuple=type(spec) is ast.Tuple)

    def _bind_shape(self, name, value):
        """`x = <value>`: does x now hold a list of plain values (or an empty list to append to)?"""
        self.lists.discard(name)
        self.empties.discard(name)
        self.any_lists.discard(name)
        if any_list_shape(value):
            self.any_lists.add(name)
        if isinstance(value, ast.List) and not value.elts:
            self.empties.add(name)
        elif list_shape(value, self.lists):
            self.lists.add(name)

    def _note_container(self, name, value):
        """`d = {}` / `dict()` / `defaultdict(...)` (a mapping) or `xs = []` / `list()` (a sequence)
        built empty here: what the function then stores in it (`d[k] = v`, `xs.append(v)`) is what
        reading it gives back (`d[k]`, `d.values()`, `for x in xs`). Any other binding forgets it."""
        kind = _empty_container(value)
        if kind:
            self.mod.elements[name] = (kind, None, False)
        else:
            self.mod.elements.pop(name, None)

    def _declared_container(self, name, annotation):
        """`specs: dict[str, KVCacheSpec]` (a parameter or an annotated local): reading an element
        gives the declared class's instance, as for a container the function fills itself.
        Whether it typed the elements."""
        got = _container_annotation(annotation)
        if got is None:
            return False
        kind, element = got
        path = self.mod.type_of_annotation(element, self.env)
        if path and len(path) < MAX_PATH:
            self.mod.elements[name] = (kind, tuple(path), False)
            return True
        return False

    def _store_element(self, name, vpath):
        """The first value stored in a container this function built is its element (one kind of
        value per container, as consumers fill a name-to-spec map or a list of layers); when that
        value is untyped, the container's elements stay unknown."""
        kind, cur, weak = self.mod.elements.get(name, (None, None, False))
        typed = bool(vpath) and self.mod.wanted(vpath) and len(vpath) < MAX_PATH
        guessed = typed and self._tested_read(vpath)
        if not kind or (cur is not None and not (weak and typed and not guessed)):
            return
        # () : something untyped went in; a value read through an attribute the consumer tested
        # with hasattr is a guess a later, plainer store replaces
        self.mod.elements[name] = (kind, tuple(vpath) if typed else (), guessed)

    def _tested_read(self, path):
        """Whether `path` reads an attribute the consumer asked `hasattr` about first: the
        object's declared class may not have it (`if hasattr(spec, "specs"): d[k] = spec.specs[k]`)."""
        path = tuple(path)
        return any((path[:i], path[i]) in self.mod.probed for i in range(1, len(path)))

    def _appended(self, node):
        """`x.append(v)` on a list this function built: plain values keep it plain, anything else
        makes its elements unknown."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return
        name = func.value.id
        if func.attr in ("append", "add") and len(node.args) == 1 and not node.keywords \
                and self.mod.elements.get(name, ("",))[0] == "list":
            self._store_element(name, _Chain(self.mod, self.env_of_call, self.cls).of(node.args[0]))
        if name not in self.empties and name not in self.lists:
            return
        if func.attr == "append" and len(node.args) == 1 and not node.keywords \
                and plain_value(node.args[0], self.lists):
            self.empties.discard(name)
            self.lists.add(name)
        elif func.attr not in ("index", "count", "copy"):
            self.empties.discard(name)  # extend, insert, __setitem__ through a method: elements unknown
            self.lists.discard(name)

    def _shapes(self, node):
        """{"kw_shapes": {keyword: shape}, "arg_shapes": {index: shape}} for arguments whose value is
        provably a list of plain Python values, or a Python number (only what is known is sent)."""
        out = {}
        kw = {k.arg: list_shape(k.value, self.lists) or number_shape(k.value) or any_list_shape(k.value, self.any_lists)
              for k in node.keywords if k.arg}
        kw = {k: v for k, v in kw.items() if v}
        if kw:
            out["kw_shapes"] = kw
        pos = {}
        for i, a in enumerate(node.args):
            if type(a) is ast.Starred:
                break
            shape = list_shape(a, self.lists) or number_shape(a) or any_list_shape(a, self.any_lists)
            if shape:
                pos[str(i)] = shape
        if pos:
            out["arg_shapes"] = pos
        return out

    def _type_class(self, name, value, env):
        """`name = type("N", bases, namespace)`: record a class (probes/typeclass.py) and bind
        `name` to it, so calls that hand it to the target name a consumer class."""
        self.namespaces.pop(name, None)
        entries = dict_entries(value)
        if entries is not None:
            self.namespaces[name] = entries
            return
        parts = type_call(value)
        if parts is None:
            return
        bases, ns = parts
        entries = dict_entries(ns) if not isinstance(ns, ast.Name) else self.namespaces.get(ns.id)
        if entries is None:
            return
        qual = name if self.node is self.mod.tree else "%s.%s" % (self.qual, name)
        self.mod.classes[qual] = type_class(
            ns_entries=entries, bases=bases, line=value.lineno, col=value.col_offset,
            chain=_Chain(self.mod, env, self.cls), function_of=self._def_named, signature=_signature)
        env[name] = ("sym:%s.%s" % (self.mod.module, qual),)

    def _def_named(self, node):
        """The def a name refers to here: a helper nested in this function, else a module-level one."""
        if isinstance(self.node, _FUNCS):
            for n in walk(self.node):
                if isinstance(n, _FUNCS) and n.name == node.id and n is not self.node:
                    return n
        return self.mod.defs.get(node.id)

    def _arg(self, a, chain):
        """What an argument to a consumer function is, for typing its parameter in drift."""
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            return {"str": a.value[:MAX_SRC]}
        p = chain.of(a) if type(a) is not ast.Starred else None
        return {"path": list(p)} if p and self.mod.wanted(p) else None

    def _getattr(self, node, fname, chain):
        """`getattr(obj, "x")` reads `obj.x` (AttributeError when missing); `getattr(obj, "x", d)`
        and `hasattr(obj, "x")` read it softly: a missing `x` gives the default, silently."""
        name = node.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
            return
        if fname == "hasattr" and len(node.args) != 2:
            return
        owner = chain.of(node.args[0])
        if not owner or not self.mod.wanted(owner):
            return
        soft = fname == "hasattr" or len(node.args) == 3
        if fname == "hasattr":
            self.mod.probed.add((tuple(owner), "." + name.value))
        self.mod.use("attr_soft" if soft else "attr", owner + ("." + name.value,), name.lineno, name.col_offset,
                     self.qual, **({"how": fname if fname == "hasattr" else "getattr-default"} if soft else {}))

    def _strings(self):
        """The string literals this function (or the module) assigns to names, read once."""
        got = self.__dict__.get("_string_literals")
        if got is None:
            got = self._string_literals = local_strings(walk(self.node)) if self.node is not None else {}
        return got

    def _installation(self, node, installed, env):
        """A patch of the target that a call installs (probes/mock_patches.py): recorded as
        `setattr(owner, name, value)` is, at the call."""
        owner, attr, value = installed
        self.expr(value, env)
        if self.mod.patchable(owner):
            for chosen in self._patch_values(value, env):
                self.mod.patches.append({"line": node.lineno, "col": node.col_offset, "path": list(owner),
                                         "name": attr, "function": self.qual, "value": chosen,
                                         "how": "mock.patch", "guards": list(self.mod.guards)})

    def _instance_patch(self, obj, owner, attr, value, env, pos, how="instance"):
        """`obj.m = fn.__get__(obj, Cls)` (or MethodType / partial, probes/bound_methods.py): a
        patch of `Cls.m` by `fn` for this object, recorded as `Cls.m = fn` is. The class is
        `__get__`'s own argument when it names a target class, else the object's type when its
        path is an instance of one (an annotation, an `isinstance` narrowing). False (nothing
        recorded) for any other store."""
        bound = bound_function(value)
        if bound is None or not same_object(bound[1], obj):
            return False
        fn, _, cls_node = bound
        chain = _Chain(self.mod, env, self.cls)
        cls = chain.of(cls_node) if cls_node is not None else None
        if not (cls and self.mod.patchable(cls)):
            cls = owner[:-1] if owner and owner[-1] == "()" and self.mod.patchable(owner[:-1]) else None
        if cls is None:
            return False
        self.expr(value, env)
        for chosen in self._patch_values(fn, env):
            self.mod.patches.append({"line": pos[0], "col": pos[1], "path": list(cls), "name": attr,
                                     "function": self.qual, "value": chosen, "how": how,
                                     "guards": list(self.mod.guards)})
        return True

    def _function_on_instance(self, owner, attr, value, env, pos):
        """`obj.m = fn` with `fn` a def of the consumer's and `obj` a target object (a call's
        result, an annotated parameter, an attribute of one): `fn` replaces `m` for that object
        alone, and is called without `self` (an instance attribute is not bound). Recorded as a
        patch of the object's path with how "instance_attr" (ART's `allocator =
        CuMemAllocator.get_instance(); allocator.wake_up = wake_up`, which vLLM 0.8.5's worker
        calls as `allocator.wake_up(tags=tags)`). False (nothing recorded) for any other store."""
        if not (isinstance(value, ast.Name) and value.id in self.mod.defs):
            return False
        if not (self.mod.is_target(owner) and "()" in owner and not any(st.startswith("[") for st in owner)):
            return False
        chosen = self._patch_values(value, env)
        if any(c is None or "signature" not in c for c in chosen):
            return False
        for c in chosen:
            self.mod.patches.append({"line": pos[0], "col": pos[1], "path": list(owner), "name": attr,
                                     "function": self.qual, "value": c, "how": "instance_attr",
                                     "guards": list(self.mod.guards)})
        return True

    def _setattr(self, node, env, chain):
        obj, name, value = node.args
        owner = chain.of(obj)
        self.expr(obj, env)
        self.expr(value, env)
        names = []
        extra = {}
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            names = [(name.value, name.lineno, name.col_offset)]
        elif isinstance(name, ast.Name) and name.id in self.loop_keys:  # keys of a dict applied one by one
            names = [(k, pos[0], pos[1]) for k, pos in self.loop_keys[name.id].items()]
            extra["at"] = [node.lineno, node.col_offset]  # the setattr itself (line/col: the name's literal)
            if name.id in self.loop_present:
                extra["if_present"] = 1  # a hasattr test chose the names: a gone one is skipped, not set
        if not owner or not names:
            return
        for attr, line, col in names:
            if self._instance_patch(obj, owner, attr, value, env, (line, col), how="setattr"):
                continue
            if self.mod.patchable(owner):
                for chosen in self._patch_values(value, env):
                    self.mod.patches.append(dict({"line": line, "col": col, "path": list(owner), "name": attr,
                                                  "function": self.qual, "value": chosen,
                                                  "how": "setattr", "guards": list(self.mod.guards)}, **extra))
            elif self.mod.wanted(owner):
                self.mod.use("attr_set", owner + ("." + attr,), line, col, self.qual)


def _leaves(body):
    """Whether a block always leaves the code that follows its `if` (it ends in return, raise,
    continue or break): its bindings never reach that code."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))



def _class_elements(spec):
    """The classes an isinstance test names: one, a tuple of them (nested tuples too), or a PEP 604
    union `A | B | C` (Python 3.10+ accepts it as isinstance's second argument)."""
    if isinstance(spec, ast.Tuple):
        return [c for elt in spec.elts for c in _class_elements(elt)]
    if isinstance(spec, ast.BinOp) and isinstance(spec.op, ast.BitOr):
        return _class_elements(spec.left) + _class_elements(spec.right)
    return [spec]

def _type_test(test):
    """`type(x) is C` (`==`; `is not` / `!=` negated) -> (the `isinstance(x, C)` it implies, negated);
    None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Call)
            and isinstance(test.left.func, ast.Name) and test.left.func.id == "type" and len(test.left.args) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    call = ast.Call(func=ast.Name(id="isinstance", ctx=ast.Load()), args=[test.left.args[0], test.comparators[0]],
                    keywords=[])
    return call, isinstance(test.ops[0], (ast.IsNot, ast.NotEq))


def _narrowed_key(node, env):
    """The `x.attr` key a chain `x.attr.m(...)` starts from when env holds it, else None."""
    while True:
        t = type(node)
        if t is ast.Attribute:
            if type(node.value) is ast.Name:
                key = node.value.id + "." + node.attr
                return key if key in env else None
            node = node.value
        elif t is ast.Subscript:
            node = node.value
        elif t is ast.Call:
            node = node.func
        else:
            return None


def _root_name(node):
    """The name a chain `a.b(...).c` starts from, or None."""
    while True:
        t = type(node)
        if t is ast.Name:
            return node.id
        if t is ast.Attribute or t is ast.Subscript:
            node = node.value
        elif t is ast.Call:
            node = node.func
        else:
            return None


def _patchers(tree, quals=None):
    """Helpers that patch what they are given: `def hijack(cls, name, fn): setattr(cls, name, fn)`
    -> {"hijack": [0, 1, 2]} (the indexes of owner, name and value among its parameters); nested
    helpers are keyed by their qualified name."""
    out = {}
    quals = quals or {}
    for fn in walk(tree):
        if not isinstance(fn, _FUNCS):
            continue
        names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        for node in walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and len(node.args) == 3 and all(isinstance(a, ast.Name) and a.id in names for a in node.args):
                out[quals.get(id(fn), fn.name)] = [names.index(a.id) for a in node.args]
                break
    return out


def _functions(tree):
    out = []

    def walk(body, prefix, cls):
        for node in body:
            if isinstance(node, _FUNCS):
                out.append((prefix + node.name, cls, node))
                walk(node.body, prefix + node.name + ".", None)
            elif isinstance(node, ast.ClassDef):
                out.append((prefix + node.name, "<class>", node))
                walk(node.body, prefix + node.name + ".", prefix + node.name)
            elif isinstance(node, (ast.If, ast.Try, ast.With)) or type(node).__name__ == "TryStar":
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(node, field, []) or [], prefix, cls)
                for h in getattr(node, "handlers", []) or []:
                    walk(h.body, prefix, cls)

    walk(tree.body, "", None)
    return out


def _enclosing_ifs(tree):
    """id(def node) -> the `if` statements around it, innermost last, as (if node, in its else).
    Why: a function is walked on its own, so the version branch it was defined in (a def the
    consumer, or drift's version gate, wrote under `if vllm_version_at_least(...):`) must be
    handed to its walk, or its calls look live on every release."""
    out = {}

    def walk(body, ifs, parent=None):
        for node in body:
            if isinstance(node, _FUNCS):
                chosen = _returned_under(parent, node.name) if parent is not None else ()
                if ifs or chosen:
                    out[id(node)] = ifs + chosen
                walk(node.body, (), node)  # a nested def runs when its parent does: the parent's guards suffice
            elif isinstance(node, ast.ClassDef):
                walk(node.body, ifs)
            elif isinstance(node, ast.If):
                walk(node.body, ifs + ((node, False),), parent)
                walk(node.orelse, ifs + ((node, True),), parent)
            elif isinstance(node, (ast.Try, ast.With)) or type(node).__name__ == "TryStar":
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(node, field, []) or [], ifs, parent)
                for h in getattr(node, "handlers", []) or []:
                    walk(h.body, ifs, parent)

    walk(tree.body, ())
    return out


def _returned_under(parent, name):
    """The `if` chain around the one `return name` of `parent`, when that is all `parent` does with
    its nested def `name`: a factory that hands back one of several implementations by version
    (`if version == "0.4.2": return forward_042` / `elif version >= "0.4.3": return forward_043`)
    runs each only where its branch is taken, as if the def were written there. () otherwise."""
    loads = [n for n in walk(parent) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if len(loads) != 1:
        return ()
    found = []

    def visit(body, ifs):
        for st in body:
            if isinstance(st, ast.Return) and st.value is loads[0]:
                found.append(ifs)
            elif isinstance(st, ast.If):
                visit(st.body, ifs + ((st, False),))
                visit(st.orelse, ifs + ((st, True),))
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)) \
                    or type(st).__name__ == "TryStar":
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(st, field, []) or [], ifs)
                for h in getattr(st, "handlers", []) or []:
                    visit(h.body, ifs)

    visit(parent.body, ())
    return found[0] if len(found) == 1 else ()


def _branch_guards(mod, ifs):
    """The version guards the `if` chain `ifs` puts a def under (tests that are not version tests
    add nothing)."""
    out = []
    for node, in_else in ifs:
        guard = version_guard(node.test, mod.names, mod.flags)
        if guard is not None:
            out.append(dict(guard, negated=not guard.get("negated")) if in_else else guard)
            continue
        body_guards, else_guards = compound_guards(node.test, mod.names, mod.flags)
        out.extend(else_guards if in_else else body_guards)
    return out


def version_asserts(tree, mod):
    """Module-level `assert <version test>` (`assert VLLM_VERSION < (0, 25)`): the module fails
    to import on every version the test rules out, as data drift evaluates per side."""
    out = []
    for st in tree.body:
        if isinstance(st, ast.Assert):
            guard = version_guard(st.test, mod.names, mod.flags)
            if guard is not None and "const" not in guard:
                out.append(dict(guard, line=st.lineno, col=st.col_offset))
    return out


def reach_facts(tree, *, module, is_package, prefixes, lines):
    """{"classes", "uses", "calls", "patches"} of one parsed consumer module (SCHEMA.md, "Reach")."""
    mod = _Module(tree, module=module, is_package=is_package, prefixes=prefixes, lines=lines)
    mod.tree = tree
    funcs = _functions(tree)
    mod.quals = {id(node): qual for qual, cls, node in funcs if cls != "<class>"}
    mod.class_nodes = {qual: node for qual, cls, node in funcs if cls == "<class>"}
    mod.class_quals = {id(node): qual for qual, node in mod.class_nodes.items()}
    for qual, cls, node in funcs:
        gate = decorator_guard(node, mod.consts)
        if gate:
            mod.deco_guards[qual] = gate
    mod.defs = {}
    for qual, cls, node in funcs:  # functions by simple name, module level first, then nested helpers
        if cls is None and node.name not in mod.defs:
            mod.defs[node.name] = node
    mod.nested_quals = {qual for qual, cls, node in funcs
                        if cls is None and "." in qual and qual.rsplit(".", 1)[0] in mod.quals.values()}
    top = _Function(mod, qual="<module>", cls=None, node=tree, env={})
    module_env = top.run()
    mod.derived = top.derived  # module-level `_orig = Target.m`: read once, where it is assigned
    # module-level aliases (`_orig = Target.method`) are visible in every function
    genv = dict(mod.names)
    genv.update({k: v for k, v in module_env.items() if v})
    for name in _declared_global(tree):  # `global _engine; _engine = Engine()` in one function, read in
        genv.setdefault(name, ("sym:%s.%s" % (module, name),))  # another: typed by the solver (its names)
    for qual, cls, node in funcs:
        if cls == "<class>":
            mod.class_record(node, qual, genv)
    enclosing = _enclosing_ifs(tree)
    envs, tested, derived = {}, {}, {}  # qualname -> the names a function ends with / the features it
    # tested / the locals it bound to an attribute read (a closure's read of one is no read of its own)
    for qual, cls, node in funcs:
        if cls == "<class>":
            continue
        branch = _branch_guards(mod, enclosing[id(node)]) if id(node) in enclosing else []
        mod.guards.extend(branch)
        parent = qual.rsplit(".", 1)[0] if "." in qual else None
        try:
            walker = _Function(mod, qual=qual, cls=cls, node=node, env=_closed_over(genv, envs, qual),
                               probed=tested.get(parent, ()), derived=derived.get(parent))
            envs[qual] = walker.run()
            tested[qual] = frozenset(mod.probed)
            derived[qual] = walker.derived
        finally:
            del mod.guards[len(mod.guards) - len(branch):]
    # every module's functions: another module of the package may install one over a target name
    # (`from .patches import f` then `vllm.x.g = f`), and DRIFT070 holds it to how the target calls g
    functions = {mod.quals[id(fn)]: _signature(fn) for fn in mod.defs.values() if id(fn) in mod.quals}
    return {"classes": mod.classes, "uses": mod.uses, "calls": mod.calls, "patches": mod.patches,
            "patchers": _patchers(tree, mod.quals), "functions": functions,
            "version_predicates": version_predicates(tree, module, mod.quals,
                                                     {p.split(".")[0] for p in prefixes}, mod.names),
            "version_compares": version_compares(tree, prefixes), "returns": mod.returns,
            "over_annotations": mod.over_annotations, "version_asserts": version_asserts(tree, mod),
            "caught": caught_ranges(tree), "handlers": handler_ranges(tree), "absent_raises": absent_raises(tree)}


def _closed_over(genv, envs, qual):
    """The names a function starts with: the module's, and for a function nested in another
    (`def patch(engine: Engine): ... async def pause(): engine.engine...`) the enclosing
    function's typed locals and parameters too, which its body reads as free variables. Its own
    assignments still shadow them, as Python scopes do."""
    parent = qual.rsplit(".", 1)[0] if "." in qual else None
    outer = envs.get(parent)
    if not outer:
        return genv
    env = dict(genv)
    env.update({k: v for k, v in outer.items() if v})
    return env


def _declared_global(tree):
    """Names some function of the module declares `global` and assigns: module state one function
    sets and others read."""
    out = set()
    if not any(type(n) is ast.Global for n in walk(tree)):
        return []
    for node in walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = {n for st in walk(node) if isinstance(st, ast.Global) for n in st.names}
            if names:
                out |= {t.id for st in walk(node) if isinstance(st, ast.Name) and isinstance(st.ctx, ast.Store)
                        for t in [st] if t.id in names}
    return sorted(out)


def _is_dataclass(node):
    """Whether a class statement is decorated `@dataclass` / `@dataclasses.dataclass(...)`:
    Python then generates its `__init__` from the fields of the dataclasses in its MRO, whatever
    `__init__` a plain base defines."""
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name == "dataclass":
            return True
    return False


def _class_var(annotation):
    """`x: ClassVar[int] = 0` is no dataclass field."""
    a = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = a.attr if isinstance(a, ast.Attribute) else a.id if isinstance(a, ast.Name) else None
    return name == "ClassVar"


def catches_import_error(handler):
    """An `except` that catches a failed import (ImportError, ModuleNotFoundError, a bare or
    `Exception` clause): its body is the fallback binding of what the `try` imported. One that
    raises again (`except ImportError: raise RuntimeError("install X")`) is no fallback: the
    import's failure still leaves the module, only reworded."""
    if _reraises(handler):
        return False
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for n in names:
        name = n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name) else None
        if name in ("ImportError", "ModuleNotFoundError", "Exception", "BaseException"):
            return True
    return False


def _import_names(node):
    if isinstance(node, ast.Import):
        return {a.asname or a.name.split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name for a in node.names if a.name != "*"}
    return set()


def _fallback_imports(tree):
    """ids of import statements in an import-error handler that only re-bind names the `try`
    body imported (`try: from new import X` / `except ImportError: from old import X`)."""
    out = set()
    for node in walk(tree):
        if not (isinstance(node, ast.Try) or type(node).__name__ == "TryStar"):
            continue
        tried = set()
        for st in node.body:
            for sub in ast.walk(st):
                tried |= _import_names(sub)
        if not tried:
            continue
        for h in node.handlers:
            if not catches_import_error(h):
                continue
            for st in h.body:
                for sub in ast.walk(st):
                    names = _import_names(sub)
                    if names and names <= tried:
                        out.add(id(sub))
    return out
