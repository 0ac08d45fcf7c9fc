"""The consumer module as small relations, for drift's inference (stdlib, Python 3.9+).

Pattern-by-pattern typing (reach.py) follows the ways of reaching the target it was written
for; a consumer that binds `Cls.__init__ = new_init` onto a stand-in class, or assigns its own
class into a target module, reaches the target in a way no pattern names. This module records
what the code *does* with values, without judging it, so drift can solve all the consumer's
modules together (drift/consumer/infer.py, a PyCG-style fixpoint) and type what no pattern did.

Expressions are paths in reach.py's language: a root and steps. Roots: ``sym:<dotted>`` (a name
imported or defined at module level, resolved through this module's imports, the target's and
the consumer's own alike) and ``var:<module>.<function qual>:<name>`` (a parameter or local of
one function). Steps: ``.name`` and ``()``. Anything else (a literal, arithmetic, a comprehension)
is not recorded: the inference knows nothing of it, which is what unknown means.

Relations (SCHEMA.md, "IR"): ``defs`` {qual: [class qual or "", [[name, annotation path,
default path, kind, optional], ...], line, 1 if it returns a value]}, ``classes`` {qual: [[base path, ...], line]}, ``assign`` [[var, path]],
``store`` [[object path, attr, value path, line]] (`o.a = v`, `setattr(o, "a", v)`, and one per row of `for c, n, f in
TABLE: setattr(c, n, f)` over a literal table), ``attrset`` [[object path, attr, line]] (`o.a = v` whose
value is no path, a literal: what the consumer sets on an object, not what it holds), ``call``
[[callee path, [arg paths], {kw: path}, line]], ``ret`` [[function qual, path]], ``tret`` [[function qual, index, path]] (an element of `return a, b`; a
tuple target `a, b = v` assigns `v` + the step ``[i]``), ``key``
[[key, value path, line]] (`{"k": v}`, `d["k"] = v`, `dict(k=v)`), ``guards`` [[first line, last line, [guard,
...]]] (the lines of each branch of an `if` on the version or on a module-level switch). A string that names a dotted class
(`"pkg.mod.Ext"`, `"pkg.mod:Ext"`, also spelled `f"{__name__}.Ext"`) is a root ``lit:<text>``: vLLM builds classes named that way.
Keys as data: ``dict`` [[name, [[key, line, col]], line]] (`d = {"k": ...}`), ``dictcomp`` [[name,
source path, "signature" | "filter" | "keep", line]] (a comprehension over a dict; "signature"
when its filter reads `inspect.signature(C).parameters`, "filter" for any other condition), ``iter`` [[name, dict path]] (`for k, v in d.items()`),
``dynattr`` [["setattr" | "hasattr" | "getattr", object path, key path, line, col]], ``starkw``
[[callee path, dict path, line, col]] (`f(**d)`), ``modmap`` [[module, replacement module, line, col]]
(string pairs of a module that puts modules into `sys.modules` or hooks `__import__`), ``reexport``
[[module's dotted name, the defining dotted name]] (`from .impl import X` of the consumer's own), ``fields``
{record class: [[field, annotation path], ...]} (a dataclass / attrs / pydantic / NamedTuple class's fields in
`__init__` order, probes/record_fields.py), ``retann`` [[function, annotation path]] (a return annotation), ``sigtest``
[[name, callee path, [first, last] lines run when the callee takes the name, [first, last] when it
does not, line]] (`if "name" in inspect.signature(C).parameters:`), ``hastest`` the same for
`if hasattr(X, "name"):` (X's path in place of the callee's). ``selfuse`` {qual: [[attr, ...], [method, ...], 0|1]}: what
a function outside any class does with its first parameter (`self` once bound onto a class):
attributes stored, methods called, 1 when it is handed to a call or `super()` is called. ``strparam`` [[function,
parameter, sink kind, line]]: a parameter declared a `str` that the function uses as text (probes/str_sinks.py). ``clsm``
[function, ...]: the methods decorated `@classmethod` (their first parameter is the class). A name a module-level `if`
imports from one place and its `else` from another is the module's own name, with an ``assign`` row per import. A path is a
list; a missing value is None. Quals are module-qualified.
"""

import ast
import re
from itertools import islice

from .accepted_names import FIELD_TABLES, accepted_names_held, reads_accepted_names
from .astwalk import walk
from .closed_dicts import closed_dicts
from .joins import alternatives
from .rebinding import versions
from .str_sinks import str_keyed_tables, str_sinks
from .record_fields import record_fields
from .mock_patches import local_strings, patch_installation
from .runners import inner_call
from .reach import (_self_version_aliases, _version_aliases, alias_test, compound_guards, flag_constants,
                    signature_pruned, strip_optional, union_members, version_guard)
from .srctext import dotted as _dotted, relative_module as _relative

MAX_STEPS = 6
_COPIERS = (["sym:copy", ".deepcopy"], ["sym:copy", ".copy"], ["sym:copy.deepcopy"], ["sym:copy.copy"])
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*[.:][A-Za-z_]\w*$")
_CLASS_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$")  # `Engine`, not `FOO` or `x`
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Names:
    """Module-level names: what each imported or defined name is, as a `sym:` root."""

    def __init__(self, tree, module, is_package):
        self.module, self.is_package = module, is_package
        self.names = {}
        for node in walk(tree):  # imports anywhere (function-level too): one binding per name
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.names.setdefault(a.asname, a.name)
                    else:
                        head = a.name.split(".")[0]
                        self.names.setdefault(head, head)
            elif isinstance(node, ast.ImportFrom):
                base = _relative(module, is_package, node.level, node.module) if node.level else (node.module or "")
                for a in node.names:
                    if a.name != "*":
                        self.names.setdefault(a.asname or a.name, base + "." + a.name if base else a.name)
        placeholders = _typing_placeholders(tree.body)
        self.alternatives = _alternative_imports(tree.body, module, is_package)
        for name in self.alternatives:
            if name not in placeholders:
                self.names[name] = module + "." + name
        for node in _module_statements(tree.body):
            for name in _bound_names(node):
                if name not in placeholders:
                    self.names[name] = module + "." + name

    def root(self, name):
        dotted = self.names.get(name)
        return "sym:" + dotted if dotted else None


