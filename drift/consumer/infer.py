"""What each of the consumer's names, attributes and parameters may hold: one fixpoint over the
IR of all its modules (probes/ir.py), in the manner of PyCG's assignment graph.

Why: typing the consumer pattern by pattern (probes/reach.py) follows only the ways of reaching
the target someone wrote a pattern for. Here every assignment, attribute store, call, return,
parameter annotation and default is an edge, solved to a fixpoint across modules, so a
`self.lora_config` set by a function bound later with `Cls.__init__ = new_init` is typed from that
function's annotated parameter, and a consumer class assigned into a target module is known to
be what the target's own code now builds.

Flow-insensitive and field-sensitive (a field is (consumer class, attribute)); the target side
is not modelled here: a value that reaches the target is kept as a *path* (`sym:vllm.config.
LoRAConfig ()`), which drift/analysis/paths.py evaluates in the target and in the baseline with
the one resolver. So the same solution serves both sides.

Abstract values: ("T", path) a target (or other external) path; ("C", qual) a consumer class;
("I", qual) an instance of one; ("F", qual) a consumer function; ("B", qual, receiver) a bound
method; ("U", qual) the tuple a consumer function returns (`return cfg, cls`), whose element i
(the step ``[i]``) is typed apart. The work is bounded: at most MAX_VALUES values per name and MAX_ROUNDS rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drift.probes.consumer_scan import ir_of

MAX_VALUES = 6  # values kept per name: beyond this a name is too polymorphic to say anything useful
MAX_ROUNDS = 12
MAX_PATH = 8
_NAMING_KEYS = ("_cls", "_class")  # keys whose value names a class the target builds
_REPLACERS = ("dataclasses.replace", "copy.replace")  # copy a record with some fields given anew
_TORCH_MODULES = ("torch.nn.Module", "torch.nn.modules.module.Module")  # calling one runs its `forward`


@dataclass
class Solution:
    """The solved model, as the analysis reads it: paths, never internal values."""

    attrs: dict[str, dict[str, list[tuple[str, ...]]]] = field(default_factory=dict)  # class -> attr -> paths
    params: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # "func:i" -> paths
    replacements: list[dict[str, Any]] = field(default_factory=list)  # consumer values assigned into target modules
    bound: dict[str, str] = field(default_factory=dict)  # consumer function -> the class it is bound onto
    signatures: dict[str, list[list[Any]]] = field(default_factory=dict)  # function -> [[name, kind, optional]]
    lines: dict[str, int] = field(default_factory=dict)  # function -> the line of its def
    gives: dict[str, bool] = field(default_factory=dict)  # function -> whether it returns a value
    named: dict[str, list[str]] = field(default_factory=dict)  # key (`worker_extension_cls`) -> consumer classes named there
    key_uses: list[dict[str, Any]] = field(default_factory=list)  # string keys reaching setattr/hasattr/getattr or **kwargs
    target_attrs: dict[str, dict[str, list[tuple[str, ...]]]] = field(default_factory=dict)  # target class ->
    # attr -> paths: what the consumer's functions installed on that class store on `self`
    closed_kwargs: dict[str, list[str]] = field(default_factory=dict)  # "path:line" of a call whose every
    # `**d` is a dict only literal keys enter (probes/closed_dicts.py) -> all the keys those dicts can hold
    module_objects: dict[str, list[str]] = field(default_factory=dict)  # consumer module-level name -> the
    # consumer classes whose objects it holds (and nothing else)
    names: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # consumer module-level name ->
    # the target paths it may be bound to (`X = vllm_mod.X`, or `.Y` where `hasattr` says X is absent)
    returned: dict[str, list[str]] = field(default_factory=dict)  # function -> consumer classes it returns
    returned_objects: dict[str, list[str]] = field(default_factory=dict)  # function -> consumer classes
    # whose instances it returns
    annotated_objects: dict[str, list[str]] = field(default_factory=dict)  # function -> the consumer
    # classes its return annotation names an object of (`-> Config`): what it promises, whatever it returns
    annotated_targets: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # function -> the
    # target classes its return annotation names an object of (`-> LLMEngine`)
    returned_functions: dict[str, list[str]] = field(default_factory=dict)  # function -> the consumer's
    # own functions (methods, names of its modules) it may return: a callable chosen at run time may be the consumer's
    module_swaps: list[dict[str, Any]] = field(default_factory=list)  # target modules the consumer answers
    # with its own: {"target", "consumer", "path", "line", "col"}
    registered: list[dict[str, Any]] = field(default_factory=list)  # consumer classes handed to a target call:
    # {"callee": dotted, "arg": position or keyword, "class": consumer class, "path", "line"}, and
    # "instance": True where an object of the class is handed (the target keeps it, never builds it)
    signature_tests: list[dict[str, Any]] = field(default_factory=list)  # `if "p" in inspect.signature(C)
    # .parameters:` with C typed as target callables: {"name", "callees", "takes", "lacks", "path", "line"}
    attribute_tests: list[dict[str, Any]] = field(default_factory=list)  # `if hasattr(X, "name"):` with X
    # typed as target objects: {"name", "objects", "has", "lacks", "path", "line"}
    method_objects: dict[str, list[str]] = field(default_factory=dict)  # "Cls.method:local" -> consumer
    # classes whose objects a local of a consumer class's method may hold (`adapter = Adapter(...)`
    # before `super().__init__(model=adapter)`): what the method hands on by that name
    target_stores: list[dict[str, Any]] = field(default_factory=list)  # `obj.attr = v` with obj typed
    # as target objects: {"attr", "objects": [paths], "path", "line"}: attributes the consumer sets itself
    target_args: list[dict[str, Any]] = field(default_factory=list)  # a positional argument typed as target
    # objects only, handed to a callee typed as target values only: {"callees": [paths], "position",
    # "objects": [paths], "path", "line"} (rules/renamed_slots.py holds it to the slot's new type)
    call_edges: dict[str, list[list[Any]]] = field(default_factory=dict)  # "path:line" of a call ->
    # [[consumer function, slot shift, callee path]] it may run (`layer.op(x)` runs MyOp.forward: shift 1)
    str_params: dict[str, list[list[Any]]] = field(default_factory=dict)  # function -> [[parameter, sink
    # kind, line]]: parameters declared `str` it uses as text (probes/str_sinks.py)
    rounds: int = 0

    def init_of(self, cls: str) -> str | None:
        """The consumer function that is `cls.__init__` (its own, bound after the class, or a
        consumer base's); None when the class takes its base's from the target."""
        return self.inits.get(cls)

    inits: dict[str, str] = field(default_factory=dict)
    init_choices: dict[str, list[str]] = field(default_factory=dict)  # class -> the consumer functions
    # bound as its `__init__` on different paths (`Cls.__init__ = new_init` in one branch, `old_init`
    # in the other): which one runs depends on the release, so none is `inits`'s one answer

    def init_candidates(self, cls: str) -> list[str]:
        """Every consumer function that may be `cls.__init__`: the one, or each alternative."""
        one = self.inits.get(cls)
        return [one] if one else list(self.init_choices.get(cls, ()))


_EMPTY: frozenset = frozenset()


def _t(path) -> tuple | None:
    """A path as a tuple of strings (None for no path); anything else is malformed."""
    if not path:
        return None
    if not isinstance(path, (list, tuple)) or not all(isinstance(p, str) for p in path):
        raise TypeError("a path is a list of strings")
    return tuple(path)


def _s(value) -> str:
    if not isinstance(value, str):
        raise TypeError("a name is a string")
    return value


def _as_path(v: tuple) -> tuple[str, ...] | None:
    if v[0] == "T":
        return v[1]
    if v[0] == "I":
        return ("self:" + v[1],)
    if v[0] == "C":
        return ("sym:" + v[1],)
    return None


def _union_members(rest: list) -> list:
    """The member paths of a parameter's union annotation (the IR row's sixth item), if any."""
    return [m for m in (rest[2] if len(rest) > 2 else ()) if m]


def _dotted(path: tuple[str, ...]) -> str | None:
    """`sym:a.b` `.c` `.d` as `a.b.c.d`; None for a path with a call or any other step."""
    if not path[0].startswith("sym:") or not all(p.startswith(".") for p in path[1:]):
        return None
    return path[0][4:] + "".join(path[1:])


def _span(lines: Any) -> list[int] | None:
    """[first, last] line of one side of a branch, or None (no such side, or malformed)."""
    if isinstance(lines, list) and len(lines) == 2 and all(type(x) is int for x in lines):
        return [lines[0], lines[1]]
    return None


def _binder(callee: tuple | None) -> str | None:
    """"MethodType" / "partialmethod" where the callee is `types.MethodType` or
    `functools.partialmethod` (however imported): calls that make a function a method."""
    if not callee or callee[-1] == "()":
        return None
    name = callee[-1].rpartition(".")[2].lstrip(".")
    return name if name in ("MethodType", "partialmethod") else None


def _unwrap_partialmethods(stores: list, calls: list) -> list:
    """`Cls.m = functools.partialmethod(fn, ...)` stores `fn` as a method of Cls as far as `self`
    goes: the store's value becomes the function it wraps (the call on that line, same callee)."""
    wrapped = {(line, callee): args[0] for callee, args, _kw, line in calls
               if args and args[0] and _binder(callee) == "partialmethod"}
    if not wrapped:
        return stores
    out = []
    for obj, attr, src, line in stores:
        inner = wrapped.get((line, src[:-1])) if src and src[-1] == "()" else None
        out.append((obj, attr, inner or src, line))
    return out


