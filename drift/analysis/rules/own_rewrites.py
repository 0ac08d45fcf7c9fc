"""A removed keyword dropped the way the target dropped it from its own identical call.

Why: `drop_keyword` of a value that is not the baseline's default is unsafe on its own (the
consumer chose the value; the target may want it under another name). But when the baseline's
own code made the very same call, passing the very same expression for that keyword, and the
target's version of that function still makes the call without it, vLLM's maintainers already
judged the rewrite for this exact argument (MELT's "learn from the library's own migration").
vLLM 0.11's `WorkerLoRAManager._load_adapter` passed `target_embedding_padding=self.vocab_size +
self.lora_config.lora_extra_vocab_size` to `from_local_checkpoint`; 0.12's passes
`model_vocab_size=self.vocab_size` instead, and a plugin's copy of that call gets the same edit.

Read from the probe's `kw_calls` / `ctor_calls` facts (argument texts per call), never from source.
What the target's call adds in place of the dropped keywords may carry a dropped setting on
(vLLM 0.13's own `get_rope(...)` calls lost `base=rope_theta` and gained `rope_parameters=
config.rope_parameters`: leaving that out would silently fall back to the default base), so each
added keyword is written too, in the target's words, and only when every dotted name it reads
(`self.vocab_size`) is one the consumer's verbatim arguments read, whole or as a prefix (so it
exists and means the same at the consumer's call: `self.config.rope_parameters` is not written
where the consumer's call never read `self.config`);
otherwise there is no rewrite and the drop stays unsafe.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from drift.analysis.rules.fix_tiers import same_value
from drift.analysis.rules.values import _functions, kw_calls, pos_calls
from drift.findings import Location
from drift.model.facts import ModuleFacts
from drift.model.index import call_of


@dataclass(frozen=True)
class OwnRewrite:
    function: str  # the target's function that made the same call
    evidence: Location  # its rewritten call in the target
    baseline_evidence: Location  # its call in the baseline, the consumer's verbatim
    add: dict[str, str] = field(default_factory=dict)  # keywords the rewrite writes, in order
    callee: str = ""  # the name the target's call calls: the consumer's callee or a sibling method


def _roots(src: str | None) -> set[str] | None:
    """The names an expression reads (`self.a + b.c` -> {self, b}); None when it does not parse
    or the probe cut it."""
    if not src or src.endswith("…"):
        return None
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        return None
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {"None", "True", "False"}


def _callables(ctx, rc, kw: str):  # type: ignore[no-untyped-def]
    """(name, baseline parameter names, target parameters by name) of the callee, then of each
    sibling method of its class that lost `kw` too: vLLM may have rewritten its own call of
    `from_local_checkpoint` but never called `from_lora_tensors` with a plugin's expressions."""
    yield (rc.rec["callee_src"].rsplit(".", 1)[-1], {p.name for p in rc.baseline_params},
           {p.name: p for p in rc.target_params})
    at = rc.target_params_at
    owner = at.owner if at is not None and at.kind == "method" else None
    base_at = rc.baseline_params_at
    base_owner = base_at.owner if base_at is not None and base_at.kind == "method" else None
    if owner is None or base_owner is None:
        return
    base_methods = base_owner.as_class.methods
    for name, meth in sorted(owner.as_class.methods.items()):
        old = base_methods.get(name)
        if name == at.dotted.rsplit(".", 1)[-1] or old is None:
            continue
        before, after = old.params, meth.params
        if any(p.name == kw for p in before) and not any(p.name == kw for p in after):
            yield name, {p.name for p in before}, {p.name: p for p in after}


def _chains(src: str | None) -> set[str] | None:
    """The dotted names an expression reads, each whole (`self.a.b + c` -> {self.a.b, c}); None when
    it does not parse or the probe cut it."""
    if not src or src.endswith("…"):
        return None
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        return None
    out: set[str] = set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)) and id(node) not in inner:
            parts = []
            cur = node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id not in ("None", "True", "False"):
                out.add(".".join([cur.id, *reversed(parts)]))
    return out


def own_rewrite(ctx, rc, kw: str) -> OwnRewrite | None:  # type: ignore[no-untyped-def]
    """The target's rewrite of its own identical call dropping `kw`, if the facts show one."""
    baseline = getattr(ctx, "baseline", None)
    if baseline is None or rc.baseline_params is None or rc.target_params is None:
        return None
    consumer_kw = rc.rec.get("kw_values") or {}
    value = consumer_kw.get(kw)
    if not value or _roots(value) is None:
        return None
    mine_target = {p.name: p for p in rc.target_params}
    for name, base_names, target in _callables(ctx, rc, kw):
        found = _rewrite_of(ctx, baseline, name, kw, consumer_kw, base_names, target, mine_target)
        if found is not None:
            return found
    return None


