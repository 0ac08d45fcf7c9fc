"""How a consumer module uses a target package: a pure function from source to JSON.

Runs beside the fact collectors (stdlib only, Python 3.9+), so `drift scan` reads the
consumer on the host in the same round trip. Only uses that reach the target package
(e.g. every name imported from `vllm`) are recorded: imports, calls with their keywords and
positional count, instances made and the methods later called on them (`self.x = Cls(...)`,
then `self.x.m(...)`), how call results are used (indexed, iterated, truth-tested), and
functions bound onto foreign objects (`types.MethodType(fn, obj)`) with what they call on self.
"""

import ast
import re

from .astwalk import memoised, walk
from .reach import (_dotted, _src, catches_import_error, compound_guards, decorator_guard, flag_constants,  # one copy
                    reach_facts, string_constants, unpacking, version_guard)
from .reach import _relative as _resolve_relative
from .ir import ir_facts
from .routes import routed_name
from .name_loads import evaluated_chains, evaluated_loads
from .reexports import REEXPORTED, module_exports, rewrite_imports, thin_subclasses
from .star_imports import STAR, expand_star_imports
from .links import lone_classes, parsed_links, private_methods
from .torch_ops import op_defs, op_uses
from .built_namespaces import built_namespaces
from .extra_body import extra_body_keys
from .app_state import app_state_reads
from .env_sets import env_sets
from .links import lone_classes, parsed_links
from .splits import axis_splits
from .kv_reads import buffer_reads
from .cli_args import namespace_params, namespaces, own_options, parser_params
from .string_paths import caught_here, importers, string_paths, wrapped_targets


def _caught(handler):
    """What an except clause names: `ImportError`, `(ImportError, AttributeError)`, bare."""
    return _dotted(handler.type) or ("bare" if handler.type is None else "several")