def _entries_by_line(rows: list) -> dict[int, list[tuple]]:
    """The IR's `key` rows (key, value path, line of the dict literal) as line -> value paths: the
    values of the dict literal written at that line, for `d[k]` with a key known only at run time."""
    out: dict[int, list[tuple]] = {}
    for _k, value, line in rows:
        path = _t(value)
        if path:
            out.setdefault(int(line), []).append(path)
    return out


def _nested_def_names(defs: dict[str, list]) -> list[tuple[str, tuple[str, ...]]]:
    """`def outer(): def inner(self): ...; obj.m = MethodType(inner, obj)`: the enclosing
    function's local `inner` is the nested function, so whatever that local reaches (a binder,
    a store onto a target object, a call) reaches the nested def. The IR names the def by its
    qualified name and the local by the enclosing function's scope; this is the edge between."""
    out = []
    for qual in defs:
        outer, _, name = qual.rpartition(".")
        if outer in defs:
            out.append((f"var:{outer}:{name}", (f"sym:{qual}",)))
    return out


class _Solver:
    def __init__(self, usage: list[dict[str, Any]], prefixes: tuple[str, ...]):
        self.prefixes = prefixes
        self.defs: dict[str, list] = {}
        self.classmethods: set[str] = set()  # consumer methods decorated @classmethod: `cls` is the class
        self.classes: dict[str, list] = {}
        self.assign: list = []
        self.store: list = []
        self.attrset: list = []  # (object path, attr, line, module path): `o.a = <literal>`
        self.call: list = []
        self.ret: list = []
        self.tret: list = []  # (function, index, path): an element of a tuple the function returns
        self.where: dict[int, str] = {}  # id(store row) -> module path, for replacements
        self.gives: dict[str, bool] = {}  # function -> whether some return hands back a value
        self.keys: list = []  # (key, value path) of dict entries whose key names a class
        self.dicts: dict[str, list[tuple]] = {}  # dict literal -> [(key, path, line, col)]
        self.dict_values: dict[str, list[tuple]] = {}  # dict literal -> the paths of its values
        self.dict_rows: list = []  # (variable, dict literal)
        self.filtered: set[str] = set()  # variables a signature filter reassigns
        self.maybe: set[str] = set()  # variables another filtering comprehension reassigns
        self.iters: list = []  # (key variable, dict path)
        self.key_sites: list = []  # (how, object or callee path, key or dict path, path, line, col)
        self.popped: list = []  # (dict path, key): `d.pop("k")`, `del d["k"]` anywhere
        self.skipped: list[str] = []  # modules whose IR is malformed (a host's reply is untrusted)
        self.modmap: list = []  # (module, replacement module, path, line, col)
        self.reexports: dict[str, str] = {}  # `pkg.X` -> `pkg.impl.X`: a name a module imports from its own package
        self.fields: dict[str, list[tuple]] = {}  # record class -> [(field, annotation path)] in __init__ order
        self.retann: list = []  # (function, annotation path) of a return annotation
        self.closed: dict[str, list[str]] = {}  # closed dict -> every key it can hold
        self.closed_rows: list = []  # (variable, closed dict)
        self.starcalls: list = []  # ([paths of each **d], module path, line)
        self.opened: set[str] = set()  # locals unknown keys may enter (or that are handed on)
        self.kwparams: dict[str, tuple[str, list[str]]] = {}  # function -> (its `**kwargs` root,
        # the literal keys its body adds): closed once every caller's keywords are known
        self.owncalls: list = []  # (callee path, keywords written, [path of each **d, or None])
        self.valuerefs: set[str] = set()  # `sym:` roots of own names mentioned other than as a callee
        self.sigtests: list = []  # (name, callee path, lines if it takes name, lines if not, module path, line)
        self.hastests: list = []  # (name, object path, lines if it has name, lines if not, module path, line)
        self.str_params: dict[str, list[list[Any]]] = {}  # function -> [[parameter, sink kind, line]]
        for mod in usage:  # paths become tuples once: they are memo keys below
            try:
                self._load(mod, ir_of(mod))  # decoded here: kept as bytes until solved
            except (TypeError, ValueError, AttributeError, IndexError, KeyError):
                self.skipped.append(str(mod.get("path")))
        self.assign += _nested_def_names(self.defs)
        self._roots: dict[str, set] = {}  # sym: roots that are no variable: the same answer every round
        self._memo: dict[tuple, set] = {}  # path -> values, this round (a stale read is caught next round)
        self._mro: dict[str, list[str]] = {}
        self.roots = {m["module"].split(".")[0] for m in usage if isinstance(m.get("module"), str)} - {""}
        self.modules = {m["module"] for m in usage if isinstance(m.get("module"), str)}
        self.vars = {row[0][4:] for row in self.assign + self.dict_rows if row[0].startswith("sym:")}
        self.pts: dict[str, set] = {}
        self.changed = False
        self.subclasses: dict[str, set[str]] = {}
        self.bases: dict[str, list[str]] = {}
        self.installed: dict[str, str] = {}  # `var:fn:self` of a function bound onto a target class -> that class
        self.declared: dict[str, set] = {}  # `var:fn:param` -> the values its annotation gives (`_handed`)

    def _load(self, mod: dict[str, Any], ir: dict[str, Any]) -> None:
        """One module's relations, all or nothing: checked as they are read, kept only whole."""
        where = _s(mod.get("path") or "")
        defs = {_s(fn): [_s(spec[0]), [[_s(p[0]), _t(p[1]), _t(p[2]), _s(p[3]), bool(p[4])]
                                       + ([[_t(m) for m in p[5]]] if len(p) > 5 else []) for p in spec[1]],
                         int(spec[2])] for fn, spec in (ir.get("defs") or {}).items()}
        gives = {fn: bool(spec[3]) for fn, spec in (ir.get("defs") or {}).items() if len(spec) > 3}
        classes = {_s(q): [[_t(b) for b in spec[0]], int(spec[1])] for q, spec in (ir.get("classes") or {}).items()}
        assign = [(_s(dst), _t(src)) for dst, src in ir.get("assign") or []]
        call = [(_t(callee), [_t(a) for a in args], {_s(k): _t(v) for k, v in kwargs.items()}, int(line))
                for callee, args, kwargs, line in ir.get("call") or []]
        ret = [(_s(fn), _t(expr)) for fn, expr in ir.get("ret") or []]
        keys = [(_s(k), _t(v)) for k, v, _line in ir.get("key") or [] if _s(k).endswith(_NAMING_KEYS)]
        dicts, dict_rows = {}, []
        entries = _entries_by_line(ir.get("key") or [])
        for dst, kl, line in ir.get("dict") or []:
            ident = f"{where}:{int(line)}:{_s(dst)}"
            dicts[ident] = [(_s(k), where, int(a), int(b)) for k, a, b in kl]
            dict_rows.append((dst, ident))
            self.dict_values[ident] = entries.get(int(line), [])
        comps = [(_s(dst), _t(src), _s(how)) for dst, src, how, _line in ir.get("dictcomp") or []]
        iters = [(_s(dst), _t(src)) for dst, src in ir.get("iter") or []]
        sites = [(_s(how), _t(obj), _t(key), where, int(line), int(col))
                 for how, obj, key, line, col in ir.get("dynattr") or []]
        sites += [("call", _t(callee), _t(src), where, int(line), int(col))
                  for callee, src, line, col in ir.get("starkw") or []]
        stores = [(_t(obj), _s(attr), _t(src), int(line)) for obj, attr, src, line in ir.get("store") or []]
        stores = _unwrap_partialmethods(stores, call)
        self.modmap += [(_s(a), _s(b), where, int(line), int(col)) for a, b, line, col in ir.get("modmap") or []]
        self.reexports.update((_s(a), _s(b)) for a, b in ir.get("reexport") or [])
        self.fields.update({_s(q): [(_s(r[0]), _t(r[1])) for r in rows] for q, rows in (ir.get("fields") or {}).items()})
        self.retann += [(_s(fn), _t(ann)) for fn, ann in ir.get("retann") or []]
        self.sigtests += [(_s(name), _t(callee), _span(takes), _span(lacks), where, int(line))
                          for name, callee, takes, lacks, line in ir.get("sigtest") or []]
        self.hastests += [(_s(name), _t(obj), _span(has), _span(lacks), where, int(line))
                          for name, obj, has, lacks, line in ir.get("hastest") or []]
        closed = [(_s(dst), [_s(k) for k in keys], f"{where}:{int(line)}:{_s(dst)}:closed")
                  for dst, keys, line in ir.get("closed") or []]
        starcalls = [([_t(p) for p in paths], where, int(line)) for paths, line in ir.get("starcall") or []]
        opened = {_s(row[0]) for row in ir.get("opened") or []}
        kwparams = {_s(fn): (_s(root), [_s(k) for k in keys]) for fn, root, keys in ir.get("kwparam") or []}
        self.valuerefs.update(_s(root) for root in ir.get("valueref") or [])
        owncalls = [(_t(callee), [_s(k) for k in kws], [_t(p) if p else None for p in stars])
                    for callee, kws, stars, _line in ir.get("owncall") or []]
        self.defs.update(defs)
        self.classmethods.update(_s(fn) for fn in ir.get("clsm") or [] if _s(fn) in defs)
        self.gives.update(gives)
        self.classes.update(classes)
        self.assign += assign
        self.call += call
        for row in call:
            self.where[id(row)] = where
        self.ret += ret
        self.tret += [(_s(fn), int(i), _t(expr)) for fn, i, expr in ir.get("tret") or []]
        self.keys += keys
        self.dicts.update(dicts)
        self.dict_rows += dict_rows
        for dst, src, how in comps:
            if how == "signature":
                self.filtered.add(dst)  # keys a signature let through: never unaccepted ones
            else:
                if how == "filter":
                    self.maybe.add(dst)  # a key may be dropped (`if v is not None`): it may arrive
                self.assign.append((dst, src))
        self.iters += iters
        self.key_sites += sites
        self.popped += [(_t(obj), _s(key)) for obj, key in ir.get("popkey") or []]
        for dst, keys, ident in closed:
            self.closed[ident] = keys
            self.closed_rows.append((dst, ident))
        self.starcalls += starcalls
        self.opened |= opened
        self.kwparams.update(kwparams)
        self.owncalls += owncalls
        for row in stores:
            self.store.append(row)
            self.where[id(row)] = where
        self.attrset += [(_t(obj), _s(attr), int(line), where) for obj, attr, line in ir.get("attrset") or []]
        for fn, param, kind, line in ir.get("strparam") or []:
            self.str_params.setdefault(_s(fn), []).append([_s(param), _s(kind), int(line)])

    # -- sets --------------------------------------------------------------------------------
    def add(self, key: str, values) -> None:
        s = self.pts.setdefault(key, set())
        if values is s:
            return
        for v in values:
            if len(s) >= MAX_VALUES:
                return
            if v not in s:
                s.add(v)
                self.changed = True

    def _add_declared(self, key: str, values) -> None:
        """A parameter's annotation (or union member): what the consumer declares it holds,
        kept apart so that what its callers really hand in can stand in its place (`_handed`)."""
        self.declared.setdefault(key, set()).update(values)
        self.add(key, values)

    def _handed(self, key: str, values: set) -> set:
        """A parameter's values without what only its annotation says, where its callers hand it
        target objects: `cache_engine: CacheEngine` given `self.cache_engine` of a vLLM worker,
        which the target made a list of engines. The annotation is the consumer's belief, written
        for the baseline; the callers' value is what arrives, on each side."""
        declared = self.declared.get(key)
        if not declared or not values:
            return values
        rest = values - declared
        return rest if rest and all(v[0] == "T" for v in rest) else values

    def is_target(self, dotted: str) -> bool:
        return any(dotted == p or dotted.startswith(p + ".") for p in self.prefixes)

    # -- evaluation --------------------------------------------------------------------------
    def root(self, root: str) -> set:
        if root.startswith("var:"):
            return self._handed(root, self.pts.get(root, _EMPTY))
        if root.startswith("lit:"):
            return {("S", root[4:])}
        hit = self._roots.get(root)
        if hit is not None:
            return hit
        dotted = root[4:]
        if dotted in self.vars:
            return self.pts.get(root, _EMPTY)
        hit = self._roots[root] = self._sym_root(root, dotted)
        return hit

    def _sym_root(self, root: str, dotted: str) -> set:
        if dotted in self.classes:
            return {("C", dotted)}
        if dotted in self.defs:
            return {("F", dotted)}
        if self.is_target(dotted):
            return {("T", (root,))}
        if dotted.split(".")[0] in self.roots:
            return {("M", dotted)}  # a consumer module (or a name in one drift has no record of)
        return set()

    def eval(self, path) -> set:
        if not path:
            return _EMPTY
        hit = self._memo.get(path)
        if hit is not None:
            return hit
        hit = self._memo[path] = self._eval(path)
        return hit

    def _eval(self, path) -> set:
        cur = self.root(path[0])
        for k, step in enumerate(path[1:], 1):
            nxt: set = set()
            for v in cur:
                got = self.step(v, step)
                if not got and v[0] == "I" and step[:1] == ".":
                    got = self._inherited_member(v[1], step)
                nxt |= got
            cur = nxt
            if not cur:
                break
        return cur

    def _inherited_member(self, qual: str, step: str) -> set:
        """`args.create_engine_config` (a method) or `self.cache_config` (what the target base's
        `__init__` sets) on an object of a consumer subclass of a target class that defines and
        stores no such member: the target base's member (a target path the analysis resolves per
        side), so a call handing it on (`helper(self.cache_config)`) types the helper's parameter.
        Only when every base up the consumer's classes is known (a consumer class, or a target
        class): a base drift has no record of may define it."""
        targets = []
        for cls in self.mro(qual):
            if cls not in self.classes:
                return set()
            for b in self.classes[cls][0]:
                values = self.eval(b) if b else set()
                if not values:
                    return set()
                for bv in values:
                    if bv[0] == "T":
                        if not self._is_class_path(bv[1]):
                            return set()
                        targets.append(bv[1])
                    elif bv[0] != "C":
                        return set()
        if len(targets) != 1:
            return set()  # more than one target base: which one Python finds first is not modelled here
        return {("T", targets[0] + ("()", step))}

    def step(self, v: tuple, step: str) -> set:
        kind = v[0]
        if step == "[*]":  # `TABLE[mode]`: any value of a dict literal, nothing else is followed
            return self._any_value(v) if kind == "D" else set()
        if step[:1] == "[":  # `cfg, cls = build()`: an element of a tuple the consumer's function returns
            return self.pts.get(f"tret:{v[1]}:{step[1:-1]}", set()) if kind == "U" else set()
        if kind == "T":
            if step != "()" and len(v[1]) == 1 and v[1][0].startswith("sym:"):  # a dotted name stays one root (`vllm.x.Y`)
                return self.root(v[1][0] + step)
            return {("T", v[1] + (step,))} if len(v[1]) < MAX_PATH else set()
        if kind == "M":
            return self.root("sym:" + v[1] + step) if step != "()" else set()
        if step == "()":
            if kind == "C":
                return {("I", v[1])}
            if kind == "F":
                return self.pts.get("ret:" + v[1], set())
            if kind == "B":
                return self.pts.get("ret:" + v[1], set())
            return set()
        name = step[1:]
        if kind in ("C", "I"):
            out: set = set()
            for cls in self.mro(v[1]):
                meth = f"{cls}.{name}"
                if meth in self.defs:
                    if meth in self.classmethods:  # `Cls.build(args)`: `cls` is Cls, args fill the rest
                        out.add(("B", meth, ("C", v[1])))
                    else:
                        out.add(("B", meth, v) if kind == "I" and self.defs[meth][0] else ("F", meth))
                    break
                got = self.pts.get(f"field:{cls}:{name}")
                if got:
                    for g in got:
                        out.add(("B", g[1], v) if kind == "I" and g[0] == "F" else g)
                    break
            return out
        return set()

    def _any_value(self, v: tuple) -> set:
        """What `d[k]` may hold, for a key chosen at run time: each value the literal wrote."""
        out: set = set()
        for path in self.dict_values.get(v[1], ()):
            out |= self.eval(path)
        return out

    def mro(self, qual: str) -> list[str]:
        hit = self._mro.get(qual)
        if hit is None:
            hit = self._mro[qual] = self._mro_uncached(qual)
        return hit

    def _mro_uncached(self, qual: str) -> list[str]:
        out, todo = [], [qual]
        while todo and len(out) < 20:
            q = todo.pop(0)
            if q in out:
                continue
            out.append(q)
            todo[:0] = self.bases.get(q, [])
        return out

    # -- solving -----------------------------------------------------------------------------
    def solve(self) -> Solution:
        for qual, (bases, _line) in self.classes.items():
            for b in bases:
                for v in self.eval(_t(b)) if b else ():
                    if v[0] == "C":
                        self.bases.setdefault(qual, []).append(v[1])
                        self.subclasses.setdefault(v[1], set()).add(qual)
        rounds = 0
        self.changed = True
        while self.changed and rounds < MAX_ROUNDS:
            self.changed = False
            rounds += 1
            self._memo = {}
            self._round()
        self._memo = {}
        return self._export(rounds)

    def _instances(self, cls: str) -> list[tuple]:
        out, todo = [], [cls]
        while todo and len(out) < MAX_VALUES:
            c = todo.pop()
            if ("I", c) not in out:
                out.append(("I", c))
                todo += sorted(self.subclasses.get(c, ()))
        return out

    def _bind(self, fn: str, receivers) -> None:
        self.add(f"var:{fn}:{self._param(fn, 0)}", receivers)

    def _param(self, fn: str, i: int) -> str | None:
        params = self.defs[fn][1]
        return params[i][0] if 0 <= i < len(params) else None

    def _override_slots(self, fn: str, params: list) -> None:
        """A method of a class with a base may override a target method: what the target hands
        each of its parameters is the `over:` root the analysis types per side from the target's
        declaration (probes/reach.py names it the same way), so a value vLLM passes in and the
        method hands on (`StorageHandlers(kv_caches=kv_caches)`) types the helper's parameter."""
        positional = [p for p in params if p[3] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        for p in params[1:]:
            if p[3] in ("VAR_POSITIONAL", "VAR_KEYWORD"):
                continue
            i = positional.index(p) if p in positional else -1
            self.add(f"var:{fn}:{p[0]}", (("T", (f"over:{fn}:{i}:{p[0]}",)),))

    def _call_into(self, fn: str, args, kwargs, shift: int) -> None:
        params = self.defs[fn][1]
        slots = [p for p in params if p[3] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        for i, a in enumerate(args):
            if a and 0 <= i + shift < len(slots):
                self.add(f"var:{fn}:{slots[i + shift][0]}", self.eval(a))
        names = {p[0] for p in params if p[3] not in ("POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD")}
        for k, a in kwargs.items():
            if k in names:
                self.add(f"var:{fn}:{k}", self.eval(a))

    def _round(self) -> None:
        for fn, (cls, params, _line) in self.defs.items():
            if cls and params:
                self._bind(fn, [("C", i[1]) for i in self._instances(cls)] if fn in self.classmethods
                           else self._instances(cls))
                if self.classes.get(cls, [[]])[0] and not fn.endswith(".__init__"):
                    self._override_slots(fn, params)
            for name, ann, default, *rest in params:
                if ann:
                    self._add_declared(f"var:{fn}:{name}", self.eval(ann))
                for member in _union_members(rest):  # `engine: A | B`: either may be handed in
                    self._add_declared(f"var:{fn}:{name}", self.eval(member))
                if default:
                    self.add(f"var:{fn}:{name}", self.eval(default))
        for dst, src in self.assign:
            self.add(dst, self.eval(src))
        for dst, ident in self.dict_rows:
            self.add(dst, (("D", ident),))
        for dst, ident in self.closed_rows:
            self.add(dst, (("Z", ident, dst),))
        for dst, src in self.iters:
            for v in self.eval(src):
                if v[0] == "D":
                    self.add(dst, [("K", v[1], i) for i in range(len(self.dicts[v[1]]))])
        for row in self.store:
            obj, attr, src = row[0], row[1], row[2]
            values = self.eval(src)
            if not values:
                continue
            on = self.installed.get(obj[0]) if obj and len(obj) == 1 else None
            if on is not None:  # `self.x = v` in a function bound onto a target class
                self.add(f"tfield:{on}:{attr}", values)
            held = self._slot_key(obj)
            if held is not None:  # `layer.op = MyOp(...)` on a parameter of a consumer class's method
                self.add(f"pobj:{held[0]}:{held[1]}:{attr}", [v for v in values if v[0] in ("I", "F")])
            for o in self.eval(obj):
                if o[0] == "T" and len(o[1]) > 1:  # `layer.op = MyOp(...)` on a target object: the
                    # consumer's own value, called later through the same path (`layer.op(x)`)
                    self.add(f"tobj:{o[1]}:{attr}", [v for v in values if v[0] in ("I", "F")])
                if o[0] in ("C", "I"):
                    self.add(f"field:{o[1]}:{attr}", values)
                    if o[0] == "C":  # a function bound onto a class: self is that class's instance
                        for v in values:
                            if v[0] == "F" and self.defs[v[1]][1]:
                                self._bind(v[1], self._instances(o[1]))
                elif o[0] == "T":
                    for v in values:  # a function bound onto a target class: self is its instance
                        if v[0] == "F" and self.defs[v[1]][1] and self._is_class_path(o[1]):
                            self._bind(v[1], {("T", o[1] + ("()",))})
                            me = f"var:{v[1]}:{self._param(v[1], 0)}"
                            if self.installed.get(me) is None and o[1][0].startswith("sym:"):
                                self.installed[me] = o[1][0][4:]
                                self.changed = True
        for qual, rows in self.fields.items():
            for name, ann in rows:
                if ann:  # `plugin: Optional[PluginConfig] = None`: the field holds one
                    self.add(f"field:{qual}:{name}", self.eval(ann))
        for fn, ann in self.retann:  # `def current() -> Config`: an object of the consumer's class
            self.add("ret:" + fn, [v for v in self.eval(ann) if v[0] == "I"])
        for callee, args, kwargs, _line in self.call:
            if _dotted(callee) in _REPLACERS and args and args[0]:  # `dataclasses.replace(obj, f=v)`
                for o in self.eval(args[0]):
                    if o[0] == "I":
                        self._fill_record(o[1], [], kwargs)
            for c in self._callees(callee):
                if c[0] == "F":
                    self._call_into(c[1], args, kwargs, 0)
                elif c[0] == "B":
                    self._call_into(c[1], args, kwargs, 1)
                    self._bind(c[1], {c[2]})
                elif c[0] == "C":
                    init = [v for v in self.step(("I", c[1]), ".__init__") if v[0] == "B"]
                    for b in init:
                        self._call_into(b[1], args, kwargs, 1)
                    if not init:  # a record's generated __init__ fills its fields
                        self._fill_record(c[1], args, kwargs)
                elif c[0] == "I":
                    for b in self._call_method(c):
                        self._call_into(b[1], args, kwargs, 1)
        self._method_types()
        for fn, expr in self.ret:
            self.add("ret:" + fn, self.eval(expr))
        for fn, i, expr in self.tret:  # `return cfg, cls`: ("U", fn) is that tuple, its elements typed apart
            self.add("ret:" + fn, (("U", fn),))
            self.add(f"tret:{fn}:{i}", self.eval(expr))

    def _callees(self, callee) -> set:
        """What a call's callee may be: its value, and for `obj.attr(...)` with obj a target object,
        what the consumer itself stored there (`layer.op = MyOp(...)`, then `layer.op(x)`)."""
        out = self.eval(callee)
        if callee and len(callee) > 1 and callee[-1].startswith(".") and callee[-1] != ".__init__":
            attr = callee[-1][1:]
            extra = {v for o in self.eval(callee[:-1]) if o[0] == "T"
                     for v in self.pts.get(f"tobj:{o[1]}:{attr}", ())}
            held = self._slot_key(callee[:-1])
            if held is not None:
                for cls in self.mro(held[0]):
                    extra |= self.pts.get(f"pobj:{cls}:{held[1]}:{attr}", set())
            if extra:
                out = out | extra
        return out

    def _slot_key(self, obj) -> tuple[str, str] | None:
        """(class, parameter) when `obj` is a parameter (not the receiver) of a method of a consumer
        class: the target hands its methods one object in that slot (a quant method's `layer`, set
        up in `process_weights_after_loading`, called in `apply`), whatever its annotation says."""
        if not obj or len(obj) != 1 or not obj[0].startswith("var:"):
            return None
        fn, _, name = obj[0][4:].rpartition(":")
        spec = self.defs.get(fn)
        if spec is None or not spec[0] or len(spec[1]) < 2 or spec[1][0][0] == name:
            return None
        return (spec[0], name) if any(p[0] == name for p in spec[1][1:]) else None

    def _call_method(self, obj: tuple) -> list[tuple]:
        """The bound method a call of a consumer object runs: its `__call__`, or `forward` for a
        torch module (whose `__call__` is torch's and runs `forward` with the same arguments)."""
        called = [v for v in self.step(obj, ".__call__") if v[0] == "B"]
        if called or not self._torch_module(obj[1]):
            return called
        return [v for v in self.step(obj, ".forward") if v[0] == "B"]

    def _torch_module(self, qual: str) -> bool:
        for cls in self.mro(qual):
            for b in (self.classes.get(cls) or [[]])[0]:  # torch is no target: its path as written
                if b and _dotted(b) in _TORCH_MODULES:
                    return True
        return False

    def _call_edges(self) -> dict[str, list[list[Any]]]:
        """"path:line" of each call -> [[consumer function, slot shift, callee path]] it may run."""
        out: dict[str, list[list[Any]]] = {}
        for row in self.call:
            callee = row[0]
            runs = []
            for c in self._callees(callee):
                if c[0] in ("F", "B"):
                    runs.append([c[1], 0 if c[0] == "F" else 1])
                elif c[0] == "C":
                    runs += [[b[1], 1] for b in self.step(("I", c[1]), ".__init__") if b[0] == "B"]
                elif c[0] == "I":
                    runs += [[b[1], 1] for b in self._call_method(c)]
            if runs:
                key = f"{self.where.get(id(row), '')}:{row[3]}"
                have = out.setdefault(key, [])
                for fn, shift in runs:
                    if [fn, shift, list(callee)] not in have:
                        have.append([fn, shift, list(callee)])
        return out

    def _record_fields(self, qual: str) -> list[str]:
        """The fields a record class's generated `__init__` takes, in order: its records' bases'
        first (a dataclass inheriting one), each name once."""
        out: list[str] = []
        for cls in reversed(self.mro(qual)):
            for name, _ann in self.fields.get(cls, ()):
                if name not in out:
                    out.append(name)
        return out

    def _fill_record(self, qual: str, args, kwargs) -> None:
        """`Record(a, f=v)` (or `replace(obj, f=v)`): each argument is what its field holds."""
        names = self._record_fields(qual)
        if not names:
            return
        for i, a in enumerate(args):
            if a and i < len(names):
                self.add(f"field:{qual}:{names[i]}", self.eval(a))
        for k, a in kwargs.items():
            if k in names:
                self.add(f"field:{qual}:{k}", self.eval(a))

    def _method_types(self) -> None:
        """`types.MethodType(fn, obj)` and the descriptor call `fn.__get__(obj, Cls)`: fn's first
        parameter is obj, whatever obj holds (an object of a target class, a consumer instance),
        and for `__get__` an object of the class it names (`llama_attn_forward.__get__(m,
        LlamaAttention)` inside an `nn.Module.apply` callback, where `m` is any module)."""
        for callee, args, _kwargs, _line in self.call:
            if len(args) >= 2 and args[0] and args[1] and _binder(callee) == "MethodType":
                receivers = {v for v in self.eval(args[1]) if v[0] in ("T", "I")}
                for v in self.eval(args[0]) if receivers else ():
                    if v[0] == "F" and self.defs[v[1]][1]:
                        self._bind(v[1], receivers)
            elif callee and len(callee) >= 2 and callee[-1] == ".__get__" and args and args[0]:
                named = self.eval(args[1]) if len(args) >= 2 and args[1] else set()
                receivers = {("T", v[1] + ("()",)) for v in named if v[0] == "T" and self._is_class_path(v[1])} | \
                            {("I", v[1]) for v in named if v[0] == "C"}
                if not receivers:
                    receivers = {v for v in self.eval(args[0]) if v[0] in ("T", "I")}
                for v in self.eval(callee[:-1]) if receivers else ():
                    if v[0] == "F" and self.defs[v[1]][1]:
                        self._bind(v[1], receivers)

    def _signature_tests(self) -> list[dict[str, Any]]:
        """Each `if "p" in inspect.signature(C).parameters:` whose C the solution types as target
        callables only (one, or one per branch that bound it): the analysis answers the test per
        release from the facts. A C that may be the consumer's own, or is unknown, is left out."""
        return [dict(row, takes=row.pop("has")) for row in self._feature_rows(self.sigtests, "callees")]

    def _feature_rows(self, rows: list, key: str) -> list[dict[str, Any]]:
        """Feature tests (a signature's parameter, `hasattr`) whose subject the solution types as
        target objects only: {"name", key: [paths], "has", "lacks", "path", "line"}."""
        out = []
        for name, subject, has, lacks, where, line in rows:
            values = self.eval(subject)
            if not values or any(v[0] != "T" for v in values) or len(values) > MAX_VALUES:
                continue
            out.append({"name": name, key: sorted(list(v[1]) for v in values), "has": has,
                        "lacks": lacks, "path": where, "line": line})
        return out

    def _key_uses(self) -> list[dict[str, Any]]:
        """Keys written as string literals that reach `setattr(obj, k, v)` / `hasattr` / `getattr`
        (through `for k, v in d.items()`) or a call's `**d`, with the target object or callee as
        a path; a dict that went through a signature filter on the way is left out."""
        out = []
        popped = {(v[1], name) for path, name in self.popped for v in self.eval(path) if v[0] == "D"}
        for how, obj, key, where, line, col in self.key_sites:
            targets = [v[1] for v in self.eval(obj) if v[0] == "T"]
            if how == "call":  # `Mine(**d)` where Mine writes no __init__: the target base's runs
                targets += [t for v in self.eval(obj) if v[0] == "C" for t in [self._target_ctor(v[1])] if t]
            if not targets:
                continue
            if how == "call":
                if key and key[0] in self.filtered:
                    continue
                keys = [(v[1], i) for v in self.eval(key) if v[0] == "D" for i in range(len(self.dicts[v[1]]))]
            else:
                if any(src[0] in self.filtered for dst, src in self.iters if key and dst == key[0] and src):
                    continue
                keys = [(v[1], v[2]) for v in self.eval(key) if v[0] == "K"]
            for ident, i in keys:
                name, kpath, kline, kcol = self.dicts[ident][i]
                if (ident, name) in popped:
                    continue  # taken out of the dict before it is handed on (flow-insensitive: anywhere)
                for t in targets[:2]:
                    out.append({"how": how, "target": list(t), "key": name, "path": kpath, "line": kline,
                                "col": kcol, "site": [where, line, col],
                                "may": bool(key and key[0] in self.maybe) or len(targets) > 1})
        return out

    def _target_ctor(self, qual: str, depth: int = 0) -> tuple[str, ...] | None:
        """The target class whose constructor building consumer class `qual` runs: its bases in
        order, depth first, through consumer bases that define no `__init__` of their own; None
        when a consumer `__init__` comes first (its own parameters take the keys)."""
        if depth > 8 or self._own_init(qual):
            return None
        for b in self.classes.get(qual, [[]])[0]:
            for v in self.eval(b) if b else ():
                if v[0] == "T":
                    return v[1]
                if v[0] == "C":
                    if self._own_init(v[1]):
                        return None
                    found = self._target_ctor(v[1], depth + 1)
                    if found:
                        return found
        return None

    def _own_init(self, qual: str) -> bool:
        return f"{qual}.__init__" in self.defs or bool(self.pts.get(f"field:{qual}:__init__"))

    def class_named(self, text: str) -> str | None:
        """The consumer class a dotted name (`"pkg.mod.Ext"`, `"pkg.mod:Ext"`) names, followed
        through the modules that import it from their own package (`pkg/__init__.py: from .impl
        import Ext`, or an alias kept in an old module for old configs), as Python's import does."""
        qual = text.replace(":", ".")
        for _hop in range(8):
            if qual in self.classes:
                return qual
            qual = self.reexports.get(qual)
            if qual is None:
                return None
        return None

    def _named(self) -> dict[str, list[str]]:
        """Consumer classes whose dotted name (`"pkg.mod.Ext"`, `"pkg.mod:Ext"`) reaches a keyword,
        dict key or attribute that names a class (`worker_extension_cls=...`,
        `parallel_config.worker_cls = "pkg.mod.Worker"`): the target builds them."""
        rows = list(self.keys)
        for _callee, _args, kwargs, _line in self.call:
            rows += [(k, v) for k, v in kwargs.items() if k.endswith(_NAMING_KEYS)]
        rows += [(attr, src) for _obj, attr, src, _line in self.store if attr.endswith(_NAMING_KEYS)]
        out: dict[str, set[str]] = {}
        for key, path in rows:
            for v in self.eval(path):
                if v[0] == "S":
                    qual = self.class_named(v[1])
                    if qual is not None:
                        out.setdefault(key, set()).add(qual)
                elif v[0] == "C":  # the class itself, not its name
                    out.setdefault(key, set()).add(v[1])
        return {k: sorted(v) for k, v in out.items()}

    def _closed_kwargs(self) -> dict[str, list[str]]:
        """Calls whose every `**d` holds only dicts whose keys are all known: each value a
        closed dict, or a literal dict of a variable that is itself closed (its own rows), or a
        function's own `**kwargs` that every caller fills with known keys (`_closed_params`)."""
        params = self._closed_params()
        out: dict[str, list[str]] = {}
        for paths, where, line in self.starcalls:
            keys = self._star_keys(paths, params)
            if keys is not None:
                out[f"{where}:{line}"] = sorted(keys)
        return out

    def _star_keys(self, paths, params: dict[str, set[str]]) -> set[str] | None:
        """Every key the `**d` dicts of one call can hold, or None where one of them may hold
        keys drift does not know."""
        dst_of = self._dst_of()
        keys: set[str] = set()
        for p in paths:
            if p is None or len(p) != 1 or p[0] in self.opened:
                return None  # `**x` where keys drift does not know may enter x itself
            if p[0] in params:
                keys |= params[p[0]]
                continue
            values = self.eval(p)
            owners = {v[2] for v in values if v[0] == "Z"}
            if not owners or any(v[0] != "Z" and not (v[0] == "D" and dst_of.get(v[1]) in owners) for v in values):
                return None
            keys.update(k for v in values if v[0] == "Z" for k in self.closed[v[1]])
        return keys

    def _dst_of(self) -> dict[str, str]:
        hit = getattr(self, "_dst_memo", None)
        if hit is None:
            hit = self._dst_memo = {ident: dst for dst, ident in self.dict_rows}
        return hit

    def _closed_params(self) -> dict[str, set[str]]:
        """The `**kwargs` of plain consumer functions whose keys are all known: the function is
        called at least once, only ever called (never handed anywhere as a value, so no caller
        drift does not see), and every call writes its keywords or passes dicts themselves
        closed. Then the dict holds those keywords and the literal keys the body adds, nothing
        else (`main()` -> `launch(args, **kw)` -> `serve(app, **kw)`: empty all the way down).
        Solved from the callers inward; a function whose callers' dicts stay unknown stays open."""
        calls: dict[str, list] = {}
        for callee, kws, stars in self.owncalls:
            for v in self.eval(callee):
                if v[0] == "F" and v[1] in self.kwparams:
                    calls.setdefault(v[1], []).append((kws, stars))
        escaped = self._escaped_functions()
        todo = {fn for fn in calls if fn not in escaped}
        out: dict[str, set[str]] = {}
        while True:
            grown = False
            for fn in sorted(todo - {f for f in todo if self.kwparams[f][0] in out}):
                keys = set(self.kwparams[fn][1])
                for kws, stars in calls[fn]:
                    got = self._star_keys(stars, out) if stars else set()
                    if got is None:
                        break
                    keys |= set(kws) | got
                else:
                    out[self.kwparams[fn][0]] = keys
                    grown = True
            if not grown:
                return out

    def _escaped_functions(self) -> set[str]:
        """Consumer functions some value flows to other than a call's callee (an assignment, an
        argument, a store, a return, a dict's value): whoever gets them may call them with anything."""
        nested = {(f"var:{q.rpartition('.')[0]}:{q.rpartition('.')[2]}", (f"sym:{q}",)) for q in self.defs}
        paths = [src for dst, src in self.assign if (dst, src) not in nested]  # a nested def's own name is no escape
        for _callee, args, kwargs, _line in self.call:
            paths += args
            paths += kwargs.values()
        paths += [row[2] for row in self.store]
        paths += [expr for _fn, expr in self.ret]
        for values in self.dict_values.values():
            paths += values
        paths += [(root,) for root in self.valuerefs]
        out: set[str] = set()
        for p in paths:
            out.update(v[1] for v in self.eval(p) if v[0] == "F")
        return out

    def _target_aliases(self) -> dict[str, list[tuple[str, ...]]]:
        """Module-level names of the consumer bound only to target names (`FusedMoEFactory =
        vllm_fused_moe.FusedMoEFactory`, a fallback to another name in the `else` of a `hasattr`
        test): another module that imports the name from the consumer's module reaches the
        target's. Which one a side binds is for the evaluator, which knows which exist there."""
        out = {}
        for dotted in self.vars:
            values = self.pts.get("sym:" + dotted)
            if values and all(v[0] == "T" for v in values):
                out[dotted] = sorted(v[1] for v in values)
        return out

    def _module_objects(self) -> dict[str, list[str]]:
        """Module-level names of the consumer that hold only objects of its own classes (`current:
        Platform` served by a module `__getattr__`, `PLATFORM = Platform()`): another module that
        imports the name calls that class's methods on it."""
        out = {}
        for dotted in self.vars:
            values = self.pts.get("sym:" + dotted)
            if values and all(v[0] == "I" for v in values):
                out[dotted] = sorted({v[1] for v in values})
        return out

    def _registered(self) -> list[dict[str, Any]]:
        """Consumer classes a call of the target is given, by object or by name: the class itself,
        one `"pkg.mod.Cls"` / `"pkg.mod:Cls"` string, or a module string followed by the class's
        name (`register_engine("delta", "pkg.mod", "Cls")`, a lazy registry). The target's
        parameter there says what it will take the class for (`type[Engine]`)."""
        out: list[dict[str, Any]] = []
        for row in self.call:
            callee, args, kwargs, line = row
            targets = [v[1] for v in self.eval(callee) if v[0] == "T"] if callee else []
            dotted = [d for d in map(_dotted, targets) if d]
            # a method of a target object (`engine.attach(...)`): its path, for the evaluator
            on_object = sorted(t for t in targets if not _dotted(t) and t[-1].startswith("."))
            if not dotted and not on_object:
                continue
            # one callee; or each method of a target object a local may hold (`fn = self.chat.create`
            # in one branch, `= self.completion.create` in the other): each is called on some path
            wheres = [{"callee": dotted[0]}] if dotted else \
                [{"callee": "".join(t[1:]).lstrip("."), "callee_path": list(t)} for t in on_object[:3]]
            slots = [(i, self.eval(a) if a else _EMPTY) for i, a in enumerate(args)]
            slots += [(k, self.eval(a) if a else _EMPTY) for k, a in kwargs.items()]
            for where in wheres:
                for n, (slot, values) in enumerate(slots):
                    follow = slots[n + 1][1] if n + 1 < len(slots) and isinstance(slots[n + 1][0], int) else _EMPTY
                    for cls in sorted(self._classes_given(values, follow)):
                        out.append({**where, "arg": slot, "class": cls,
                                    "path": self.where.get(id(row), ""), "line": line})
                    for cls in sorted({v[1] for v in values if v[0] == "I"}):  # an object the target keeps
                        out.append({**where, "arg": slot, "class": cls, "instance": True,
                                    "path": self.where.get(id(row), ""), "line": line})
        return out

    def _classes_given(self, values, follow) -> set[str]:
        """The consumer classes one argument names: the class, its dotted name, or (with the next
        argument, a class name) its module's name."""
        out: set[str] = set()
        for v in values:
            if v[0] == "C":
                out.add(v[1])
            elif v[0] == "S":
                qual = self.class_named(v[1])
                if qual is not None:
                    out.add(qual)
                    continue
                out.update(f"{v[1]}.{w[1]}" for w in follow
                           if w[0] == "S" and f"{v[1]}.{w[1]}" in self.classes)
        return out

    def _is_class_path(self, path: tuple[str, ...]) -> bool:
        """A target path that names a class by convention (`vllm.x.Worker`): the last dotted part
        is capitalised and nothing was called on the way."""
        return len(path) == 1 and path[0].rsplit(".", 1)[-1][:1].isupper()

    def _export(self, rounds: int) -> Solution:
        sol = Solution(rounds=rounds)
        for key, values in self.pts.items():
            if key.startswith("field:"):
                _, cls, attr = key.split(":", 2)
                paths = sorted({p for p in map(_as_path, values) if p})
                if paths:
                    sol.attrs.setdefault(cls, {})[attr] = paths
            elif key.startswith("tfield:"):
                _, cls, attr = key.split(":", 2)
                paths = sorted({p for p in map(_as_path, values) if p})
                if paths:
                    sol.target_attrs.setdefault(cls, {})[attr] = paths
            elif key.startswith("var:"):
                _, fn, name = key.split(":", 2)
                spec = self.defs.get(fn)
                if spec is None:
                    continue
                name, rebound, _ = name.partition("~")  # `args~1`: a later binding of `args` (probes/rebinding.py)
                objects = sorted({v[1] for v in values if v[0] == "I"}) \
                    if spec[0] and spec[1] and name != spec[1][0][0] else []
                if objects:
                    held = f"{fn}:{name}"
                    sol.method_objects[held] = sorted(set(sol.method_objects.get(held, ())) | set(objects))
                if rebound:
                    continue  # no longer the parameter's value
                idx = next((i for i, p in enumerate(spec[1]) if p[0] == name), None)
                if idx is None:
                    continue
                paths = sorted({p for p in map(_as_path, self._handed(key, values)) if p})
                if paths:
                    sol.params[f"{fn}:{idx}"] = paths
                    if len(spec[1][idx]) > 3 and spec[1][idx][3] == "KEYWORD_ONLY":
                        sol.params[f"{fn}:-1:{name}"] = paths  # the probe names a keyword-only one `fn:-1:name`
        sol.names = self._target_aliases()
        sol.module_objects = self._module_objects()
        sol.closed_kwargs = self._closed_kwargs()
        for cls in self.classes:
            init = [v for v in self.step(("I", cls), ".__init__") if v[0] == "B"]
            if len(init) == 1:
                sol.inits[cls] = init[0][1]
            elif len(init) > 1:
                sol.init_choices[cls] = sorted({b[1] for b in init})
        sol.signatures = {fn: [[p[0], p[3], p[4]] for p in spec[1]] for fn, spec in self.defs.items()}
        sol.lines = {fn: spec[2] for fn, spec in self.defs.items()}
        sol.gives = dict(self.gives)
        sol.named = self._named()
        sol.key_uses = self._key_uses()
        sol.signature_tests = self._signature_tests()
        sol.attribute_tests = self._feature_rows(self.hastests, "objects")
        sol.registered = self._registered()
        own = {m for m in self.modules}
        sol.module_swaps = [{"target": a, "consumer": b, "path": where, "line": line, "col": col}
                            for a, b, where, line, col in self.modmap if self.is_target(a) and b in own]
        for fn, expr in self.ret:
            values = self.eval(expr)
            classes = sorted(v[1] for v in values if v[0] == "C")
            if classes:
                sol.returned[fn] = sorted(set(sol.returned.get(fn, [])) | set(classes))
            objects = sorted(v[1] for v in values if v[0] == "I")
            if objects:
                sol.returned_objects[fn] = sorted(set(sol.returned_objects.get(fn, [])) | set(objects))
            functions = sorted(v[1] for v in values if v[0] in ("F", "B", "M"))  # "M": a name of a consumer
            # module drift has no record of (one that never names the target): still the consumer's own
            if functions:
                sol.returned_functions[fn] = sorted(set(sol.returned_functions.get(fn, [])) | set(functions))
        for fn, ann in self.retann:
            values = self.eval(ann)
            objects = {v[1] for v in values if v[0] == "I"}
            if objects:
                sol.annotated_objects[fn] = sorted(set(sol.annotated_objects.get(fn, [])) | objects)
            classes = {v[1][:-1] for v in values if v[0] == "T" and len(v[1]) == 2 and v[1][-1] == "()"
                       and self._is_class_path(v[1][:-1])}  # the annotation's path: an object of the class
            if classes:  # `-> LLMEngine`: an accessor of a target object stored elsewhere
                sol.annotated_targets[fn] = sorted(set(sol.annotated_targets.get(fn, [])) | classes)
        sol.target_stores = self._target_stores()
        sol.target_args = self._target_args()
        sol.call_edges = self._call_edges()
        sol.str_params = dict(self.str_params)
        for row in self.store:
            obj, attr, src, line = row[0], row[1], row[2], row[3]
            for o in self.eval(obj):
                for v in self.eval(src):
                    if o[0] == "C" and v[0] == "F":
                        sol.bound.setdefault(v[1], o[1])
                    if o[0] == "T" and len(o[1]) == 1 and v[0] in ("C", "F", "M"):
                        # "M": a consumer name drift has no record of (its module never names the
                        # target): still the consumer's value where the target's was
                        sol.replacements.append({"path": self.where.get(id(row), ""), "line": line,
                                                 "target": o[1][0][4:] + "." + attr, "consumer": v[1],
                                                 "kind": {"C": "class", "F": "function"}.get(v[0], "other")})
        return sol


    def _target_args(self) -> list[dict[str, Any]]:
        """Each positional argument the solution types as target objects only (a parameter annotated
        `ModelConfig`, `self.parallel_config` in a method bound onto a target class), handed to a
        callee it types as target values only: what a slot the target renamed and retyped receives."""
        out = []
        for row in self.call:
            callee, args, _kwargs, line = row
            callees = self.eval(callee) if callee else []
            if not callees or any(v[0] != "T" for v in callees) or len(callees) > MAX_VALUES:
                continue
            for i, arg in enumerate(args):
                values = self.eval(arg) if arg else []
                if not values or any(v[0] != "T" or len(v[1]) < 2 for v in values) or len(values) > MAX_VALUES:
                    continue
                out.append({"callees": sorted(list(v[1]) for v in callees), "position": i,
                            "objects": sorted(list(v[1]) for v in values), "path": self.where.get(id(row), ""),
                            "line": line})
        return out

    def _target_stores(self) -> list[dict[str, Any]]:
        """Each `obj.attr = v` (a value or a literal) whose obj the solution types as target objects
        only: {"attr", "objects": [paths], "path", "line"}. A module (a one-step path) is left out:
        a name assigned into it is a replacement (`replacements`), not an attribute of an object."""
        rows = [(row[0], row[1], self.where.get(id(row), ""), row[3]) for row in self.store]
        rows += [(obj, attr, where, line) for obj, attr, line, where in self.attrset]
        out = []
        for obj, attr, where, line in rows:
            values = self.eval(obj)
            if not values or any(v[0] != "T" or len(v[1]) < 2 for v in values) or len(values) > MAX_VALUES:
                continue
            out.append({"attr": attr, "objects": sorted(list(v[1]) for v in values), "path": where, "line": line})
        return sorted(out, key=lambda r: (r["path"], r["line"], r["attr"]))


def solve(usage: list[dict[str, Any]], prefixes: tuple[str, ...]) -> Solution:
    """The consumer model solved over every module's IR at once."""
    return _Solver(usage, prefixes).solve()


def top_level_names(mod: dict[str, Any] | None) -> set[str] | None:
    """The names a consumer module defines at its top, as far as its IR and imports show:
    functions, classes, names assigned from a recorded value, and names it imports (anywhere).
    None when it has no IR or may define any name (a module `__getattr__`, a star import)."""
    if not mod or not mod.get("ir") or not isinstance(mod.get("module"), str):
        return None
    try:
        ir = ir_of(mod)
    except (TypeError, ValueError):
        return None
    prefix = mod["module"] + "."
    out: set[str] = set()
    for qual in list(ir.get("defs") or {}) + list(ir.get("classes") or {}):
        if isinstance(qual, str) and qual.startswith(prefix) and "." not in qual[len(prefix):]:
            out.add(qual[len(prefix):])
    for dst, _src in ir.get("assign") or []:
        if isinstance(dst, str) and dst.startswith("sym:" + prefix) and "." not in dst[4 + len(prefix):]:
            out.add(dst[4 + len(prefix):])
    for imp in mod.get("imports") or []:
        local = imp.get("local") if isinstance(imp, dict) else None
        if local == "*":
            return None
        if isinstance(local, str):
            out.add(local)
    return None if "__getattr__" in out else out


def top_level_line(mod: dict[str, Any]) -> int | None:
    """The line of a consumer module's first top-level function or class (None when it has
    none): an import above it runs when the module loads."""
    try:
        ir = ir_of(mod)
    except (TypeError, ValueError):
        return None
    prefix = mod.get("module", "") + "."
    lines = [spec[2] for q, spec in (ir.get("defs") or {}).items()
             if isinstance(q, str) and q.startswith(prefix) and "." not in q[len(prefix):]]
    lines += [spec[1] for q, spec in (ir.get("classes") or {}).items()
              if isinstance(q, str) and q.startswith(prefix) and "." not in q[len(prefix):]]
    return min((n for n in lines if isinstance(n, int)), default=None)