def _import_pairs(node, module, is_package):
    """(name bound, dotted name it holds) for each name an import statement binds to one
    object: `from m import a as b` -> (b, m.a); `import a.b as x` -> (x, a.b). A plain `import a.b`
    binds the package `a`, not a value, and a star binds nothing nameable: neither is listed."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) for a in node.names if a.asname]
    base = _relative(module, is_package, node.level, node.module) if node.level else (node.module or "")
    return [(a.asname or a.name, base + "." + a.name if base else a.name) for a in node.names if a.name != "*"]


def _alternative_imports(body, module, is_package):
    """Names the module imports from two places in the two arms of a module-level `if`
    (`if args.grammar_sampling: from pkg.patched import Engine` / `else: from vllm... import
    Engine`): the name holds either, so it is the module's own name, assigned from each import.
    Imports under `try` are left to the guards (a fallback for an older release, cut per side).
    Returns {name: [dotted, ...]}."""
    found = {}

    def imports(stmts, out):
        for node in stmts:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name, dotted in _import_pairs(node, module, is_package):
                    out.setdefault(name, set()).add(dotted)
            elif isinstance(node, (ast.If, ast.With)):
                imports(node.body, out)
                imports(getattr(node, "orelse", []), out)

    def visit(stmts):
        for node in stmts:
            if isinstance(node, ast.If) and node.orelse:
                arms = ({}, {})
                imports(node.body, arms[0])
                imports(node.orelse, arms[1])
                for name in set(arms[0]) & set(arms[1]):
                    both = arms[0][name] | arms[1][name]
                    if len(both) > 1:
                        found.setdefault(name, set()).update(both)
            if isinstance(node, (ast.If, ast.With)):
                visit(node.body)
                visit(getattr(node, "orelse", []))

    visit(body)
    return {name: sorted(d) for name, d in found.items()}


def _typing_placeholders(body):
    """Names imported under a module-level `if TYPE_CHECKING:` and bound to a constant in its
    `else` (`VllmConfig = None`): the stand-in only keeps the name defined at run time; what an
    annotation naming it (`vllm_config: "VllmConfig"`) means is the import."""
    out = set()
    for node in _module_statements(body):
        if not (isinstance(node, ast.If) and (_dotted(node.test) or "").split(".")[-1] == "TYPE_CHECKING"):
            continue
        imported = {a.asname or a.name.split(".")[0] for st in node.body if isinstance(st, (ast.Import, ast.ImportFrom))
                    for a in st.names}
        for st in node.orelse:
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant):
                out.update(t.id for t in st.targets if isinstance(t, ast.Name) and t.id in imported)
    return out


def _module_statements(body):
    """The module's own statements, also those inside a module-level `if`, `try` or `with`
    (a compatibility shim: `if hasattr(m, "A"): A = m.A` / `else: A = m.B`), never a def's or a
    class's."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.With)):
            yield from _module_statements(node.body)
            yield from _module_statements(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for part in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_statements(part)


def _bound_names(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


class _Scope:
    """One function's locals (parameters and assigned names) over the module's names."""

    def __init__(self, names, key, local=(), signature_names=(), versions=None):
        self.names, self.key, self.local = names, key, set(local)
        self.signature_names = set(signature_names)
        self.versions = versions or {}  # id(Name node) -> the binding it reads (probes/rebinding.py)

    def root(self, name, node=None):
        """The root of `name`; with the Name `node` itself, the root of the binding that use reads
        (`var:f:args~1` after `args = match(args)` in straight-line code)."""
        if self.key is not None and name in self.local:
            version = self.versions.get(id(node)) if node is not None else None
            return "var:%s:%s~%d" % (self.key, name, version) if version else "var:%s:%s" % (self.key, name)
        return self.names.root(name)

    def path(self, node):
        steps = []
        while True:
            if len(steps) > MAX_STEPS:  # a chain this long types nothing; stop before walking it whole,
                return None             # or each call of `f()()()...` rewalks it (quadratic)
            if isinstance(node, ast.Attribute):
                steps.append("." + node.attr)
                node = node.value
            elif isinstance(node, ast.Call):
                steps.append("()")
                node = node.func
            elif isinstance(node, ast.Name):
                root = self.root(node.id, node)
                if root is None:
                    return None
                return [root] + steps[::-1]
            elif isinstance(node, ast.NamedExpr):
                node = node.value
            elif isinstance(node, ast.Subscript) and not steps and isinstance(node.value, ast.Name) \
                    and not isinstance(node.slice, (ast.Constant, ast.Slice)):
                # `TABLE[mode]` chosen by data: any value of the table (a dict of class names by mode)
                steps.append("[*]")
                node = node.value
            elif isinstance(node, ast.Constant) and not steps and isinstance(node.value, str) \
                    and len(node.value) < 200 and (_DOTTED.match(node.value) or _CLASS_NAME.match(node.value)):
                # a class named by string (`"pkg.mod:Ext"`, or `"pkg.mod", "Ext"` to a lazy registry): vLLM
                # may build it
                return ["lit:" + node.value]
            elif isinstance(node, (ast.JoinedStr, ast.BinOp)) and not steps:
                text = _module_named(node, self.names.module)  # f"{__name__}.Ext": this module's class
                return ["lit:" + text] if text and len(text) < 200 and _DOTTED.match(text) else None
            else:
                return None


def _module_named(node, module):
    """The text of `f"{__name__}.Ext"` or `__name__ + ".Ext"`, with this module's dotted name in
    place of `__name__` (a class naming itself for vLLM to import); None for any other text."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _module_named(node.left, module), _module_named(node.right, module)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Name) and node.id == "__name__":
        return module
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for v in node.values:
        if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None:
            v = v.value
            if not (isinstance(v, ast.Name) and v.id == "__name__"):
                return None
        text = _module_named(v, module)
        if text is None:
            return None
        parts.append(text)
    return "".join(parts)


def _annotation_path(scope, node):
    """`X`, `Optional[X]`, `"X"` -> the instance path `X ()`; `Type[X]` / `type[X]` -> `X`."""
    node = strip_optional(node)
    if isinstance(node, ast.Subscript):
        if (_dotted(node.value) or "").split(".")[-1] not in ("Type", "type"):
            return None
        inner = scope.path(node.slice)
        return inner if inner and "()" not in inner else None
    p = scope.path(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return p + ["()"] if p else None


def _union_paths(scope, node):
    """The instance path of each member of a union annotation (`engine: A | B`): each is a value
    the parameter may hold; [] when the annotation is no union or a member is no plain name."""
    members = union_members(node) if node is not None else None
    if not members:
        return []
    paths = [_annotation_path(scope, m) for m in members]
    return paths if all(paths) else []


def _params(fn):
    """[(arg, default node, kind)] in Python's order, as inspect names the kinds."""
    a = fn.args
    posonly = list(getattr(a, "posonlyargs", []))
    positional = posonly + list(a.args)
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [(p, d, "POSITIONAL_ONLY" if i < len(posonly) else "POSITIONAL_OR_KEYWORD")
           for i, (p, d) in enumerate(zip(positional, defaults))]
    if a.vararg is not None:
        out.append((a.vararg, None, "VAR_POSITIONAL"))
    out += [(p, d, "KEYWORD_ONLY") for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg is not None:
        out.append((a.kwarg, None, "VAR_KEYWORD"))
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own(roots):
    """The nodes of `roots` (statements) outside nested functions, classes and lambdas (the
    nested definitions themselves included), in one pass over the memoised walks."""
    out, skip = [], set()
    for r in roots:
        for n in walk(r):
            if id(n) in skip:
                continue
            out.append(n)
            if isinstance(n, _SCOPES):
                skip.update(id(m) for m in islice(walk(n), 1, None))
    return out


def _locals(fn, own):
    """The function's own names; one it declares `global` (or `nonlocal`) is the module's (the
    enclosing function's): `global _engine; _engine = Engine()` binds the name other functions read."""
    names = {p.arg for p, _d, _k in _params(fn)}
    shared = set()
    for node in own:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            shared.update(node.names)
    return names - shared


def ir_facts(tree, *, module, is_package):
    """The relations of one parsed consumer module (see the module docstring)."""
    names = _Names(tree, module, is_package)
    names.tables = str_keyed_tables(tree.body)
    out = {"defs": {}, "classes": {}, "assign": [], "store": [], "call": [], "ret": [], "key": [],
           "dict": [], "dictcomp": [], "iter": [], "dynattr": [], "starkw": [], "closed": [], "opened": [], "starcall": [],
           "sigtest": [], "hastest": []}
    top = [n for n in tree.body if not isinstance(n, _SCOPES)]
    module_scope = _Scope(names, None, (), accepted_names_held(_own(top)))
    for name, dotted in names.alternatives.items():
        own = names.root(name)
        if own == "sym:%s.%s" % (names.module, name):
            out["assign"].extend([own, ["sym:" + d]] for d in dotted)
    _walk_body(out, names, tree.body, prefix="", cls="", scope=module_scope)
    _table_patches(out, module_scope, tree)
    _served_names(out, module_scope, tree, names)
    branches = _guarded_lines(tree, names)
    if branches:
        out["guards"] = branches
    modmap = _module_mappings(tree)
    if modmap:
        out["modmap"] = modmap
    handed_on = _own_reexports(tree, names)
    if handed_on:
        out["reexport"] = handed_on
    refs = _value_refs(tree, names)
    if refs:
        out["valueref"] = refs
    return out


def _served_names(out, scope, tree, names):
    """`current: Platform` declared at module level with no value (under `if TYPE_CHECKING:`,
    as a rule) in a module whose `__getattr__` serves that name: the annotation is the one type
    the module promises for it, so it is recorded as what the name holds (an `assign` of an
    instance of the annotation). Without the module `__getattr__` the name does not exist."""
    if not any(isinstance(n, _FUNCS) and n.name == "__getattr__" for n in tree.body):
        return
    for node in _module_statements(tree.body):
        if isinstance(node, ast.AnnAssign) and node.value is None and isinstance(node.target, ast.Name):
            src = _annotation_path(scope, node.annotation)
            if src:
                out["assign"].append(["sym:%s.%s" % (names.module, node.target.id), src])


def _value_refs(tree, names):
    """The consumer's own module-level names this module mentions other than as a call's callee
    (`RUNNERS = [main]`, `register(main)`): a function mentioned so may be called by code drift
    does not see, with any keywords, so its `**kwargs` is never known whole."""
    callees = {id(node.func) for node in walk(tree) if isinstance(node, ast.Call)}
    own = names.module.split(".")[0]
    out = set()
    for node in walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in callees:
            root = names.root(node.id)
            if root and root[4:].split(".")[0] == own:
                out.add(root)
    return sorted(out)


def _own_reexports(tree, names):
    """[[this module's dotted name for X, where X is defined]] for each module-level `from .impl
    import X` (or `from pkg.impl import X as Y`) of the consumer's own package: a dotted class name
    written through the re-export (`"pkg.X"` for vLLM to import) reaches the class defined in
    `pkg.impl`."""
    own = names.module.split(".")[0] + "."
    out = []
    for node in _module_statements(tree.body):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                source = names.names.get(a.asname or a.name)
                local = names.module + "." + (a.asname or a.name)
                if a.name != "*" and source and source.startswith(own) and source != local:
                    out.append([local, source])
    return out


def _table_patches(out, scope, tree):
    """`for cls, name, fn in TABLE: setattr(cls, name, fn)` over a literal list or tuple of rows
    (written in the loop, or bound to a module-level name) whose name slot is a string: each row is
    the store `setattr(cls, "name", fn)` at the setattr's line, so a function installed from a
    table is bound onto its class as one installed by name is."""
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, (ast.List, ast.Tuple)):
            tables[node.targets[0].id] = node.value.elts
    for node in walk(tree):
        if not isinstance(node, ast.For) or not isinstance(node.target, ast.Tuple):
            continue
        if isinstance(node.iter, ast.Name):
            rows = tables.get(node.iter.id)
        else:
            rows = node.iter.elts if isinstance(node.iter, (ast.List, ast.Tuple)) else None
        slots = [t.id if isinstance(t, ast.Name) else None for t in node.target.elts]
        for call in (n for st in node.body for n in walk(st) if isinstance(n, ast.Call)) if rows else ():
            if not (isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) == 3
                    and all(isinstance(a, ast.Name) and a.id in slots for a in call.args)):
                continue
            i_obj, i_key, i_val = (slots.index(a.id) for a in call.args)
            for row in rows:
                if not isinstance(row, (ast.Tuple, ast.List)) or len(row.elts) != len(slots):
                    continue
                key = row.elts[i_key]
                obj, val = scope.path(row.elts[i_obj]), scope.path(row.elts[i_val])
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and obj and val:
                    out["store"].append([obj, key.value, val, call.lineno])


_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def _swaps_modules(tree):
    """Whether the module puts modules into the import system itself: a store into
    `sys.modules[...]`, an assignment to `builtins.__import__`, or a finder added to
    `sys.meta_path`."""
    for node in walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                and _dotted(node.value) in ("sys.modules", "modules"):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr == "__import__":
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("insert", "append") and _dotted(node.func.value) in ("sys.meta_path", "meta_path"):
            return True
    return False


def _module_mappings(tree):
    """[[module name, replacement module name, line, col]]: in a module that puts modules into the
    import system itself (`sys.modules[name] = ...`, an `__import__` hook, a meta-path finder), every
    dict entry pairing two dotted module names written as string literals
    (`{"vllm.x.wrapper": "plugin.x.wrapper"}`): the first is answered with the second."""
    if not _swaps_modules(tree):
        return []
    out = []
    for node in walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(k.value, str) \
                        and isinstance(v.value, str) and _MODULE_NAME.match(k.value) and _MODULE_NAME.match(v.value):
                    out.append([k.value, v.value, k.lineno, k.col_offset])
    return out


def _guarded_lines(tree, names):
    """[[first line, last line, [guard, ...]]] of every branch of an `if` on the running
    version or on a module-level True/False switch: an edge written there (`Cls.m = fn` under
    `if version_is("0.13"):`) exists only on the versions the test lets through."""
    roots = {k: ("sym:" + v,) for k, v in names.names.items()}
    flags = flag_constants(tree)
    aliased = _aliased_tests(tree, roots, flags)
    out = []
    for node in walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = aliased.get(id(node), node.test)
        guard = version_guard(test, roots, flags)
        if guard is not None:
            body, orelse = [guard], [dict(guard, negated=not guard.get("negated"))]
        else:
            body, orelse = compound_guards(test, roots, flags)
        for stmts, guards in ((node.body, body), (node.orelse, orelse)):
            if stmts and guards:
                out.append([stmts[0].lineno, max(getattr(st, "end_lineno", st.lineno) for st in stmts), guards])
    out += _early_exit_lines(tree, roots, flags)
    return out


def _aliased_tests(tree, roots, flags):
    """{id(if node): its test read through the names its function (or class, for `self.<attr>`)
    binds once to a version test} (probes/reach.py `alias_test`), for the `if`s whose test changes."""
    out = {}

    def visit(node, attrs):  # attrs: the enclosing class's `self.<attr>` aliases, None outside a class body
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, _self_version_aliases(child, roots, flags))
            elif isinstance(child, _FUNCS):
                local = _version_aliases(child, roots, flags)
                me = child.args.args[0].arg if attrs and child.args.args else None
                if local or attrs:
                    for n in walk(child):
                        if isinstance(n, ast.If):
                            t = alias_test(n.test, local, attrs or {}, me, roots, flags)
                            if t is not n.test:
                                out[id(n)] = t
                visit(child, None)
            else:
                visit(child, attrs)

    visit(tree, None)
    return out