class _Imports(ast.NodeVisitor):
    """Every import binding anywhere in the module (function-level imports included)."""

    def __init__(self, module, is_package, prefixes):
        self.module, self.is_package, self.prefixes = module, is_package, prefixes
        self.bindings = {}  # local -> dotted target
        self.records = []
        self.guarded = 0  # > 0 inside try/except ImportError or `if TYPE_CHECKING:`
        self.versions = []  # version tests around the import (reach.version_guard)
        self.own_names = {}  # every name imported here, for resolving a version helper's module
        self.consts = {}  # module-level string constants (a version gate may name one)
        self.flags = {}  # module-level True/False switches (reach.flag_constants)
        self.top = module.split(".")[0]
        self.own = []  # [dotted, guards or None]: the package's own modules imported or named here (probes/links.py)
        self.paths = {}  # id(string node) -> what probes/string_paths.py read in it
        self.strings = []  # the target paths strings name where they are written (probes/string_paths.py)
        self.caught = 0  # > 0 inside a try whose handlers catch a failed resolution
        # a private module-level function called only under one version test (`match version: case
        # "0.9.2": _apply_patches_v092()`): what it imports loads only there (`_gate_installers`)
        self.top_fns = set()  # the module's own top-level function names
        self.fn = None  # the top-level function being walked
        self.in_class = 0
        self.fn_calls = {}  # top-level function -> the version tests around each call of it here
        self.called = set()  # ids of Name nodes that are a call's callee
        self.escaped = set()  # top-level functions named other than as a callee (handed on, exported)
        self.own_in = {}  # index in `own` -> the top-level function its import is in
        self.records_in = {}  # index in `records` -> likewise

    def _own(self, dotted, from_base=False, line=None):
        if dotted == self.top or dotted.startswith(self.top + "."):
            tail = ["from"] if from_base else ["string", line] if line is not None else []
            if self.fn is not None:
                self.own_in[len(self.own)] = self.fn
            self.own.append([dotted, list(self.versions) or None] + tail)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and len(node.value) < 300 and node.value.startswith(self.top):
            self._own(node.value.replace(":", ".").replace("/", "."), line=node.lineno)
        named = self.paths.get(id(node))
        if named is not None:
            rec = dict(named, line=node.lineno, col=node.col_offset)
            via = rec.pop("via", None)
            if via:  # the callee as the package names it: an imported function, or one of this module
                head, _, rest = via.partition(".")
                own = self.own_names.get(head)
                rec["via"] = (own[0][4:] if own else self.module + "." + head) + ("." + rest if rest else "")
            if self.guarded or self.caught:
                rec["guarded"] = True
            if self.versions:
                rec["guards"] = list(self.versions)
            self.strings.append(rec)

    def visit_Try(self, node):
        catches = any(catches_import_error(h) for h in node.handlers)
        self.guarded += catches
        caught = caught_here(node)
        self.caught += caught
        start = len(self.records)
        before = dict(self.bindings)
        for st in node.body:
            self.visit(st)
        self.guarded -= catches
        self.caught -= caught
        first_choice = {k: v for k, v in self.bindings.items() if before.get(k) != v}
        tried = [r["target"] for r in self.records[start:]]
        if catches:  # what the except path is taken on: a name gone makes it the only path (DRIFT077)
            caught = sorted({_caught(h) for h in node.handlers})
            for r in self.records[start:]:
                if "tried" not in r:
                    r["tried"], r["try_line"] = caught, node.lineno
        for h in node.handlers:
            first = len(self.records)
            self.visit(h)
            if catches and tried:  # a fallback: it runs only when an import above failed
                for r in self.records[first:]:
                    r["fallback_for"] = tried
                self.bindings.update(first_choice)  # the code is written against the first choice
        for part in node.orelse + node.finalbody:
            self.visit(part)

    visit_TryStar = visit_Try

    def _names(self):
        """Local name -> root path, as reach.version_guard resolves a helper's module."""
        names = dict(self.own_names)
        names.update({k: ("sym:" + v,) for k, v in self.bindings.items()})
        return names

    def _block(self, stmts):
        """Statements in order; after `if <version test>: return`, the rest runs only when the
        test is false (an early exit is a version branch too)."""
        pushed = 0
        for st in stmts:
            self.visit(st)
            if isinstance(st, ast.If) and not st.orelse and st.body and isinstance(st.body[-1], (ast.Return, ast.Raise)):
                guard = version_guard(st.test, self._names(), self.flags)
                if guard is not None:
                    self.versions.append(dict(guard, negated=not guard.get("negated")))
                    pushed += 1
        del self.versions[len(self.versions) - pushed:]

    def visit_Module(self, node):
        self.top_fns = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self._block(node.body)
        self._gate_installers()

    def _gate_installers(self):
        """Give the imports inside a private top-level function the version tests around its calls,
        where every call of it in the module sits under the same non-empty tests and nothing else
        names it (no other module calls a `_name`; a name handed on may run anywhere)."""
        gates = {}
        for fn, sites in self.fn_calls.items():
            if fn.startswith("_") and fn not in self.escaped and sites and all(sites) \
                    and len({repr(s) for s in sites}) == 1:
                gates[fn] = sites[0]
        for i, fn in self.own_in.items():
            if fn in gates:
                self.own[i][1] = list(gates[fn]) + list(self.own[i][1] or [])
        for i, fn in self.records_in.items():
            if fn in gates:
                self.records[i]["guards"] = list(gates[fn]) + list(self.records[i].get("guards") or [])

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)  # a default may name a module of the package (`cls="pkg.mod.C"`)
        gate = decorator_guard(node, self.consts)  # `@version_range(">=0.8,<0.9")`: imports inside are gated
        if gate:
            self.versions.append(gate)
        outer = self.fn
        if outer is None and not self.in_class and node.name in self.top_fns:
            self.fn = node.name
        self._block(node.body)
        self.fn = outer
        if gate:
            self.versions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        gate = decorator_guard(node, self.consts)
        if gate:
            self.versions.append(gate)
        self.in_class += 1
        self.generic_visit(node)
        self.in_class -= 1
        if gate:
            self.versions.pop()

    def visit_Name(self, node):
        if node.id in self.top_fns and id(node) not in self.called and isinstance(node.ctx, ast.Load):
            self.escaped.add(node.id)

    def visit_Match(self, node):
        """`match version: case "0.9.2": ...`: each case a version test on the subject (an `or`
        pattern, any of its values; the wildcard, none of the unguarded cases above it)."""
        self.visit(node.subject)
        above = []
        for case in node.cases:
            pattern, body = case.pattern, []
            values = pattern.patterns if type(pattern).__name__ == "MatchOr" else [pattern]
            tests = [version_guard(ast.Compare(left=node.subject, ops=[ast.Eq()], comparators=[p.value]),
                                   self._names(), self.flags)
                     if type(p).__name__ == "MatchValue" else None for p in values]
            if type(pattern).__name__ == "MatchAs" and pattern.pattern is None:
                body = [dict(g, negated=not g.get("negated")) for g in above] if all(above) else []
            elif tests and all(tests):
                body = [tests[0]] if len(tests) == 1 else [{"any": tests}]
                if case.guard is None:
                    above.append(body[0])
            else:
                above.append(None)
            if case.guard is not None:
                self.visit(case.guard)
            self.versions.extend(body)
            for st in case.body:
                self.visit(st)
            del self.versions[len(self.versions) - len(body):]

    def visit_If(self, node):
        test = _dotted(node.test) or ""
        flag = test.split(".")[-1] == "TYPE_CHECKING"
        guard = version_guard(node.test, self._names(), self.flags)
        if guard is not None:
            body, orelse = [guard], [dict(guard, negated=not guard.get("negated"))]
        else:
            body, orelse = compound_guards(node.test, self._names(), self.flags)
        self.guarded += flag
        self.versions.extend(body)
        for st in node.body:
            self.visit(st)
        del self.versions[len(self.versions) - len(body):]
        self.guarded -= flag
        self.versions.extend(orelse)
        for st in node.orelse:
            self.visit(st)
        del self.versions[len(self.versions) - len(orelse):]

    def _record(self, local, target, line, statement="from", col=None):
        rec = {"local": local, "target": target, "line": line, "statement": statement}
        if self.fn is not None:
            self.records_in[len(self.records)] = self.fn
        if col is not None:
            rec["col"] = col
        if self.guarded:
            rec["guarded"] = True
        if self.versions:
            rec["guards"] = list(self.versions)
        self.records.append(rec)

    def _keep(self, target):
        return any(target == p or target.startswith(p + ".") for p in self.prefixes)

    def visit_Call(self, node):
        """`importlib.import_module("vllm.x")` / `__import__("vllm.x")` with a literal name: an
        import of that module where it is written (it fails there as an import statement would);
        it binds no name here."""
        f = node.func
        if isinstance(f, ast.Name) and f.id in self.top_fns:
            self.called.add(id(f))
            self.fn_calls.setdefault(f.id, []).append(list(self.versions))
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            text = node.args[0].value
            if self._keep(text) and all(part.isidentifier() for part in text.split(".")):
                self._record(None, text, node.args[0].lineno, "import_module", node.args[0].col_offset)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self._own(alias.name)
            local = alias.asname or alias.name.split(".")[0]
            target = alias.name if alias.asname else alias.name.split(".")[0]
            if self._keep(alias.name):
                self.bindings[local] = target
                self._record(local, alias.name, getattr(alias, "lineno", node.lineno), "import",
                             getattr(alias, "col_offset", None))

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level:
            mod = _resolve_relative(self.module, self.is_package, node.level, node.module)
        self._own(mod, from_base=not any(a.name == "*" for a in node.names))  # `import *` takes every name
        if getattr(node, STAR, None):  # a star's free names (probes/star_imports.py): bound, not recorded
            for alias in node.names:
                if alias.name != "*" and self._keep(mod + "." + alias.name):
                    self.bindings[alias.name] = mod + "." + alias.name
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            target = mod + "." + alias.name
            self._own(target)
            self.own_names[alias.asname or alias.name] = ("sym:" + target,)
            if self._keep(target):
                local = alias.asname or alias.name
                self.bindings[local] = target
                if getattr(node, REEXPORTED, False):
                    continue  # taken from a module of the package that imports it: that import is the use
                # each imported name where it is written (3.10+ ASTs place aliases)
                self._record(local, target, getattr(alias, "lineno", node.lineno), "from",
                             getattr(alias, "col_offset", None))
                self.records[-1]["stmt_line"] = node.lineno
                self.records[-1]["module"] = mod


