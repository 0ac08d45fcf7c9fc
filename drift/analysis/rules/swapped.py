"""DRIFT076: the class the consumer patches is no longer the one the target builds by default.

A release can add a second implementation of a role and pick between the two behind a test:
vLLM's Worker builds `vllm.v1.worker.gpu.model_runner.GPUModelRunner` (Model Runner V2) or
`vllm.v1.worker.gpu_model_runner.GPUModelRunner` depending on `self.use_v2_model_runner`. While
that test defaults to the old class, a plugin that patches (or subclasses and hands over) the
old class works; when the test, or what it defaults to, changes so that the new class is built,
every patch silently stops applying. Nothing raises, so the finding is risky.

What drift reads (facts, probes/choices.py): the `if` statements of the target whose two arms
build different classes into the same holder (`choices`), the default of every environment
variable of a settings module (`env_defaults`), and the values a property returns
(`returns_src`). A test is evaluated through `self.x` (what the class stores there), a
parameter's annotated class (a field's literal default, a property that returns one literal or
an environment variable), or a module attribute (an environment variable's default).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, word
from drift.analysis.rules.base import rule
from drift.analysis.rules.handed import _functions, _handed
from drift.analysis.rules.reach import _patches

UNKNOWN = object()


@dataclass(frozen=True)
class Default:
    """What a test evaluates to when nothing is configured, and where that comes from."""

    value: Any  # a Python value, or UNKNOWN
    how: str  # e.g. "VLLM_USE_V2_MODEL_RUNNER unset: bool(int(\"0\"))"
    where: Location | None = None
    basis: str = ""  # what the test reads once resolved (`self.x` = `envs.X`, env X): compared across releases


# -- the consumer: which target classes it patches, and where ------------------------------------
def _patched(ctx: CheckContext) -> dict[tuple[str, str, int], str]:
    """{(class dotted, path, line): how}: target classes the consumer patches (monkeypatches of
    their members, patch classes `P(Factory[C])`) or subclasses and hands to the target. The
    site is the line that names the class: a patch framework's identifier string
    (`target_class = "C"`) in the patching class, a patch class's header, else the patch."""
    paths = ctx.baseline_paths
    out: dict[tuple[str, str, int], str] = {}
    if paths is None:
        return out
    by_class: dict[tuple[str, str], list[int]] = {}
    for mod, p in _patches(ctx):
        v = paths.value(tuple(p.get("path") or ()))
        if v.kind != "class" or v.sym is None:
            continue
        short = v.sym.dotted.rsplit(".", 1)[-1]
        site = _naming_attr(ctx, mod, p.get("function") or "", short)
        key = (v.sym.dotted, mod["path"], site or p["line"])
        if site is not None or not any(k[0] == key[0] and k[1] == key[1] for k in out):
            out.setdefault(key, f"patches `{short}.{p.get('name')}`")
        by_class.setdefault((v.sym.dotted, mod["path"]), []).append(p["line"])
    for ref, cls in ctx.consumer.classes.items():
        for b in (cls.get("generic") or []) + (cls.get("decorated_with") or []):
            v = paths.value(tuple(b)) if b else None
            if v is not None and v.kind == "class" and v.sym is not None:
                out.setdefault((v.sym.dotted, cls.get("path") or "?", cls["line"]),
                               f"`{cls['qual']}` patches `{v.sym.dotted.rsplit('.', 1)[-1]}`")
    for ref, cls in _handed(ctx):
        for base in paths.target_bases(ref):
            out.setdefault((base.dotted, cls.get("path") or "?", cls["line"]),
                           f"`{cls['qual']}` subclasses `{base.dotted.rsplit('.', 1)[-1]}` and is handed to the target")
    return out


def _naming_attr(ctx: CheckContext, mod: dict, function: str, short: str) -> int | None:
    """Line of the class attribute holding the string `short` in the consumer class that
    holds `function` (a patch framework names its target class that way)."""
    parts = function.split(".")
    for n in range(len(parts) - 1, 0, -1):
        cls = ctx.consumer.classes.get(f"{mod.get('module')}.{'.'.join(parts[:n])}")
        if cls is None:
            continue
        for attr in (cls.get("class_attrs") or {}).values():
            if isinstance(attr, dict) and attr.get("str") == short:
                return attr.get("line")
        return None
    return None