def _early_exit_lines(tree, roots, flags):
    """`if not version_is("0.16"): return` in a statement list: the statements after it run only
    where the test is false, so an edge written there (`Worker.m = _patched`, a nested def bound
    below it) exists only on those versions. [[first line, last line, [negated guard]]]."""
    out = []
    for node in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or not stmts or not isinstance(stmts[0], ast.stmt):
                continue
            for i, st in enumerate(stmts[:-1]):
                if not isinstance(st, ast.If) or st.orelse or not st.body \
                        or not isinstance(st.body[-1], (ast.Return, ast.Raise)):
                    continue
                guard = version_guard(st.test, roots, flags)
                if guard is not None:
                    rest = stmts[i + 1:]
                    out.append([rest[0].lineno, max(getattr(r, "end_lineno", r.lineno) for r in rest),
                                [dict(guard, negated=not guard.get("negated"))]])
    return out


def _walk_body(out, names, body, *, prefix, cls, scope):
    for node in body:
        if isinstance(node, _FUNCS):
            _function(out, names, node, prefix=prefix, cls=cls, outer=scope)
        elif isinstance(node, ast.ClassDef):
            qual = prefix + node.name
            out["classes"][names.module + "." + qual] = [[scope.path(b) for b in node.bases], node.lineno]
            fields = record_fields(node)
            if fields:  # a record's generated __init__: its fields in order, with their annotations
                out.setdefault("fields", {})[names.module + "." + qual] = [
                    [name, _annotation_path(scope, ann)] for name, ann in fields]
            _walk_body(out, names, node.body, prefix=qual + ".", cls=names.module + "." + qual, scope=scope)
        else:
            if cls is not None:
                _class_field(out, scope, node, cls)
            own = _own([node])
            _relations(out, scope, own, fn_key=None)
            # defs and classes inside a module-level (or class-level) `if` / `try` / `with` (an
            # `if find_spec("vllm"):` block, a compatibility shim) are the module's (class's) own
            nested = [n for n in own if isinstance(n, (ast.ClassDef, *_FUNCS))]
            if nested:
                _walk_body(out, names, nested, prefix=prefix, cls=cls, scope=scope)