def _functions(tree):
    """(qualname, class_name or None, node) for every def, methods included."""
    out = []

    def walk(body, prefix, cls):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + node.name, cls, node))
                walk(node.body, prefix + node.name + ".", None)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".", prefix + node.name)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for sub in getattr(node, field, []) or []:
                        walk(getattr(sub, "body", [sub]) if isinstance(sub, ast.ExceptHandler) else [sub], prefix, cls)

    walk(tree.body, "", None)
    return out


class _Scope:
    """Resolves expressions to references into the target: a symbol, an instance, a result."""

    def __init__(self, bindings, self_attrs):
        self.bindings = bindings
        self.self_attrs = self_attrs  # attr -> ref (class-wide, from self.x = ...)
        self.locals = {}  # name -> ref

    def ref(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                return self.locals[node.id]
            if node.id in self.bindings:
                return {"symbol": self.bindings[node.id]}
            return None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.self_attrs:
                return self.self_attrs[node.attr]
            base = self.ref(node.value)
            if base and "symbol" in base:
                return {"symbol": base["symbol"] + "." + node.attr}
            if base and "instance" in base:
                return {"member": base["instance"], "name": node.attr}
            return None
        if isinstance(node, ast.Call):
            base = self.ref(node.func)
            if base and "symbol" in base:
                return {"instance": base["symbol"]}  # drift decides: class -> instance, func -> result
            if base and "member" in base:
                return {"result_of": base["member"], "method": base["name"]}
            return None
        if isinstance(node, ast.NamedExpr):
            return self.ref(node.value)
        return None


def _self_attr_refs(class_methods, bindings):
    """Class-wide `self.x = <target call>` assignments: attr -> ref."""
    attrs = {}
    scope = _Scope(bindings, attrs)
    for _ in range(2):  # a second pass lets self.b = self.a.make() see self.a
        for node in class_methods:
            for sub in walk(node):
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    tgt = sub.targets[0]
                    if (isinstance(tgt, ast.Attribute) and isinstance(tgt.value, ast.Name)
                            and tgt.value.id == "self"):
                        ref = scope.ref(sub.value)
                        if ref and ("instance" in ref or "result_of" in ref):
                            attrs[tgt.attr] = ref
    return attrs


def _callee(scope, call, target_base=None):
    func = call.func
    if (target_base and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"):
        # super().__init__(...) in a subclass of a target class: the base's constructor
        if func.attr == "__init__":
            return {"symbol": target_base, "via": "super"}
        return {"receiver": target_base, "method": func.attr, "via": "super"}
    ref = scope.ref(call.func)
    if not ref:
        return None
    if "symbol" in ref:
        return {"symbol": ref["symbol"]}
    if "member" in ref:
        return {"receiver": ref["member"], "method": ref["name"]}
    return None


def _result_uses(func_node, var, after_line, source_lines):
    """How a local holding a call result is used later in the same function."""
    uses = {"indexed": [], "iterated": [], "truth_tested": [], "attributes": []}
    derived = {}  # name assigned from var[...] -> index record
    for node in walk(func_node):
        line = getattr(node, "lineno", 0)
        if line < after_line:
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == var \
                and isinstance(node.ctx, ast.Load):  # `out.sampled_token_ids`: fails first when the result is None
            uses["attributes"].append({"line": node.lineno, "attr": node.attr})
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            val = node.value
            if isinstance(val, ast.Subscript) and isinstance(val.value, ast.Name) and val.value.id == var:
                rec = {"line": val.lineno, "index": _src(source_lines, val.slice), "into": node.targets[0].id,
                       "then_truth_tested": []}
                derived[node.targets[0].id] = rec
                uses["indexed"].append(rec)
                continue
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == var \
                and isinstance(node.ctx, ast.Load):
            if not any(r["line"] == node.lineno for r in uses["indexed"]):
                uses["indexed"].append({"line": node.lineno, "index": _src(source_lines, node.slice), "into": None,
                                        "then_truth_tested": []})
        if isinstance(node, (ast.For, ast.comprehension)):
            it = node.iter
            if isinstance(it, ast.Name) and it.id == var:
                uses["iterated"].append({"line": it.lineno})
    for name, line in _truth_tests(func_node, after_line):
        if name == var:
            uses["truth_tested"].append({"line": line})
        elif name in derived:
            derived[name]["then_truth_tested"].append(line)
    return uses


def _truth_tests(func_node, after_line):
    """(name, line) for every bare name used as a condition: if x / if not x / while x / x and y."""
    out = []

    def cond(expr):
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            cond(expr.operand)
        elif isinstance(expr, ast.BoolOp):
            for v in expr.values:
                cond(v)
        elif isinstance(expr, ast.Name) and expr.lineno >= after_line:
            out.append((expr.id, expr.lineno))

    for node in walk(func_node):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            cond(node.test)
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                cond(test)
    return out


def _bound_functions(tree, source_lines):
    """Functions bound onto objects with types.MethodType: what they use on `self`."""
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    binds = []
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func) or ""
        if name.split(".")[-1] != "MethodType" or len(node.args) < 2:
            continue
        fn = node.args[0]
        if not isinstance(fn, ast.Name) or fn.id not in defs:
            continue
        fdef = defs[fn.id]
        self_name = fdef.args.args[0].arg if fdef.args.args else "self"
        calls, attrs = {}, {}
        for sub in walk(fdef):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id == self_name:
                calls.setdefault(sub.func.attr, []).append(sub.lineno)
            elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                    and sub.value.id == self_name and isinstance(sub.ctx, ast.Load):
                attrs.setdefault(sub.attr, []).append(sub.lineno)
        for m in calls:
            attrs.pop(m, None) if attrs.get(m) == calls[m] else None
        binds.append({
            "line": node.lineno, "function": fn.id, "function_line": fdef.lineno,
            "onto": _src(source_lines, node.args[1]),
            "params": [a.arg for a in fdef.args.args],
            "self_calls": {k: sorted(set(v)) for k, v in calls.items()},
            "self_attrs": {k: sorted(set(v)) for k, v in attrs.items() if k not in calls},
        })
    return binds


def usage_facts(source, *, module, path, prefixes, is_package=False, handed=False, reexports=None):
    """The usage record of one consumer module (see SCHEMA.md, "Usage").

    `handed`: the module never names the target, but a module that does uses one of its classes
    as a value (probes/consumer_scan.py `_handed_modules`): its classes and IR are recorded, since
    the target may receive such a class (a duck-typed backend an override returns). "methods": one
    of its functions is bound as a method of a target class, so it is read in full as a module
    naming the target is (its first parameter's uses are the target's `self`).
    `reexports`: {consumer dotted name: target dotted} of names other modules of the package hand
    on (probes/reexports.py)."""
    with memoised():  # the extractors below walk the same trees again and again
        return _usage_facts(source, module=module, path=path, prefixes=prefixes, is_package=is_package,
                            handed=handed, reexports=reexports)


def _usage_facts(source, *, module, path, prefixes, is_package, handed=False, reexports=None):
    try:
        text = source.decode("utf-8") if isinstance(source, bytes) else source
        tree = ast.parse(text)
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        return {"module": module, "path": path, "error": "%s: %s" % (type(exc).__name__, exc),
                "imports": [], "calls": [], "binds": [], "subclasses": [], "classes": {}, "uses": [],
                "patches": [], "patchers": {}}
    lines = text.splitlines()
    links = None
    if reexports:
        own = _Imports(module, is_package, tuple(prefixes))  # the package's own links, as written
        own.visit(tree)
        links = parsed_links(own.own, text, module, is_package)
        rewrite_imports(tree, module, is_package, reexports)
    stars = expand_star_imports(tree, module, is_package, prefixes) if "import *" in text else []
    imports = _Imports(module, is_package, tuple(prefixes))
    imports.consts = string_constants(tree)
    imports.flags = flag_constants(tree)
    roots = {p.split(".")[0] for p in prefixes}
    quotes = any(q + r + "." in text for r in roots for q in "\"'")  # only a file that quotes a target path
    if quotes:
        imports.paths = string_paths(tree, prefixes)
    resolvers = importers(tree) if "import_module" in text or "__import__" in text else []
    imports.visit(tree)
    out = {"module": module, "path": path, "error": None, "imports": imports.records,
           "calls": [], "binds": [], "subclasses": [], "classes": {}, "uses": [], "patches": [], "patchers": {},
           "links": links if links is not None else parsed_links(imports.own, text, module, is_package)}
    if stars:
        out["star_imports"] = stars
    if "torch.ops." in text:
        ops = op_uses(tree)
        if ops:
            out["op_calls"] = ops
    if "Namespace(" in text:
        built = built_namespaces(tree)
        if built:
            out["built_namespaces"] = built
    if "custom_op" in text or ".define(" in text:
        own_ops = op_defs(tree)
        if own_ops:
            out["op_defs"] = own_ops
    if "environ" in text or "putenv" in text or "setenv" in text:  # settings the consumer chooses itself
        chosen = env_sets(tree)
        if chosen:
            out["env_sets"] = chosen
    if "app.state" in text:  # serving objects read back by name off the server app's state (probes/app_state.py)
        state_reads = app_state_reads(tree)
        if state_reads:
            out["app_state"] = state_reads
    if "extra_body" in text:  # request fields sent to a server over HTTP (no import of the target needed)
        sent = extra_body_keys(tree)
        if sent:
            out["extra_body"] = sent
    exports = module_exports(tree, prefixes)
    if exports:
        exports.update(thin_subclasses(tree, exports))  # `class R(vLLMR): model_config = ...`: handed on as vLLM's
        out["exports"] = exports
    if '"method"' in text or "'method'" in text:  # methods sent by name to routes (a remote client)
        sent = [list(r) for n in walk(tree) if isinstance(n, ast.Call) for r in [routed_name(n)] if r]
        if sent:
            out["routed"] = sent
    if quotes and "wrap" in text:  # wrapt-style hooks: (module, "Cls.attr") pairs
        imports.strings.extend(wrapped_targets(tree, prefixes))
    if imports.strings:
        out["string_paths"] = imports.strings
    if resolvers:
        out["string_resolvers"] = resolvers
    if "Namespace" in text or "args" in text:
        ns_params = namespace_params(tree)  # where a Namespace another module parsed is read
        if ns_params:
            out["namespace_params"] = ns_params
    if "parse_args" in text or "parse_known_args" in text:
        # `args = parser.parse_args()` of a parser vLLM filled, here or through a helper of the package
        found = namespaces(tree, imports.bindings, imports.own_names)
        if found:
            out["cli_namespaces"] = found
    if imports.bindings and "parser" in text:
        fillers = parser_params(tree, imports.bindings)  # helpers that hand a parser to vLLM's builders
        if fillers:
            out["parser_params"] = fillers
        added = own_options(tree, imports.bindings, imports.own_names)  # the consumer's own flags on a parser vLLM fills too
        if added:
            out["cli_own_options"] = added
    lone = lone_classes(tree, text)
    if lone:
        out["lone_classes"] = lone
    private = private_methods(tree)
    if private:
        out["private_methods"] = private
    named = _named_modules(tree, prefixes) if not imports.bindings else []
    if named:  # reaches the target only through strings (`importlib.import_module("vllm.x")`)
        out["named_modules"] = named
    if not imports.bindings and not named and handed != "methods":
        if "setattr(" in text:
            from .reach import _patchers
            out["patchers"] = _patchers(tree)
        if handed or NAMES_A_CLASS.search(text) or SERVES_NAMES.search(text):  # a config's `worker_extension_cls =
            # "pkg.ext.Sync"`: the class vLLM gets; a module `__getattr__` serving names typed by their annotations
            out["ir"] = ir_facts(tree, module=module, is_package=is_package)
        if handed:  # its classes as the target will see them (members, what they set on self)
            out["classes"] = reach_facts(tree, module=module, is_package=is_package, prefixes=prefixes,
                                         lines=text.splitlines())["classes"]
        elif NAME_GETTER.search(text):  # a patch framework's base: subclasses elsewhere call its getter
            classes = reach_facts(tree, module=module, is_package=is_package, prefixes=prefixes,
                                  lines=text.splitlines())["classes"]
            if any(c.get("name_getters") for c in classes.values()):
                out["classes"] = classes
        return out
    bindings = imports.bindings

    class_methods = {}
    for qual, cls, node in _functions(tree):
        if cls:
            class_methods.setdefault(cls, []).append(node)
    self_attrs = {cls: _self_attr_refs(nodes, bindings) for cls, nodes in class_methods.items()}

    for node in walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                d = _dotted(base)
                if d and d.split(".")[0] in bindings:
                    head, _, rest = d.partition(".")
                    out["subclasses"].append({"line": node.lineno, "name": node.name,
                                              "base": bindings[head] + ("." + rest if rest else "")})

    target_bases = {}
    for sub in out["subclasses"]:
        target_bases.setdefault(sub["name"], sub["base"])
    claimed = set()  # a call inside a nested def belongs to the innermost function only
    for qual, cls, fnode in reversed(_functions(tree)):
        scope = _Scope(bindings, self_attrs.get(cls, {}) if cls else {})
        base_of_cls = target_bases.get(cls.rsplit(".", 1)[-1]) if cls else None
        # local bindings, in source order (good enough for straight-line code)
        assigns = sorted((n for n in walk(fnode) if isinstance(n, (ast.Assign, ast.NamedExpr))),
                         key=lambda n: (n.lineno, n.col_offset))
        result_vars = {}
        unpacks = {id(u[0]): u[1] for u in (unpacking(a) for a in assigns if isinstance(a, ast.Assign)) if u}
        for a in assigns:
            target = a.targets[0] if isinstance(a, ast.Assign) and len(a.targets) == 1 else getattr(a, "target", None)
            if isinstance(target, ast.Name):
                ref = scope.ref(a.value)
                if ref:
                    scope.locals[target.id] = ref
                if isinstance(a.value, ast.Call):
                    result_vars[id(a.value)] = (target.id, a.lineno)
        for call in (n for n in walk(fnode) if isinstance(n, ast.Call)):
            if id(call) in claimed:
                continue
            claimed.add(id(call))
            callee = _callee(scope, call, base_of_cls)
            if not callee:
                continue
            rec = {
                "line": call.lineno, "end_line": call.end_lineno, "function": qual,
                "callee": callee, "callee_src": _src(lines, call.func),
                "positional": sum(1 for a in call.args if not isinstance(a, ast.Starred)),
                "star_args": any(isinstance(a, ast.Starred) for a in call.args),
                "keywords": [k.arg for k in call.keywords if k.arg],
                "star_kwargs": any(k.arg is None for k in call.keywords),
                "kw_values": {k.arg: _src(lines, k.value) for k in call.keywords if k.arg},
                "result": None,
            }
            if callee.get("via") == "super" and not rec["star_args"]:
                # what a base constructor is handed by position (the objects it may keep on `self`)
                rec["pos_values"] = [_src(lines, a) for a in call.args]
            if id(call) in unpacks:
                rec["unpacked"] = unpacks[id(call)]
            if id(call) in result_vars:
                var, line = result_vars[id(call)]
                rec["result"] = dict(_result_uses(fnode, var, line, lines), var=var)
            out["calls"].append(rec)
        # direct uses of a call result: f()[0], for x in f(), if f()
        for node in walk(fnode):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
                _mark_direct(out["calls"], node.value, "indexed",
                             {"line": node.lineno, "index": _src(lines, node.slice), "into": None,
                              "then_truth_tested": []})
    out["binds"] = _bound_functions(tree, lines)
    functions = _functions(tree)
    splits = axis_splits(functions)
    if splits:
        out["splits"] = splits
    kv_reads = buffer_reads(functions)
    if kv_reads:
        out["kv_reads"] = kv_reads
    _merge_reach(out, reach_facts(tree, module=module, is_package=is_package, prefixes=prefixes, lines=lines))
    out["ir"] = ir_facts(tree, module=module, is_package=is_package)  # relations for drift's inference
    _add_name_loads(out, tree)
    out["calls"].sort(key=lambda c: (c["line"], c["callee_src"]))
    return out


# `worker_extension_cls: str = "pkg.mod.Ext"` (a field, keyword or assignment whose name ends like the
# target's class-naming keys, drift/consumer/infer.py `_NAMING_KEYS`, given a dotted class name)
NAMES_A_CLASS = re.compile(r"\b\w+_(?:cls|class)\s*(?::[^=\n]*)?=\s*\(?\s*[\"'][\w.]+[.:]\w+[\"']")

# a module `__getattr__` beside a module-level name declared with a type and no value (`if TYPE_CHECKING:
# current: Platform`): the module serves the name, as the annotation says (probes/ir.py `_served_names`)
SERVES_NAMES = re.compile(r"(?m)^def __getattr__\(")

# `return getattr(mod, self.target_class ...)`: a method handing back the class a subclass names
NAME_GETTER = re.compile(r"return\s+getattr\(\s*[\w.]+\s*,\s*(?:self|cls)\.\w+\s*[,)]")


def _named_modules(tree, prefixes):
    """Target modules this module names only as strings (a patch registry's `target_module =
    "vllm.x"`, `importlib.import_module("vllm.x")`): up to 20, sorted."""
    out = set()
    for node in walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200 \
                and any(node.value.startswith(p + ".") for p in prefixes) \
                and all(part.isidentifier() for part in node.value.split(".")):
            out.add(node.value)
    return sorted(out)[:20]


def _add_name_loads(out, tree):
    """Each place Python evaluates a name of an unguarded `from` import of the target (an
    annotation, a base, a default, a bare value): DRIFT005 reports a removed name at each."""
    imported = {}
    for imp in out["imports"]:
        if imp.get("statement") == "from" and not imp.get("guarded") and imp.get("local") and imp.get("target"):
            imported.setdefault(imp["local"], imp["target"])
    loads = evaluated_loads(tree, imported) if imported else []
    if loads:
        out["name_loads"] = [{"path": ["sym:" + imported[r["local"]]], "line": r["line"], "col": r["col"],
                              "function": r["function"], "where": r["where"], "callee_src": r["local"]}
                             for r in loads]
    _add_chain_loads(out, tree)


def _add_chain_loads(out, tree):
    """Each attribute chain through an imported module (or a `from`-imported name) that Python
    evaluates when a `def` or `class` runs (`-> mk.Experts`, a base `a.b.Base`), as an attribute
    read: DRIFT060 reports a name the target dropped from that module there, where the module loads."""
    modules = {}
    for imp in out["imports"]:
        local, target = imp.get("local"), imp.get("target")
        if imp.get("guarded") or not local or not target:
            continue
        if imp.get("statement") == "import":
            modules.setdefault(local, target if local != target.split(".")[0] else local)
        elif imp.get("statement") == "from":  # `from a.b import mk` (a module or a class): `mk.X`
            modules.setdefault(local, target)
    if not modules:
        return
    have = {(u.get("line"), tuple(u.get("path") or ())) for u in out["uses"] if u.get("kind") == "attr"}
    for r in evaluated_chains(tree, modules):
        if (r["line"], tuple(r["path"])) not in have:
            have.add((r["line"], tuple(r["path"])))
            out["uses"].append({"kind": "attr", "path": r["path"], "line": r["line"], "col": r["col"],
                                "function": None if r["function"] == "<module>" else r["function"],
                                "where": r["where"]})


def _merge_reach(out, reach):
    """Add the typed-path uses; a call both extractors saw keeps one record, with the exact
    site (the called name's line and column) and the keywords that flowed in through dicts."""
    by_key = {(c["line"], c["callee_src"]): c for c in out["calls"]}
    for new in reach["calls"]:
        old = by_key.get((new["call_line"], new["callee_src"]))
        if old is None:
            out["calls"].append(new)
            continue
        if new.get("narrowed"):  # an isinstance test typed the receiver: its class, not the attribute's
            old["callee"], old["narrowed"] = new["callee"], True
            by_key.pop((new["call_line"], new["callee_src"]))  # a tuple's other classes: their own records
        old["line"], old["col"] = new["line"], new["col"]
        old["kw_cols"], old["via_dict"] = new["kw_cols"], new["via_dict"]
        old["keywords"], old["star_kwargs"] = new["keywords"], new["star_kwargs"]
        old["path"] = new["callee"]["path"]
        old["call_line"] = new["call_line"]
        if new.get("guards"):
            old["guards"] = new["guards"]
        if new.get("class_args"):  # consumer classes the call hands to the target
            old["class_args"] = new["class_args"]
        # shapes: probes/shapes.py; awaited: DRIFT033 (`x = await self.engine.m()` is first seen by
        # the extractor above, which knows nothing of the `await`)
        for key in ("kw_shapes", "arg_shapes", "arg_lits", "forwards", "bound", "kw_guards", "awaited",
                    "on_failure", "arg_names", "unpacked", "unpacked_items", "indexed", "unawaited", "name_arg",
                    "name_line"):
            if new.get(key):
                old[key] = new[key]
        if new.get("args") is not None:  # a consumer helper's arguments (paths.py: patches made through it)
            old["args"], old["kwargs"] = new["args"], new["kwargs"]
    for key in ("classes", "uses", "patches", "patchers", "functions", "version_predicates", "version_compares",
                "returns", "over_annotations"):
        out[key] = reach[key]
    if reach.get("version_asserts"):  # most modules have none: no empty list in every record
        out["version_asserts"] = reach["version_asserts"]
    if reach.get("caught"):  # `try:` bodies whose handlers swallow an error (drift/analysis/caught.py)
        out["caught"] = reach["caught"]
    if reach.get("handlers"):  # each `except <names>:` and its body (rules/lost_exception_bases.py)
        out["handlers"] = reach["handlers"]
    if reach.get("absent_raises"):  # `if hasattr(x, k): ... else: raise` (DRIFT062: the raise runs)
        out["absent_raises"] = reach["absent_raises"]


def _mark_direct(calls, call_node, kind, rec):
    for c in calls:
        if c["line"] == call_node.lineno and c["end_line"] == call_node.end_lineno:
            c["result"] = c["result"] or {"indexed": [], "iterated": [], "truth_tested": [], "var": None}
            c["result"][kind].append(rec)
            return