# -- the target: where a test picks between two classes ------------------------------------------
def _choices(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[list[Any]]]:
    """class short name -> [[module, function qualname, path, if line, test, then, else]] where
    then/else are [[dotted, line, holder]] with names resolved through the module's imports."""
    out: dict[str, list[list[Any]]] = {}
    for mod_name in modules:
        mod = ModuleFacts(index.modules[mod_name])
        for qual, fn in _functions(mod):
            for ch in fn.behaviour.choices:
                arms = [[[_canonical(index, mod_name, n), line, holder] for n, line, holder in arm]
                        for arm in (ch.then, ch.orelse)]
                entry = [mod_name, qual, mod.path, ch.line, ch.test, arms[0], arms[1]]
                for short in {e[0].rsplit(".", 1)[-1] for arm in arms for e in arm}:
                    out.setdefault(short, []).append(entry)
    return out


def _canonical(index: PackageIndex, module: str, name: str) -> str:
    dotted = index.dotted_in(module, name) if "." not in name or name.split(".")[0] in \
        ModuleFacts(index.modules.get(module) or {}).imports else name
    sym = index.lookup(dotted) if "." in dotted else None
    return sym.dotted if sym is not None else dotted


def _arm_of(entry: list[Any], dotted: str) -> tuple[int, list[Any]] | None:
    """(0 for then, 1 for else; the construction) of class `dotted` in a choice."""
    for i in (0, 1):
        for e in entry[5 + i]:
            if e[0] == dotted:
                return i, e
    return None


def _built_plainly(index: PackageIndex, module: str, qual: str, dotted: str, holder: str) -> int | None:
    """Line where the function builds `dotted` outside any choice (the baseline built it
    unconditionally): from its lazy builds or what it stores on self."""
    mod = index.modules.get(module)
    if mod is None:
        return None
    for q, fn in _functions(ModuleFacts(mod)):
        if q != qual:
            continue
        beh = fn.behaviour
        names = [n for ns in beh.builds.values() for n in ns]
        for attr, k in beh.self_types.items():
            # `self.x: C = C(...)` is recorded by its annotation: counted only for the same holder
            if isinstance(k, str) and (k.startswith("call:") or (k.startswith("ann:") and f"self.{attr}" == holder)):
                names.append(k.split(":", 1)[1])
        names += [c.callee for c in beh.ctor_calls if c.callee]
        if any(_canonical(index, module, n) == dotted for n in names):
            sets = beh.self_sets.get(holder[5:]) if holder.startswith("self.") else None
            return sets[0] if sets else fn.line
    return None


# -- evaluating a test's default -------------------------------------------------------------
def _function(index: PackageIndex, module: str, qual: str) -> FunctionFacts | None:
    mod = index.modules.get(module)
    for q, fn in _functions(ModuleFacts(mod or {})):
        if q == qual:
            return fn
    return None


def evaluate(index: PackageIndex, module: str, qual: str, test: str) -> Default:
    """The value `test` (source text in function `qual` of `module`) has by default."""
    try:
        node = ast.parse(test, mode="eval").body
    except SyntaxError:
        return Default(UNKNOWN, f"`{test}`")
    return _eval_test(index, module, qual, node, 0)