def _first_param_use(out, key, first, own):
    """What a function outside any class does with its first parameter, for when it is bound
    onto a class as a method (`Cls.m = fn`, then `first` is `self`): the attributes it stores
    on it (`p.a = v`, `p.a += v`, `setattr(p, "a", v)`), the methods it calls on it (`p.m()`),
    and whether it hands `p` itself to a call (the saved original, a helper) or calls `super()`.
    Kept only when it stores or calls something: ``selfuse`` {qual: [[attr, ...], [method, ...], 0|1]}."""
    def is_p(node):
        return isinstance(node, ast.Name) and node.id == first

    stored, called, handed = set(), set(), 0
    for n in own:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                    if isinstance(e, ast.Attribute) and is_p(e.value):
                        stored.add(e.attr)
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and is_p(f.value):
                called.add(f.attr)
            elif isinstance(f, ast.Name) and f.id == "setattr" and len(n.args) >= 2 and is_p(n.args[0]) \
                    and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                stored.add(n.args[1].value)
            elif isinstance(f, ast.Name) and f.id == "super":
                handed = 1
            if any(is_p(a) for a in n.args) or any(is_p(k.value) for k in n.keywords):
                if not (isinstance(f, ast.Name) and f.id in ("setattr", "getattr", "hasattr", "isinstance", "type")):
                    handed = 1
    if stored or called or handed:
        out.setdefault("selfuse", {})[key] = [sorted(stored), sorted(called), handed]


