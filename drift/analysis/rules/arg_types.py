"""Arguments that no longer have the type the target declares for them.

A release can keep a parameter's (or a dataclass field's) name and change what it holds: vLLM
0.11.1 turned `ModelRunnerOutput.sampled_token_ids` from `list[list[int]]` into
`list[np.ndarray]`, and the scheduler that reads the output now calls `.tolist()` on every
entry. A consumer that still builds the output with nested Python lists passes every signature
check and fails later, far from its own code. The probe records which arguments are provably a
non-empty list of plain Python values (probes/shapes.py); this rule reports those bound to a
parameter whose elements the baseline declared as plain values and the target now declares as
one non-builtin class (an array, a tensor, a class of the target's), or declares the parameter
itself as one such class (`list[int]` became `np.ndarray`). By position the parameter may have
been renamed: the slot is what the argument binds to.
"""

from __future__ import annotations

import ast
from typing import Iterator

from drift.analysis.context import CheckContext, ResolvedCall, _callable, site_of
from drift.analysis.paths import Value
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Param, Symbol
from drift.probes.reach import strip_optional, union_members  # annotations read as the probe reads them
from drift.probes.srctext import dotted as _dotted
from drift.analysis.rules.base import rule

LIST_OF_BUILTIN = "list[builtin]"  # the probe's shapes (probes/shapes.py)
NUMBER = "number"
LIST = "list"

_SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection"})
_PLAIN = frozenset({"int", "float", "str", "bool", "bytes", "complex", "list", "List", "tuple", "Tuple", "dict",
                    "Dict", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Mapping"})
_OPEN = frozenset({"Any", "object", "Union", "Optional", "Callable", "Iterable", "Iterator", "Self", "None",
                   "NoneType", "Literal", "TypeVar"})


def _head(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def list_element(annotation: str | None) -> ast.expr | None:
    """The element type of a list-like annotation (`list[X]`, `Optional[List[X]]`, `Sequence[X] |
    None`), or None when the annotation is not one."""
    if not annotation:
        return None
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return None
    node = strip_optional(node)
    if not isinstance(node, ast.Subscript) or _head(node.value) not in _SEQUENCES:
        return None
    return strip_optional(node.slice)


def _plain(node: ast.expr | None) -> bool:
    """The element type admits plain Python values (`int`, `list[int]`, `tuple[int, ...]`)."""
    if node is None:
        return False
    if isinstance(node, ast.Subscript):
        return _head(node.value) in _PLAIN
    return isinstance(node, (ast.Name, ast.Attribute)) and _head(node) in _PLAIN


def _one_class(node: ast.expr | None, index: PackageIndex, module: str) -> str | None:
    """The dotted name when the element type is exactly one non-builtin class: a module-qualified
    name (`np.ndarray`, `torch.Tensor`) or a class the target defines; never a union, a
    container, a type variable or `Any`."""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    name = _dotted(node)
    if not name or _head(node) in _PLAIN or _head(node) in _OPEN:
        return None
    sym = index.resolve_in(module, name)
    if sym is not None:
        return name if sym.kind == "class" else None
    return name if "." in name else None  # an unresolved bare name may be a TypeVar or an alias


def _number(annotation: str | None) -> bool:
    """The annotation admits Python numbers only (`float`, `int`, `float | None`, `Optional[int]`,
    `int | float`): a parameter that took a plain number."""
    if not annotation:
        return False
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return False
    members = union_members(node) or [strip_optional(node)]
    return all(isinstance(m, (ast.Name, ast.Attribute)) and _head(m) in ("int", "float") for m in members)


def _whole_class(annotation: str | None, index: PackageIndex, module: str) -> str | None:
    """The parameter itself now declared as one non-builtin class (`list[int]` became
    `np.ndarray`): a list of plain values is no such object (`torch.from_numpy(list)` raises)."""
    if not annotation or list_element(annotation) is not None:
        return None
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return None
    return _one_class(strip_optional(node), index, module)


def _param(params: list[Param] | None, *, keyword: str | None = None, position: int | None = None) -> Param | None:
    if not params:
        return None
    if keyword is not None:
        return next((p for p in params if p.name == keyword and p.kind != "POSITIONAL_ONLY"), None)
    positional = [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    return positional[position] if position is not None and position < len(positional) else None


def _consumer_class_params(ctx: CheckContext, cref: str, keyword: str
                           ) -> tuple[list[Param] | None, Symbol | None, list[Param] | None, Symbol | None]:
    """Parameters of the target class a consumer subclass is built through, when the subclass
    chain neither defines its own `__init__`/`__post_init__` (which could convert the value) nor
    redeclares the keyword's field."""
    seen, todo = set(), [cref]
    while todo:
        ref = todo.pop()
        cls = ctx.consumer.classes.get(ref)
        if cls is None or ref in seen:
            continue
        seen.add(ref)
        methods, attrs = cls.get("methods") or {}, cls.get("class_attrs") or {}
        if "__init__" in methods or "__post_init__" in methods or keyword in attrs:
            return None, None, None, None
        for b in cls.get("bases") or []:
            if b and len(b) == 1 and b[0].startswith("sym:") and b[0][4:] in ctx.consumer.classes:
                todo.append(b[0][4:])
    out = []
    for paths, index in ((ctx.target_paths, ctx.target), (ctx.baseline_paths, ctx.baseline)):
        bases = paths.target_bases(cref) if paths is not None else []
        if len(bases) != 1:  # several target bases: which one builds it is not known here
            out.extend((None, None))
            continue
        _sym, params, at, _ctor = _callable(index, Value("class", sym=bases[0]))
        out.extend((params, at))
    return out[0], out[1], out[2], out[3]


def _sites(ctx: CheckContext) -> Iterator[tuple[dict, dict, ResolvedCall | None]]:
    """(module, call record, resolved call or None) for calls with recorded argument shapes."""
    resolved = {id(rc.rec): rc for rc in ctx.calls}
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            if rec.get("kw_shapes") or rec.get("arg_shapes"):
                yield mod, rec, resolved.get(id(rec))


@rule("DRIFT064", RuleKind.ARGUMENT_RETYPED, Severity.RISKY)
def argument_retyped(ctx: CheckContext) -> Iterator[Finding]:
    """A list of plain Python values (a literal, a comprehension, a tensor's `.tolist()`, a list
    built with `.append`) passed for a parameter or dataclass field whose elements the baseline
    declared as plain values (`list[list[int]]`) and the target declares as one class
    (`list[np.ndarray]`): the target's code now uses each element as that class (`.tolist()`,
    `.shape`, arithmetic), which a Python list does not support. The same when the target declares
    the parameter itself as one class where the baseline declared a list of plain values
    (`list[int]` became `np.ndarray`: `torch.from_numpy` rejects a list), and when a Python number
    (a literal, `float(x)`, arithmetic of such) goes to a parameter the baseline declared a number
    (`scale: float`) and the target declares one class (`scale: torch.Tensor`: the target calls
    `.to()` or reads `.shape` on it), and when any Python list (a literal, a comprehension, a local
    bound to one) goes to a parameter the baseline declared a list (`List[BaseModelPath]`) and the
    target declares one class (`OpenAIServingModels`: the target reads that class's members off
    it); a positional argument is bound by its slot, whatever the parameter is now called."""
    if ctx.baseline is None:
        return
    for mod, rec, rc in _sites(ctx):
        if ctx.dead_on_baseline(mod):
            continue
        # a consumer class is judged by its own fields and their conversions (`__post_init__`),
        # also when its target base's constructor binds the call (context._inherited_constructor)
        path = rec.get("path") or (rec.get("callee") or {}).get("path") or []
        v = ctx.target_paths.value(tuple(path)) if path else None
        cref = v.cref if v is not None and v.kind == "consumer" and v.ckind == "class" else None
        if rc is None and cref is None:
            continue
        items = [(k, None) for k in (rec.get("kw_shapes") or {})]
        if cref is None:
            items += [(None, int(i)) for i in (rec.get("arg_shapes") or {})]
        for keyword, position in items:
            shape = (rec.get("kw_shapes") or {}).get(keyword) if keyword else (rec.get("arg_shapes") or {}).get(
                str(position))
            if shape not in (LIST_OF_BUILTIN, NUMBER, LIST):
                continue
            if cref is not None:
                tparams, tat, bparams, bat = _consumer_class_params(ctx, cref, keyword)
            else:
                tparams, tat, bparams, bat = rc.target_params, rc.target_params_at, rc.baseline_params, \
                    rc.baseline_params_at
            tp = _param(tparams, keyword=keyword, position=position)
            bp = _param(bparams, keyword=keyword, position=position)
            if tp is None or bp is None or tat is None or bat is None or (keyword and tp.name != bp.name):
                continue  # by position the name may change (`num_tokens` -> `num_tokens_np`): the slot is the same
            if shape == NUMBER:  # a Python number for a parameter that was a number and is now one class
                now = whole = _whole_class(tp.annotation, ctx.target, tat.module) if _number(bp.annotation) else None
            elif shape == LIST:  # a list for a parameter that was a list and is now one class
                now = whole = _whole_class(tp.annotation, ctx.target, tat.module) \
                    if list_element(bp.annotation) is not None else None
            elif not _plain(list_element(bp.annotation)):
                continue
            else:
                now = _one_class(list_element(tp.annotation), ctx.target, tat.module)
                whole = _whole_class(tp.annotation, ctx.target, tat.module) if now is None else None
                now = now or whole
            if now is None:
                continue
            what = {NUMBER: "a Python number", LIST: "a Python list"}.get(shape, "a list of plain Python values")
            onto = "a Python number" if shape == NUMBER else "a Python list"
            label = (cref or "").rsplit(".", 1)[-1] or rc.label
            site = rc.keyword_site(keyword) if rc is not None and keyword else _keyword_site(mod, rec, keyword)
            where = _declared_in(ctx.target, tat, tp)
            was = _declared_in(ctx.baseline, bat, bp)
            yield Finding(
                rule_id="DRIFT064", kind=RuleKind.ARGUMENT_RETYPED, severity=Severity.RISKY,
                title=(f"`{label}({tp.name}=...)` gets" if keyword else
                       f"`{label}(...)`'s argument {position + 1} (`{tp.name}`) gets")
                      + f" {what}; `{tp.name}` is now `{tp.annotation}` (was "
                      + (f"`{bp.annotation}`)" if bp.name == tp.name else f"`{bp.name}: {bp.annotation}`)"),
                consumer_site=site,
                target_evidence=(Location(where.path, tp.line or where.line, symbol=f"{where.dotted}.{tp.name}"),),
                baseline_evidence=(Location(was.path, bp.line or was.line, symbol=f"{was.dotted}.{bp.name}"),),
                predicted_failure=None,
                details=(f"passed as `{(rec.get('kw_values') or {}).get(keyword) or 'a value'}`; " if keyword else "")
                        + (f"no error here: the target fails where it uses the value as `{now}` (an "
                           f"AttributeError or TypeError on {onto})" if whole else
                           f"no error here: the target fails later, where it uses an element as `{now}` (an "
                           f"AttributeError or TypeError on {onto})"),
                fix=Fix(f"pass the value as `{now}`" if whole else f"pass each element as `{now}`",
                        manual_reason="the conversion depends on the value's layout"),
                symbol=f"{where.dotted}.{tp.name}",
            )


def _declared_in(index: PackageIndex, at: Symbol, param: Param) -> Symbol:
    """The class that declares a field (an inherited field lives in a base), or the `__init__`'s class."""
    if at.kind == "method":
        return at.owner if at.owner is not None else at
    if param.source in ("field", "initvar"):
        for owner in index.mro(at):
            if owner.as_class.field(param.name) is not None:
                return owner
    return at


def _keyword_site(mod: dict, rec: dict, keyword: str | None) -> Location:
    pos = (rec.get("kw_cols") or {}).get(keyword or "")
    if not pos:
        return site_of(mod, rec)
    return Location(mod["path"], pos[0], snippet=rec.get("callee_src"), col=pos[1] + 1)


RULES = [argument_retyped]