def _rewrite_of(ctx, baseline, name, kw, consumer_kw, base_names, target, mine_target):  # type: ignore[no-untyped-def]
    """The rewrite of the baseline's own calls of `name` that pass the consumer's `kw=` verbatim."""
    value = consumer_kw[kw]
    after = kw_calls(ctx.target, name)
    for b in kw_calls(baseline, name):
        if not same_value(b["keywords"].get(kw), value) or not set(b["keywords"]) <= base_names:
            continue  # not the consumer's argument, or a call of another callable of that name
        mine = [a for a in after if a["function"] == b["function"] and set(a["keywords"]) <= set(target)]
        same_path = [a for a in mine if a["path"] == b["path"]]
        mine = same_path or mine
        if len(mine) != 1 or kw in mine[0]["keywords"]:
            continue  # not exactly one call there, or the target still passes it
        a = mine[0]
        matched: set[str] = set()
        for k, v in b["keywords"].items():
            if same_value(consumer_kw.get(k), v):
                matched |= _chains(v) or set()
        add: dict[str, str] = {}
        ok = True
        for k, v in a["keywords"].items():
            if k in b["keywords"] or k in consumer_kw:
                continue
            chains = _chains(v)
            # any keyword the target's call adds may carry a dropped setting on (vLLM's get_rope lost
            # base=rope_theta and gained rope_parameters=config.rope_parameters): the rewrite is written
            # whole, in the target's words, or not at all
            if chains is None or k not in mine_target or not all(
                    any(m == c or m.startswith(c + ".") for m in matched) for c in chains):
                ok = False
                break
            add[k] = v.strip()
        if ok:
            return OwnRewrite(a["function"], Location(a["path"], a["line"], symbol=a["function"]),
                              Location(b["path"], b["line"], symbol=b["function"]), add, name)
    return None


@dataclass(frozen=True)
class PositionalRewrite:
    """The target's rewrite of its own positional call that the consumer's call copies."""
    function: str  # the target's function that made the call in both releases
    evidence: Location  # its call in the target
    baseline_evidence: Location  # its call in the baseline
    before: tuple[str, ...]  # the baseline's argument texts: the consumer's call must pass exactly these
    after: tuple[str, ...]  # what the consumer's call passes instead, in its terms
    names: dict[str, str]  # names the new arguments read beyond `before`: "" a local of the calling function, else its import
    built: dict[str, str]  # a target local written as the expression that built it -> that expression
    add: dict[str, str] = field(default_factory=dict)  # an append: the new required arguments, by keyword


_BUILTINS = frozenset(dir(__import__("builtins")))


def _slots(params) -> list:  # type: ignore[no-untyped-def]
    return [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]


def _binds(params, n: int) -> bool:  # type: ignore[no-untyped-def]
    """n positional arguments fit `params` and pass every parameter it requires."""
    slots = _slots(params)
    if n > len(slots) and not any(p.kind == "VAR_POSITIONAL" for p in params):
        return False
    return all(not p.required for p in params[n:] if p.kind != "VAR_POSITIONAL") and \
        all(not p.required for p in params if p.kind == "KEYWORD_ONLY")


def _as_argument(text: str) -> str:
    """`text` as one argument of a call (a walrus or a bare generator needs parentheses)."""
    try:
        ast.parse(f"f({text}, 0)", mode="eval")
        return text
    except SyntaxError:
        return f"({text})"


def positional_rewrite(ctx, rc, *, append_only: bool) -> PositionalRewrite | None:  # type: ignore[no-untyped-def]
    """The rewrite of the baseline's own positional call of the consumer's callee (facts +pc), from
    the function that made it in both releases, when the consumer's call may be that very call: the
    callee written as the baseline wrote it, as many positional arguments, no keywords. `append_only`: the target kept the baseline's arguments
    and appended required ones (DRIFT011), written up to the last one the target requires; else the
    target's arguments replace the baseline's (DRIFT012). What the new arguments read must be read by
    the old ones (the same objects at the consumer's call: `any_request.request_id` where the call
    passed `any_request`; `self.x` only where the old ones read `self.x`), or be a local of the
    calling function or a module the file imports (`names`, which the codemod checks); a target
    local is written as the expression that built it, when that reads no more than those."""
    baseline = getattr(ctx, "baseline", None)
    if baseline is None or rc.baseline_params is None or rc.target_params is None:
        return None
    if rc.rec["keywords"] or rc.rec["star_args"] or rc.rec["star_kwargs"]:
        return None
    n = rc.rec["positional"]
    name = rc.rec["callee_src"].rsplit(".", 1)[-1]
    after_calls = pos_calls(ctx.target, name)
    for b in pos_calls(baseline, name):
        if b.get("callee") != rc.rec["callee_src"] or not _binds(rc.baseline_params, n):
            continue  # the consumer's copy calls it as the baseline did (`self.kv_cache_manager.m(...)`)
        if len(b["args"]) != n and not (append_only and len(b["args"]) > n):
            continue  # a copy passing fewer arguments left the rest at their defaults: only an append fits
        mine = [a for a in after_calls if a["function"] == b["function"]]
        mine = [a for a in mine if a["path"] == b["path"]] or mine
        if len(mine) != 1 or mine[0]["args"] == b["args"]:
            continue
        a = mine[0]
        if not _binds(rc.target_params, len(a["args"])):
            continue
        found = _in_consumer_terms(ctx, b["args"][:n], a, append_only, rc.target_params,
                                   {p.name for p in rc.baseline_params})
        if found is not None:
            after, names, built = found
            add = {}
            if append_only:  # by keyword: positionally the baseline would bind them to its own optional slots
                slots = _slots(rc.target_params)
                add = {slots[i].name: text for i, text in enumerate(after) if i >= n}
                after = after[:n]
            return PositionalRewrite(a["function"], Location(a["path"], a["line"], symbol=a["function"]),
                                     Location(b["path"], b["line"], symbol=b["function"]),
                                     tuple(b["args"][:n]), tuple(after), names, built, add)
    return None