def _class_field(out, scope, node, cls):
    """`name = v` / `name: T = v` in a class body: a store on the class (a config class's field
    default, `worker_extension_cls: str = "pkg.ext.Sync"`, names what the field holds)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return
    src = scope.path(node.value)
    if src:
        for t in targets:
            if isinstance(t, ast.Name):
                out["store"].append([["sym:" + cls], t.id, src, node.lineno])


def _function(out, names, fn, *, prefix, cls, outer):
    qual = prefix + fn.name
    key = names.module + "." + qual
    own = _own(fn.body)
    local = _locals(fn, own)
    sig = accepted_names_held(own)
    bound = versions(fn.body, local, {p.arg for p, _d, _k in _params(fn)})
    if outer.key is not None:  # a nested function sees its enclosing function's locals
        scope = _Scope(names, key, local, sig, bound)
        enclosing = outer
    else:
        scope, enclosing = _Scope(names, key, local, sig, bound), None
    params = []
    for p, default, kind in _params(fn):
        ann = _annotation_path(enclosing or scope, p.annotation) if p.annotation is not None else None
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            ann = None  # `*args: X` holds a tuple of X, not an X
        dflt = (enclosing or _Scope(names, None)).path(default) if default is not None else None
        optional = default is not None or kind in ("VAR_POSITIONAL", "VAR_KEYWORD")
        row = [p.arg, ann, dflt, kind, optional]
        members = _union_paths(enclosing or scope, p.annotation) if ann is None and kind not in (
            "VAR_POSITIONAL", "VAR_KEYWORD") else []
        if members:
            row.append(members)  # each member of a union annotation is a value the parameter may hold
        params.append(row)
    staticish = any((_dotted(d) or "").split(".")[-1] == "staticmethod" for d in fn.decorator_list)
    out["defs"][key] = [cls if cls and not staticish else "", params, fn.lineno, _gives_value(own)]
    if cls and any((_dotted(d) or "").split(".")[-1] == "classmethod" for d in fn.decorator_list):
        out.setdefault("clsm", []).append(key)  # its first parameter is the class, not an object
    returns = _annotation_path(enclosing or scope, fn.returns) if fn.returns is not None else None
    if returns:  # `def current() -> Config:` what a caller gets, where no return statement says
        out.setdefault("retann", []).append([key, returns])
    if not cls and params and params[0][3] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
        _first_param_use(out, key, params[0][0], own)
    if enclosing is not None:
        scope = _Nested(scope, enclosing)
    _relations(out, scope, own, fn_key=key)
    sinks = str_sinks(fn, own, _params(fn), names.names.get, getattr(names, "tables", ()))
    if sinks:
        out.setdefault("strparam", []).extend([key] + row for row in sinks)
    _handed_reads(out, scope, own)
    _signature_tests(out, scope, own)
    _attribute_tests(out, scope, fn.body)
    kwarg = fn.args.kwarg.arg if fn.args.kwarg is not None and not cls and not fn.decorator_list else None
    closed, opened, own_keys = closed_dicts(own, scope, var_keyword=kwarg)
    out["closed"] += closed
    out["opened"] += [[root] for root in opened]
    if own_keys is not None:  # a plain function's `**kwargs`: known whole once its callers are
        out.setdefault("kwparam", []).append([key, scope.root(kwarg), own_keys])
    for node in own:
        if isinstance(node, _FUNCS):
            _function(out, names, node, prefix=qual + ".", cls="", outer=scope)
        elif isinstance(node, ast.ClassDef):
            _local_class(out, names, node, prefix=qual + ".", scope=scope)


_NOT_FILLERS = ("setattr", "getattr", "hasattr", "isinstance", "print", "len", "id", "type", "str", "repr")


def _handed_reads(out, scope, own):
    """`f(engine, state=state)` then `state.models`: a local handed whole to a call, with the
    attributes the function reads off it after that call (`handed` rows). The callee may be what
    fills them (`init_app_state` storing servers on the state it is given), which no assignment
    in the consumer shows."""
    calls = []
    for node in own:
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _NOT_FILLERS):
            for i, a in enumerate(node.args):
                if isinstance(a, ast.Starred):
                    break
                if isinstance(a, ast.Name):
                    calls.append((a.id, i, node))
            for k in node.keywords:
                if k.arg and isinstance(k.value, ast.Name):
                    calls.append((k.value.id, k.arg, node))
                elif k.arg is None and isinstance(k.value, ast.Name):  # `f(x, **kw)`, `kw = dict(state=state)`
                    calls += [(local, key, node) for key, local in _dict_of_names(own, k.value.id, scope)]
    if not calls:
        return
    reads, stored = {}, set()
    for node in own:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if isinstance(node.ctx, ast.Load):
                reads.setdefault(node.value.id, []).append((node.attr, node.lineno, node.col_offset, None))
            else:
                stored.add((node.value.id, node.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            stored.add((node.args[0].id, node.args[1].value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) in (2, 3) and isinstance(node.args[0], ast.Name) \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            # `getattr(state, "x", None)`: a read at the name's own line; with a default it never raises
            key = node.args[1]
            reads.setdefault(node.args[0].id, []).append(
                (key.value, key.lineno, key.col_offset, "default" if len(node.args) == 3 else None))
    for name, slot, call in calls:
        after = [[attr, line, col] + ([how] if how else []) for attr, line, col, how in reads.get(name, ())
                 if (line, col) > (call.end_lineno or call.lineno, call.end_col_offset or 0)
                 and (name, attr) not in stored]  # one the function sets itself is no callee's
        root, callee = scope.root(name), scope.path(call.func)
        if after and root and root.startswith("var:") and callee:
            out.setdefault("handed", []).append([root, callee, slot, call.lineno, after])


def _dict_of_names(own, name, scope):
    """[(key, local)] of the one assignment `name = dict(k=local, ...)` / `{"k": local}` among
    `own`: the plain locals a `**name` hands on, under the keyword each binds."""
    found = [n.value for n in own if isinstance(n, (ast.Assign, ast.AnnAssign))
             and any(isinstance(t, ast.Name) and t.id == name
                     for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    items = _literal_items(found[0], scope) if len(found) == 1 and found[0] is not None else None
    return [(key, value.id) for key, value, _line, _col in items or () if isinstance(value, ast.Name)]


def _local_class(out, names, node, *, prefix, scope):
    """A class made inside a function (`class Chat(Mixin, OpenAIServingChat): pass`, then
    `Chat(**kwargs)`): a consumer class like any other, under the function's qual, and the local
    name holds it."""
    qual = prefix + node.name
    dotted = names.module + "." + qual
    out["classes"][dotted] = [[scope.path(b) for b in node.bases], node.lineno]
    _walk_body(out, names, node.body, prefix=qual + ".", cls=dotted, scope=scope)
    root = scope.root(node.name)
    if root and root.startswith("var:"):
        out["assign"].append([root, ["sym:" + dotted]])


def _gives_value(own):
    """1 when some `return` hands back a value (or the function yields), else 0: an override
    whose base now returns something its callers use needs to know."""
    for node in own:
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return 1
        if isinstance(node, ast.Return) and node.value is not None \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            return 1
    return 0


class _Nested(_Scope):
    """A nested function: its own locals first, then the enclosing function's."""

    def __init__(self, own, enclosing):
        super().__init__(own.names, own.key, own.local, own.signature_names | enclosing.signature_names,
                         own.versions)
        self.enclosing = enclosing

    def root(self, name, node=None):
        if name in self.local:
            return super().root(name, node)
        return self.enclosing.root(name)  # the enclosing function's name, every binding of it