def _eval_test(index: PackageIndex, module: str, qual: str, node: ast.AST, depth: int) -> Default:
    if depth > 4:
        return Default(UNKNOWN, ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _eval_test(index, module, qual, node.operand, depth)
        return Default(UNKNOWN if inner.value is UNKNOWN else not inner.value, f"not {inner.how}", inner.where,
                       "not " + inner.basis)
    if isinstance(node, ast.Constant):
        return Default(node.value, repr(node.value), None, repr(node.value))
    if not isinstance(node, ast.Attribute):
        return Default(UNKNOWN, ast.unparse(node))
    fn = _function(index, module, qual)
    params = fn.param_facts if fn is not None else []
    head = node.value
    if isinstance(head, ast.Name) and params and head.id == params[0].name and "." in qual:
        return _eval_self_attr(index, module, qual.rsplit(".", 1)[0], node.attr, depth)
    if isinstance(head, ast.Name):
        for p in params:
            if p.name == head.id and p.annotation:
                cls = index.resolve_in(module, p.annotation.split("|")[0].strip().strip("\"'"))
                if cls is not None and cls.kind == "class":
                    return _eval_member(index, cls, node.attr, depth)
                return Default(UNKNOWN, ast.unparse(node))
    dotted = index.dotted_in(module, ast.unparse(node))
    owner, _, name = dotted.rpartition(".")
    return _eval_env(index, owner, name) or Default(UNKNOWN, f"`{ast.unparse(node)}`")


def _eval_self_attr(index: PackageIndex, module: str, cls_qual: str, attr: str, depth: int) -> Default:
    """`self.attr`: what the class's methods first store there, evaluated in that method."""
    mod = ModuleFacts(index.modules.get(module) or {})
    cls = mod.classes.get(cls_qual.split(".")[0])
    for part in cls_qual.split(".")[1:]:
        cls = cls.nested.get(part) if cls is not None else None
    for name, m in cls.methods.items() if cls is not None else ():
        kind = m.behaviour.self_types.get(attr)
        if isinstance(kind, str) and kind.startswith("attr:"):
            try:
                expr = ast.parse(kind[5:], mode="eval").body
            except SyntaxError:
                continue
            got = _eval_test(index, module, f"{cls_qual}.{name}", expr, depth + 1)
            return Default(got.value, f"`self.{attr} = {kind[5:]}`: {got.how}", got.where,
                           f"self.{attr} = {kind[5:]} -> {got.basis}")
        if isinstance(kind, str) and kind.startswith("lit:"):
            break
    return Default(UNKNOWN, f"`self.{attr}`")


def _eval_member(index: PackageIndex, cls: Symbol, name: str, depth: int) -> Default:
    """A class member read off an instance: a field's literal default, or a property returning
    one literal (or one environment variable)."""
    label = f"`{cls.dotted.rsplit('.', 1)[-1]}.{name}`"
    basis = f"member {cls.dotted.rsplit('.', 1)[-1]}.{name}"
    for c in index.mro(cls):
        node = c.as_class
        f = node.field(name)
        if f is not None:
            where = Location(c.path, f.line, symbol=f"{c.dotted}.{name}")
            if f.default is not None:
                lit = _literal(f.default)
                if lit is not UNKNOWN:
                    return Default(lit, f"{label} defaults to {f.default}", where, basis=basis)
            return Default(UNKNOWN, label, where, basis=basis)
        m = node.methods.get(name)
        if m is None:
            continue
        where = Location(c.path, m.line, symbol=f"{c.dotted}.{name}")
        rets = m.behaviour.returns_src
        if not rets:
            return Default(UNKNOWN, f"{label} (not a property drift can read)", where, basis=basis)
        lits = {_literal(src) for _line, src in rets}
        if len(lits) == 1 and UNKNOWN not in lits:
            value = lits.pop()
            return Default(value, f"{label} always returns {value!r}", where, basis=basis)
        shown = ", ".join(src for _line, src in rets[:8])
        return Default(UNKNOWN, f"{label} is a property returning one of: {shown}", where, basis=basis)
    return Default(UNKNOWN, label, basis=basis)


def _literal(src: str) -> Any:
    try:
        return ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return UNKNOWN


def _eval_env(index: PackageIndex, module: str, name: str) -> Default | None:
    """A setting of a settings module: its expression with the variable's read replaced by the
    read's default."""
    raw = index.modules.get(module)
    if raw is None:
        return None
    mod = ModuleFacts(raw)
    env = mod.env_defaults.get(name)
    if env is None:
        return None
    where = Location(mod.path, env.line, symbol=f"{module}.{name}")
    try:
        expr = ast.parse(env.expr, mode="eval").body
        read = ast.unparse(ast.parse(env.read, mode="eval").body)
    except SyntaxError:
        return Default(UNKNOWN, f"{name} unset: {env.expr}", where)
    value = _eval_expr(expr, read, _literal(env.default))
    how = f"{name} unset: `{env.expr}`" + ("" if value is UNKNOWN else f" = {value!r}")
    return Default(value, how, where, f"env {name}")


_CASTS = {"bool": bool, "int": int, "float": float, "str": str}
_STR_METHODS = {"lower", "upper", "strip", "casefold"}


def _eval_expr(node: ast.AST, read: str, default: Any) -> Any:
    """A small, closed evaluator: constants, the variable's read, bool/int/float/str casts, a few
    str methods, comparisons with constants, not/and/or. Anything else is UNKNOWN."""
    if isinstance(node, ast.Call) and ast.unparse(node) == read:
        return default
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_eval_expr(e, read, default) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        arg = _eval_expr(node.args[0], read, default)
        if arg is UNKNOWN:
            return UNKNOWN
        f = node.func
        if isinstance(f, ast.Name) and f.id in _CASTS:
            try:
                return _CASTS[f.id](arg)
            except (TypeError, ValueError):
                return UNKNOWN
        return UNKNOWN
    if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _STR_METHODS:
        base = _eval_expr(node.func.value, read, default)
        return getattr(base, node.func.attr)() if isinstance(base, str) else UNKNOWN
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _eval_expr(node.operand, read, default)
        return UNKNOWN if v is UNKNOWN else not v
    if isinstance(node, ast.BoolOp):
        vals = [_eval_expr(v, read, default) for v in node.values]
        if any(v is UNKNOWN for v in vals):
            return UNKNOWN
        out = vals[0]
        for v in vals[1:]:
            out = (out and v) if isinstance(node.op, ast.And) else (out or v)
        return out
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _eval_expr(node.left, read, default), _eval_expr(node.comparators[0], read, default)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        op = type(node.ops[0])
        try:
            return {ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right, ast.In: lambda: left in right,
                    ast.NotIn: lambda: left not in right, ast.Is: lambda: left is right,
                    ast.IsNot: lambda: left is not right}[op]()
        except (KeyError, TypeError):
            return UNKNOWN
    return UNKNOWN


# -- the rule ------------------------------------------------------------------------------------
def _pick(d: Default) -> int | None:
    """0 (the then arm) or 1 (else) for a known value, None when unknown."""
    return None if d.value is UNKNOWN else (0 if d.value else 1)


@rule("DRIFT076", RuleKind.CLASS_NOT_BUILT, Severity.RISKY)
def patched_class_not_built(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer patches a target class (monkeypatches its methods, a patch class
    `P(Factory[C])`, or subclasses it and hands the subclass to the target), and the target
    builds that class only in one arm of an `if` whose other arm builds another class into the
    same holder (a second implementation of the role, often of the same name), while that test
    changed from the baseline's at the same construction (another expression, another default,
    or the baseline built the class unconditionally).

    Where the test's default can be evaluated (an environment variable with a literal default
    in a settings module, `self.x` stored from one, a field's literal default, a property that
    returns one literal), the finding is made only when the target's default picks the other
    class and the baseline's did not. Where the target's default cannot be evaluated, it is made
    when the baseline's default provably built the patched class and the test changed: the
    patches then apply only if the new test still picks the old class. Nothing raises: the
    patched methods are simply never called.
    """
    if ctx.baseline is None:
        return
    sites = _patched(ctx)
    done: set[tuple[str, str, int]] = set()
    for (dotted, path, line), how in sorted(sites.items()):
        short = dotted.rsplit(".", 1)[-1]
        tsym = ctx.target.lookup(dotted)
        if tsym is None:
            continue
        now = ctx.target.query("class_choices", short, needle=word(short), build=_choices, default=[])
        for entry in now:
            got = _arm_of(entry, tsym.dotted)
            if got is None:
                continue
            arm, built = got
            others = [e for e in entry[5 + (1 - arm)] if e[2] == built[2] and e[0] != tsym.dotted]
            if not others:
                continue
            other = others[0]
            module, qual, tpath, tline, test = entry[:5]
            tdef = evaluate(ctx.target, module, qual, test)
            base = _baseline_choice(ctx, module, qual, dotted, short, built[2])
            if base is None:
                continue
            bdef, bwhere, btest = base
            tpick = _pick(tdef)
            t_c = None if tpick is None else tpick == arm  # True: the target's default builds the patched class
            b_c = True if bdef is None else (None if bdef.value is UNKNOWN else bool(bdef.value))
            changed = btest is None or btest != test or tdef.basis != bdef.basis or \
                (t_c is not None and b_c is not None and t_c != b_c)
            if not changed or t_c is True or (t_c is False and b_c is False):
                continue
            if t_c is None and (b_c is not True or tdef.where is None):
                continue  # unknown default: only a setting's test (found in the target), changed from the patched class
            key = (dotted, path, line)
            if key in done:
                continue
            done.add(key)
            yield _finding(ctx, dotted, path, line, how, entry, other, tdef, bdef, bwhere, t_c is not None)


def _baseline_choice(ctx: CheckContext, module: str, qual: str, dotted: str, short: str, holder: str):
    """(default, where, test) of the baseline at the same construction: default's value is True
    when it builds the patched class (None for the whole default when the baseline built it
    unconditionally, test then None); None when the baseline has no such construction."""
    for entry in ctx.baseline.query("class_choices", short, needle=word(short), build=_choices, default=[]):
        if entry[0] != module or entry[1] != qual:
            continue
        got = _arm_of(entry, dotted)
        if got is None:
            continue
        d = evaluate(ctx.baseline, module, qual, entry[4])
        # the arm the baseline's default picks, expressed relative to the patched class
        picks = _pick(d)
        rel = None if picks is None else (0 if picks == got[0] else 1)
        return (Default(UNKNOWN if rel is None else rel == 0, d.how, d.where, d.basis),
                Location(entry[2], entry[3], symbol=f"{module}.{qual}"), entry[4])
    line = _built_plainly(ctx.baseline, module, qual, dotted, holder)
    if line is not None:
        path = ModuleFacts(ctx.baseline.modules.get(module) or {}).path
        return None, Location(path, line, symbol=f"{module}.{qual}"), None
    return None


def _finding(ctx, dotted, path, line, how, entry, other, tdef, bdef, bwhere, precise) -> Finding:
    module, qual, tpath, tline, test = entry[:5]
    short = dotted.rsplit(".", 1)[-1]
    fn_label = ".".join(qual.rsplit(".", 2)[-2:])
    if precise:
        said = f"by default the target's `{fn_label}` now builds `{other[0]}` ({tdef.how})"
    else:
        said = (f"the target's `{fn_label}` now picks between `{other[0]}` and `{short}` by `{test}`, "
                f"which the baseline did not ({tdef.how})")
    if bdef is None:
        before = f"the baseline built `{dotted}` there unconditionally"
    else:
        before = f"the baseline's default built `{dotted}` ({bdef.how})"
    return Finding(
        rule_id="DRIFT076", kind=RuleKind.CLASS_NOT_BUILT, severity=Severity.RISKY,
        title=f"{how}, but {said}",
        consumer_site=Location(path, line, symbol=dotted),
        target_evidence=(Location(tpath, tline, symbol=f"{module}.{qual}"),
                         Location(tpath, other[1], symbol=other[0]), tdef.where),
        baseline_evidence=(bwhere, bdef.where if bdef is not None else None),
        predicted_failure=None,
        details=f"no error is raised: the patches of `{short}` apply only when the target builds it; {before}",
        fix=Fix(f"patch `{other[0]}` as well (or make the target pick `{dotted}`)",
                manual_reason="the other class has its own methods: the patches must be rewritten for it"),
        symbol=dotted,
    )


RULES = [patched_class_not_built]