def _in_consumer_terms(ctx, old: list, a: dict, append_only: bool, target_params,
                      baseline_names: set):  # type: ignore[no-untyped-def]
    """(after, names, built) for the target's call `a` where the consumer passes `old`, or None.
    An append writes the target's arguments up to the last one it requires, each of them for a
    parameter new in the target (never a value for one the consumer's call left at its default)."""
    old, new = list(old), list(a["args"])
    if append_only:
        if new[:len(old)] != old or len(new) <= len(old):
            return None
        slots = _slots(target_params)
        last = max((i for i in range(len(old), len(new)) if i < len(slots) and slots[i].required), default=None)
        if last is None or any(p.name in baseline_names or p.kind != "POSITIONAL_OR_KEYWORD"
                               for p in slots[len(old):last + 1]):
            return None
        new = new[:last + 1]  # optional ones after it keep their defaults, as the consumer's call did
    read: set[str] = set()
    for text in old:
        chains = _chains(text)
        if chains is None:
            return None
        read |= chains
    bare = {c for c in read if "." not in c and c != "self"}
    module = ModuleFacts(ctx.target.modules[a["module"]]) if a.get("module") in ctx.target.modules else None
    imports = module.imports if module is not None else {}
    own_names = set(module.functions) | set(module.classes) | set(module.names) if module is not None else set()
    names: dict[str, str] = {}
    built: dict[str, str] = {}
    after: list[str] = []
    for i, text in enumerate(new):
        if i < len(old) and text == old[i]:
            after.append(text)
            continue
        local = (a.get("locals") or {}).get(text.strip())
        if local and text.strip() not in bare:
            built[text.strip()] = local
            text = _as_argument(local)
        chains = _chains(text)
        if chains is None:
            return None
        for c in chains:
            root = c.split(".", 1)[0]
            if any(m == c or m.startswith(c + ".") for m in read) or root in bare:
                continue  # the consumer's verbatim arguments read it, or it is an attribute of one they pass
            if root in imports:
                names[root] = imports.get(root).target
            elif root == "self" or root in own_names:
                return None  # what the target's own object or module holds, not the consumer's
            elif root in _BUILTINS:
                continue
            else:
                names[root] = ""
        after.append(text)
    return after, names, built


@dataclass(frozen=True)
class HeldSwitch:
    """A function of the target that stopped calling `<holder>.m()` and reads `<holder>.attr`."""
    function: str
    evidence: Location  # the read in the target
    baseline_evidence: Location  # the call in the baseline


def _build_held_calls(index, modules=None) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    """method name -> [{module, path, function, holder, line}] over `held_calls` (`self.x.m(...)`)."""
    out: dict[str, list] = {}
    for mod_name, mod, fn in _functions(index, modules):
        for holder, calls in fn.behaviour.held_calls.items():
            for m, line in calls.items():
                out.setdefault(m, []).append({"module": mod_name, "path": mod.path,
                                              "function": fn.qualname or fn.name, "holder": holder, "line": line})
    return out


def _function_named(index, module: str, qualname: str):  # type: ignore[no-untyped-def]
    """The function or method `qualname` of `module` in `index`, or None."""
    if module not in index.modules:
        return None
    mod = ModuleFacts(index.modules[module])
    head, _, rest = qualname.partition(".")
    if not rest:
        return mod.functions.get(head)
    cls = mod.classes.get(head)
    for part in rest.split(".")[:-1]:
        cls = cls.nested.get(part) if cls is not None else None
    return cls.methods.get(rest.rsplit(".", 1)[-1]) if cls is not None else None


def own_held_switch(baseline, target, holder: str, name: str, attr: str) -> HeldSwitch | None:  # type: ignore[no-untyped-def]
    """A function of the baseline that called `<holder>.name()` whose same function in the target
    calls it no more and reads `<holder>.attr` instead (facts held_calls, +pc2 held_reads)."""
    calls = baseline.query("held_calls", name, needle=call_of(name), build=_build_held_calls, default=[], scoped=True)
    for b in calls:
        if b["holder"] != holder:
            continue
        fn = _function_named(target, b["module"], b["function"])
        if fn is None:
            continue
        beh = fn.behaviour
        line = (beh.held_reads.get(holder) or {}).get(attr)
        if line is None or name in (beh.held_calls.get(holder) or {}):
            continue
        mod = ModuleFacts(target.modules[b["module"]])
        return HeldSwitch(b["function"], Location(mod.path, line, symbol=b["function"]),
                          Location(b["path"], b["line"], symbol=b["function"]))
    return None