def _sources(scope, value):
    """The paths a value may be (probes/joins.py `alternatives`), each once; [None] when none has a path (a
    literal): an attribute store still records that the object now has the attribute."""
    out = []
    for alt in alternatives(value):
        if isinstance(alt, ast.Call) and len(alt.args) == 1 and not alt.keywords \
                and scope.path(alt.func) in _COPIERS:
            alt = alt.args[0]  # `copy.deepcopy(x)`: an object of x's class
        p = scope.path(alt)
        if p and p not in out:
            out.append(p)
    return out or [None]


def _local_import(out, scope, node):
    """`import vllm.x.runner as runner` inside a function whose other branch binds the same name
    (`except ImportError: runner = None`): the name is the function's local, and the import one of
    its values (an assign row), so `runner.Cls.m = patched` after it still reaches vLLM's class."""
    for name, dotted in _import_pairs(node, scope.names.module, scope.names.is_package):
        root = scope.root(name)
        if root is not None and root.startswith("var:"):
            out["assign"].append([root, ["sym:" + dotted]])


def _relations(out, scope, own, *, fn_key):
    strings = local_strings(own)
    for node in own:
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Assign):
            for src in _sources(scope, node.value):
                for t in node.targets:
                    _target(out, scope, t, src, node.lineno)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for src in _sources(scope, node.value):
                _target(out, scope, node.target, src, node.lineno)
        elif isinstance(node, ast.Return) and fn_key and isinstance(node.value, ast.Tuple) \
                and not any(isinstance(e, ast.Starred) for e in node.value.elts):
            for i, e in enumerate(node.value.elts):  # `return cfg, cls`: what each element may be
                for p in _sources(scope, e):
                    if p:
                        out.setdefault("tret", []).append([fn_key, i, p])
        elif isinstance(node, ast.Return) and fn_key and node.value is not None:
            for p in _sources(scope, node.value):
                if p:
                    out["ret"].append([fn_key, p])
        elif isinstance(node, ast.NamedExpr):  # `if cfg := vllm_config.attention_config:`
            for src in _sources(scope, node.value):
                _target(out, scope, node.target, src, node.lineno)
        elif isinstance(node, ast.Call):
            _call(out, scope, node, strings)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and fn_key:
            _local_import(out, scope, node)
        elif isinstance(node, ast.Delete):
            for t in node.targets:  # `del d["k"]`
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    obj = scope.path(t.value)
                    if obj:
                        out.setdefault("popkey", []).append([obj, t.slice.value])
        elif isinstance(node, (ast.If, ast.Assert)):
            _narrowed(out, scope, node)
            if isinstance(node, ast.If):
                _signature_pruned(out, scope, node)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    p = scope.path(v)
                    if p:
                        out["key"].append([k.value, p, node.lineno])
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            _dict_value(out, scope, node.targets[0], node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            _iteration(out, scope, node.target, node.iter)
        if isinstance(node, ast.Assign):
            for t in node.targets:  # d["k"] = v
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) \
                        and isinstance(t.slice.value, str):
                    p = scope.path(node.value)
                    if p:
                        out["key"].append([t.slice.value, p, node.lineno])
                    _key_written(out, scope, t.value, t.slice)


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _signature_of(node, held):
    """The callee C when `node` reads `inspect.signature(C)`, `.parameters` or `.parameters.keys()`
    of it, or C's own field table (`C.__dataclass_fields__`, a pydantic `C.model_fields`: the
    keywords its generated `__init__` takes), directly or through a local in `held` (name -> C)
    that holds one of those; else None."""
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "keys":
        node = node.func.value
    if isinstance(node, ast.Attribute) and node.attr in FIELD_TABLES:
        return node.value
    if isinstance(node, ast.Attribute) and node.attr == "parameters":
        node = node.value
    if isinstance(node, ast.Name):
        return held.get(node.id)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and (_dotted(node.func) or "").split(".")[-1] == "signature":
        return node.args[0]
    return None


def _span(body):
    return [body[0].lineno, max(getattr(n, "end_lineno", None) or n.lineno for n in body)] if body else None


def _signature_tests(out, scope, own):
    """`if "p" in inspect.signature(C).parameters:` (also through a local, `sig = inspect.signature(C)`
    then `"p" in sig.parameters`, and `not in`): a feature test on C's own signature. Each side of the
    branch runs only where C does (or does not) take `p`, which drift answers per vLLM release from
    the facts, so a keyword written for the other release's C is not a break (``sigtest`` [p, C path,
    lines run when C takes p, lines run when it does not, line])."""
    held = {}
    for node in own:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            callee = _signature_of(node.value, held)
            if callee is not None:
                held[node.targets[0].id] = callee
    for node in own:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn))
                and isinstance(test.left, ast.Constant) and isinstance(test.left.value, str)):
            continue
        callee = _signature_of(test.comparators[0], held)
        path = scope.path(callee) if callee is not None else None
        if not path:
            continue
        takes, lacks = _span(node.body), _span(node.orelse)
        if isinstance(test.ops[0], ast.NotIn):
            takes, lacks = lacks, takes
        out["sigtest"].append([test.left.value, path, takes, lacks, node.lineno])


