"""A gone attribute the consumer sets itself on the same kind of target object is risky.

Why: a platform plugin often writes settings onto a vLLM config object at start-up
(`attention_config.use_cudnn_prefill = False` in its `check_and_update_config`) and reads them
back later (`vllm_config.attention_config.use_cudnn_prefill`). When the target drops that field,
the write still succeeds (a plain class or a dataclass without slots takes any new attribute,
and the object keeps it), so the later read finds the consumer's own value and raises nothing.
The read fails only on a path where the consumer's store has not run first, which drift cannot
order across the target's start-up: the finding is kept, risky, with the store as the reason.
The first-contact reviews counted such breaking findings false.

A breaking gone-attribute finding (DRIFT060) on `Cls.attr` is made risky when the solved consumer
model (drift/consumer/infer.py `target_stores`) has a store `obj.attr = ...` whose `obj` the
target resolves to an instance (or the class) of `Cls` or of a subclass of it. A store of the same
name on an object of another class, or one drift cannot type, changes nothing: the read stays
breaking. Nor does a store below the read in the read's own function (`if req.flag: req.flag =
False` stores only once the read has succeeded; `orig = obj.step; obj.step = wrap(orig)` saves
what the object had), nor one below another read of the same gone attribute in the store's own
function (that read raises before the store runs, for every reader). A store in another function
may run first whatever the order of the lines (a method the target calls earlier, a patched
`__init__`). An augmented store (`obj.n += 1`) reads first: it provides nothing.

A store in a function the consumer installs as that class's `__init__` (`Worker.__init__ =
new_init`) runs whenever such an object is built: the read is no finding at all.

This pass replaced the older pattern check in the DRIFT060 rule, which dropped such reads
outright (issue 22: a use drift is unsure of is reported with that confidence, never dropped).
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.findings import Finding, Severity

GONE_RULES = ("DRIFT060",)


def downgrade_consumer_set(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking read of a gone attribute the consumer itself stores on an
    object of that class made risky."""
    function = _functions_at(ctx)
    first_read: dict[tuple, int] = {}  # (module path, function, symbol) -> the first line reading it
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in GONE_RULES and f.symbol:
            site = (f.consumer_site.path, f.consumer_site.line)
            key = (site[0], function.get(site), f.symbol)
            first_read[key] = min(first_read.get(key, site[1]), site[1])
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in GONE_RULES and f.symbol and "." in f.symbol:
            owner, _, attr = f.symbol.rpartition(".")
            read = (f.consumer_site.path, f.consumer_site.line)
            store = _store_on(ctx, owner, attr, read, function,
                              lambda path, fn: first_read.get((path, fn, f.symbol)))
            if store is not None and _in_installed_init(ctx, store, function, owner):
                continue  # the consumer's own `__init__` of that class stores it: every object has it
            if store is not None:
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; the consumer sets `{attr}` on the `{owner.rsplit('.', 1)[-1]}` "
                                  f"itself ({store['path']}:{store['line']}), so the read finds its value "
                                  f"where that store runs first")
        out.append(f)
    return out


def _in_installed_init(ctx: CheckContext, store: dict, function: dict, owner: str) -> bool:
    """Whether `store` sits in a consumer function the consumer installs as the `__init__` of
    `owner` or of a class above it (`Worker.__init__ = new_init`): it runs when any such object is
    built, before any read of it, so the attribute is there; no finding is left to report."""
    fn = function.get((store["path"], store["line"]))
    if not fn:
        return False
    for mod in ctx.usage:
        if mod.get("path") != store["path"]:
            continue
        for patch in mod.get("patches") or ():
            if patch.get("name") == "__init__" and (patch.get("value") or {}).get("function") == fn:
                v = ctx.target_paths.value(tuple(patch.get("path") or ()))
                if v.kind == "class" and v.sym is not None and v.sym.dotted in _mro_of(ctx, owner):
                    return True
    return False


def _mro_of(ctx: CheckContext, dotted: str) -> set[str]:
    sym = ctx.target.lookup(dotted)
    return {c.dotted for c in ctx.target.mro(sym)} if sym is not None else {dotted}


def _store_on(ctx: CheckContext, owner: str, attr: str, read: tuple[str, int], function: dict,
              read_in) -> dict | None:
    """The first consumer store of `attr` on an object the target types as `owner` (or a subclass)
    that can run before the read at `read` (path, line): one in another function or module, or
    above the read in its own function. A store on the read's line or below it in the read's
    function may be the read's own follow-up (`if req.flag: req.flag = False`), which runs only
    once the read has succeeded: it answers nothing. So does a store below any read of the same
    gone attribute in the store's own function (`read_in(path, function)`, the first such line):
    that read raises first (`if request.num_cached_tokens < 0: request.num_cached_tokens = n`
    never stores on the target), so the store answers no read elsewhere either. Where the probe
    names no function for a line, the module stands in for it."""
    path, line = read
    here = function.get(read)
    for store in _stores(ctx).get(attr, ()):
        if owner not in store["classes"]:
            continue
        there = function.get((store["path"], store["line"]))
        if store["path"] == path and store["line"] >= line and (here is None or there is None or here == there):
            continue
        first = read_in(store["path"], there)
        if first is not None and first < store["line"]:
            continue
        return store
    return None


def _functions_at(ctx: CheckContext) -> dict[tuple[str, int], str]:
    """(module path, line) -> the consumer function whose body holds the line, as the probe's
    records name it (the first record on the line); a line outside every function is absent."""
    hit = ctx.memo.get("consumer_set.functions")
    if hit is not None:
        return hit
    out: dict[tuple[str, int], str] = {}
    for mod in ctx.usage:
        for rec in [*(mod.get("uses") or ()), *(mod.get("calls") or ())]:
            if rec.get("line") and rec.get("function"):
                out.setdefault((mod.get("path"), rec["line"]), rec["function"])
    ctx.memo["consumer_set.functions"] = out
    return out


def _stores(ctx: CheckContext) -> dict[str, list[dict]]:
    """attr -> the consumer's stores of it on target objects, each with the dotted names of the
    classes (and their bases) its object may be on the target: the solved model's `target_stores`,
    and the probe's `attr_set` records the target's paths type (an augmented store excepted)."""
    hit = ctx.memo.get("consumer_set")
    if hit is not None:
        return hit
    out: dict[str, list[dict]] = {}
    rows = [(row["attr"], row["path"], row["line"], row.get("objects") or ())
            for row in getattr(ctx.consumer.inferred, "target_stores", None) or ()]
    for mod in ctx.usage:  # the stores the patterns type and the solver does not (an override's
        # parameter typed from the target's declaration, `over:` roots); `o.a += v` reads first
        for rec in mod.get("uses") or ():
            path = rec.get("path") or ()
            if rec.get("kind") == "attr_set" and not rec.get("aug") and len(path) > 1 \
                    and str(path[-1]).startswith("."):
                rows.append((path[-1][1:], mod.get("path"), rec.get("line") or 0, (path[:-1],)))
    seen: set[tuple] = set()
    for attr, path, line, objects in rows:
        classes: set[str] = set()
        for obj in objects:
            v = ctx.target_paths.value(tuple(obj))
            cls = v.cls if v.kind == "instance" else v.sym if v.kind == "class" else None
            if cls is not None:
                classes.update(c.dotted for c in ctx.target.mro(cls))
        if classes and (attr, path, line) not in seen:
            seen.add((attr, path, line))
            out.setdefault(attr, []).append({"path": path, "line": line, "classes": classes})
    for rows in out.values():
        rows.sort(key=lambda r: (r["path"], r["line"]))
    ctx.memo["consumer_set"] = out
    return out