def _blocks(body):
    """Every statement list of a function body (branches, loops, `try` parts, `with`), nested
    functions and classes left out: they run at another time."""
    todo = [body]
    while todo:
        block = todo.pop()
        yield block
        for st in block:
            if isinstance(st, _SCOPES):
                continue
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(st, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    todo.append(sub)
            for h in getattr(st, "handlers", None) or ():
                todo.append(h.body)


def _hasattr_of(test):
    """(object node, name, negated) for `hasattr(x, "name")` / `not hasattr(x, "name")`, and for
    the same question asked softly: `getattr(x, "name", None)` (`is not None`, `callable(...)`,
    negated, `is None`). An `x is None or not callable(getattr(x, "name", None))` test asks it
    negated too: its body runs where x lacks the name (or is None), so what follows an exiting
    body runs only where x has it. Else None."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        hits = [h for h in (_hasattr_of(v) for v in test.values) if h is not None and h[2]]
        return hits[0] if len(hits) == 1 else None
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        negated, test = negated != isinstance(test.ops[0], ast.Is), test.left
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "callable" \
            and len(test.args) == 1 and not test.keywords:
        test = test.args[0]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and not test.keywords \
            and (test.func.id == "hasattr" and len(test.args) == 2
                 or test.func.id == "getattr" and len(test.args) == 3
                 and isinstance(test.args[2], ast.Constant) and test.args[2].value is None) \
            and isinstance(test.args[1], ast.Constant) and isinstance(test.args[1].value, str):
        return test.args[0], test.args[1].value, negated
    return None


def _conjunct_hasattr(test):
    """`if tp > 1 and hasattr(x, "name"):`: the body runs only where x has the name (where x lacks
    it, for a `not hasattr` part), whatever the other parts say; the `else` runs for either reason,
    so it answers nothing. (object node, name, negated) of the one feature test among the parts."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    hits = [h for h in (_hasattr_of(v) for v in test.values if not isinstance(v, ast.BoolOp)) if h is not None]
    return hits[0] if len(hits) == 1 else None


def _attribute_tests(out, scope, body):
    """`if hasattr(X, "name"):` (and `not hasattr`): a feature test on X. Its body runs only where
    X has the name, its `else` (or, when the body always leaves the block, the statements after
    it) only where X lacks it; drift answers it per release from the facts, so the code written for
    the other release's X is not checked against this one (``hastest`` [name, X path, lines run
    when X has it, lines run when it does not, line])."""
    for block in _blocks(body):
        for i, st in enumerate(block):
            if not isinstance(st, ast.If):
                continue
            hit, conjunct = _hasattr_of(st.test), False
            if hit is None:
                hit, conjunct = _conjunct_hasattr(st.test), True
            if hit is None:
                continue
            obj, name, negated = hit
            path = scope.path(obj)
            if not path:
                continue
            when_true = _span(st.body)
            when_false = None if conjunct else _span(st.orelse) if st.orelse else \
                _span(block[i + 1:]) if st.body and isinstance(st.body[-1], _EXITS) else None
            has, lacks = (when_false, when_true) if negated else (when_true, when_false)
            out["hastest"].append([name, path, has, lacks, st.lineno])


def _signature_pruned(out, scope, node):
    """A dict pruned in place to what a callable accepts (reach.py `signature_pruned`): recorded as
    ``dictcomp`` [d, d, "signature", line], as a comprehension through the signature is."""
    for name in signature_pruned(node, scope.signature_names):
        root, path = scope.root(name), scope.path(ast.Name(id=name, ctx=ast.Load()))
        if root and path:
            out["dictcomp"].append([root, path, "signature", node.lineno])


def _narrowed(out, scope, node):
    """`assert isinstance(x, C)` and `if not isinstance(x, C): continue` (or return, raise,
    break): what follows runs only where x is a C, so x holds a C (an assignment of an instance;
    flow-insensitive, like every relation here)."""
    test = node.test
    if isinstance(node, ast.If):
        if node.orelse or not node.body or not isinstance(node.body[-1], _EXITS) \
                or not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return
        test = test.operand
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name)
            and isinstance(test.args[1], (ast.Name, ast.Attribute))):
        return
    root, cls = scope.root(test.args[0].id, test.args[0]), scope.path(test.args[1])
    if root and cls:
        out["assign"].append([root, cls + ["()"]])


def _target(out, scope, target, src, line):
    if src is None:
        if isinstance(target, ast.Attribute):  # `o.a = False`: no value to follow, but `o` now has `a`
            obj = scope.path(target.value)
            if obj:
                out.setdefault("attrset", []).append([obj, target.attr, line])
        return
    if isinstance(target, ast.Name):
        root = scope.root(target.id, target)
        if root:
            out["assign"].append([root, src])
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        for i, e in enumerate(target.elts):  # `cfg, cls = build()`: each name takes one element
            root = scope.root(e.id, e) if isinstance(e, ast.Name) else None
            if root:
                out["assign"].append([root, src + ["[%d]" % i]])
    elif isinstance(target, ast.Attribute):
        obj = scope.path(target.value)
        if obj:
            out["store"].append([obj, target.attr, src, line])


def _dict_value(out, scope, target, value):
    """`d = {"k": v, ...}` (the keys, where each is written) and `d = {k: v for k, v in src.items()
    if ...}` (which keys of src survive: all, or those a filter through `inspect.signature(C)
    .parameters` lets pass, which never reach C unaccepted). `target` is the assigned Name."""
    root = scope.root(target.id, target)
    if root is None:
        return
    if isinstance(value, ast.Dict):
        keys = [[k.value, k.lineno, k.col_offset] for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if keys:
            out["dict"].append([root, keys, value.lineno])
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and scope.root("dict") is None and not value.args:
        keys = [[k.arg, k.value.lineno, max(k.value.col_offset - len(k.arg) - 1, 0)] for k in value.keywords if k.arg]
        if keys:
            out["dict"].append([root, keys, value.lineno])
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        for part in (value.left, value.right):  # `d = defaults | overrides`: the keys of both
            keys = _literal_keys(part, scope)
            if keys:
                out["dict"].append([root, keys, part.lineno * 1000 + part.col_offset])
            elif isinstance(part, ast.Name):
                src = scope.path(part)
                if src:
                    out["assign"].append([root, src])
    elif isinstance(value, ast.DictComp) and len(value.generators) == 1:
        gen = value.generators[0]
        src = gen.iter.func.value if isinstance(gen.iter, ast.Call) and isinstance(gen.iter.func, ast.Attribute) \
            and gen.iter.func.attr in ("items", "keys") else gen.iter
        path = scope.path(src)
        if path:
            by_signature = any(reads_accepted_names(n) or isinstance(n, ast.Name) and n.id in scope.signature_names
                               for cond in gen.ifs for n in walk(cond))
            how = "signature" if by_signature else "filter" if gen.ifs else "keep"
            out["dictcomp"].append([root, path, how, value.lineno])


def _literal_items(value, scope):
    """`{"k": v}` or `dict(k=v)` -> [(key, value node, line, col)], where each key is written
    (None when not such a literal)."""
    if isinstance(value, ast.Dict):
        return [(k.value, v, k.lineno, k.col_offset) for k, v in zip(value.keys, value.values)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and scope.root("dict") is None and not value.args:
        return [(k.arg, k.value, k.value.lineno, max(k.value.col_offset - len(k.arg) - 1, 0))
                for k in value.keywords if k.arg]
    return None


def _literal_keys(value, scope):
    """`{"k": v}` or `dict(k=v)` -> [[key, line, col]] (None when not such a literal)."""
    items = _literal_items(value, scope)
    return None if items is None else [[key, line, col] for key, _v, line, col in items]


def _dict_update(out, scope, node):
    """`d.update({"k": v})`, `d.update(dict(k=v))`, `d.update(k=v)`: more keys of d, where written."""
    root = scope.root(node.func.value.id, node.func.value)
    if root is None:
        return
    if len(node.args) == 1 and not node.keywords:
        keys = _literal_keys(node.args[0], scope)
    elif not node.args:
        keys = [[k.arg, k.value.lineno, max(k.value.col_offset - len(k.arg) - 1, 0)] for k in node.keywords if k.arg]
    else:
        keys = None
    if keys:
        out["dict"].append([root, keys, node.lineno])


def _key_written(out, scope, obj, key):
    """`d["k"] = v` / `d.setdefault("k", v)` on a dict named by a local (a parameter too) or kept on
    `self`: one more key the dict may hold where it later reaches `**d` (a helper that fills the
    dict its caller hands it, `model_config.setdefault("swap_space", 4)`, then `Engine(**config)`)."""
    if isinstance(obj, ast.Name):
        root = scope.root(obj.id, obj)
        if root is None or not root.startswith("var:"):
            return
        rows = scope.__dict__.setdefault("written_rows", {})  # one row per dict and function: the solver
        row = rows.get(root)                                     # keeps a few values per name, not one per key
        if row is None:
            row = rows[root] = [root, [], key.lineno * 1000 + key.col_offset]
            out["dict"].append(row)
        row[1].append([key.value, key.lineno, key.col_offset])


def _iteration(out, scope, target, source):
    """`for k, v in d.items()`, `for k in d`: k takes d's keys."""
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in ("items", "keys"):
        source = source.func.value
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
    if isinstance(target, ast.Name):
        path, root = scope.path(source), scope.root(target.id, target)
        if path and root:
            out["iter"].append([root, path])


def _own_call(out, scope, node, callee):
    """A call of a consumer function by name (`launch(args, port=p, **opts)`), with every keyword
    it writes and the path of each `**d` (None where drift has none): which keys the callee's own
    `**kwargs` can receive, closed over the consumer's call graph by drift/consumer/infer.py."""
    if not callee or not all(step.startswith(".") for step in callee[1:]):
        return
    head = callee[0]
    if head.startswith("var:") and len(callee) > 1:
        return  # a method of a local's object, not a function the consumer defines
    if not (head.startswith("var:") or head[4:].split(".")[0] == scope.names.module.split(".")[0]):
        return  # a callable of another package: its `**kwargs` is not the consumer's
    stars = [scope.path(k.value) for k in node.keywords if k.arg is None]
    out.setdefault("owncall", []).append([callee, sorted({k.arg for k in node.keywords if k.arg}), stars, node.lineno])


def _call(out, scope, node, strings=None):
    if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "hasattr", "getattr") \
            and scope.root(node.func.id) is None and len(node.args) >= 2 \
            and not isinstance(node.args[1], ast.Constant):  # a name that comes from data
        obj, key = scope.path(node.args[0]), scope.path(node.args[1])
        if obj and key:
            out["dynattr"].append([node.func.id, obj, key, node.lineno, node.col_offset])
    if isinstance(node.func, ast.Name) and node.func.id == "setattr" and scope.root("setattr") is None:
        if len(node.args) == 3 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            obj = scope.path(node.args[0])
            for val in _sources(scope, node.args[2]) if obj else ():  # `fa if new else fb`: each may be bound
                if val:
                    out["store"].append([obj, node.args[1].value, val, node.lineno])
        return
    installed = patch_installation(node, scope.path, strings)
    if installed is not None:  # `patch("pkg.Cls.m", fn)` / `patch.object(Cls, "m", fn)`: a store like `Cls.m = fn`
        for val in _sources(scope, installed[2]):  # each arm of `fa if new else fb` is installed on some release
            if val:
                out["store"].append([list(installed[0]), installed[1], val, node.lineno])
    if isinstance(node.func, ast.Attribute) and node.func.attr == "update" and isinstance(node.func.value, ast.Name):
        _dict_update(out, scope, node)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        obj = scope.path(node.func.value)  # `d.pop("k")`: the key never reaches a later `**d`
        if obj:
            out.setdefault("popkey", []).append([obj, node.args[0].value])
    if isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" and len(node.args) == 2 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        _key_written(out, scope, node.func.value, node.args[0])
    if isinstance(node.func, ast.Name) and node.func.id == "dict" and scope.root("dict") is None:
        for k in node.keywords:  # `dict(k=v)` is the dict literal `{"k": v}`
            p = scope.path(k.value) if k.arg else None
            if p:
                out["key"].append([k.arg, p, node.lineno])
    callee = scope.path(node.func)
    _own_call(out, scope, node, callee)
    inner = inner_call(node, callee)  # `asyncio.to_thread(f, x)`, `Thread(target=f, args=(x,))`: f(x)
    if inner is not None:
        _call(out, scope, inner, strings)
    if callee is None:
        return
    for k in node.keywords:
        if k.arg is None:
            p = scope.path(k.value)
            if p:
                out["starkw"].append([callee, p, node.lineno, node.col_offset])
    stars = [k.value for k in node.keywords if k.arg is None]
    if stars and all(isinstance(v, ast.Name) for v in stars) and not any(isinstance(a, ast.Starred) for a in node.args):
        paths = [scope.path(v) for v in stars]
        if all(paths):  # every `**d` of the call, for a callee whose keywords may then be all known
            out["starcall"].append([paths, node.lineno])
    args = [scope.path(a) if not isinstance(a, ast.Starred) else None for a in node.args]
    kwargs = {k.arg: scope.path(k.value) for k in node.keywords if k.arg}
    kwargs = {k: v for k, v in kwargs.items() if v}
    if any(args) or kwargs:
        out["call"].append([callee, args, kwargs, node.lineno])
