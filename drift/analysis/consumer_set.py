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
breaking. Nor does a store below the read in its own module (`if req.flag: req.flag = False`
stores only once the read has succeeded), nor one below another read of the same gone attribute
in its module (that read raises before the store runs, for every reader).
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.findings import Finding, Severity

GONE_RULES = ("DRIFT060",)


def downgrade_consumer_set(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking read of a gone attribute the consumer itself stores on an
    object of that class made risky."""
    first_read: dict[tuple[str, str], int] = {}  # (module path, symbol) -> the first line reading it
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in GONE_RULES and f.symbol:
            key = (f.consumer_site.path, f.symbol)
            first_read[key] = min(first_read.get(key, f.consumer_site.line), f.consumer_site.line)
    out = []
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in GONE_RULES and f.symbol and "." in f.symbol:
            owner, _, attr = f.symbol.rpartition(".")
            store = _store_on(ctx, owner, attr, f.consumer_site.path, f.consumer_site.line,
                              lambda path: first_read.get((path, f.symbol)))
            if store is not None:
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; the consumer sets `{attr}` on the `{owner.rsplit('.', 1)[-1]}` "
                                  f"itself ({store['path']}:{store['line']}), so the read finds its value "
                                  f"where that store runs first")
        out.append(f)
    return out


def _store_on(ctx: CheckContext, owner: str, attr: str, path: str, line: int, read_in) -> dict | None:
    """The first consumer store of `attr` on an object the target types as `owner` (or a subclass)
    that can run before the read at `path`:`line`: one in another module, or above the read in its
    own. A store on the read's line or below it may be the read's own follow-up (`if req.flag:
    req.flag = False`), which runs only once the read has succeeded: it answers nothing. So does a
    store below any read of the same gone attribute in the store's own module (`read_in(path)`, the
    first such line): that read raises first (`if request.num_cached_tokens < 0:
    request.num_cached_tokens = n` never stores on the target), so the store answers no read
    elsewhere either."""
    for store in _stores(ctx).get(attr, ()):
        if owner not in store["classes"] or (store["path"] == path and store["line"] >= line):
            continue
        first = read_in(store["path"])
        if first is not None and first < store["line"]:
            continue
        return store
    return None


def _stores(ctx: CheckContext) -> dict[str, list[dict]]:
    """attr -> the consumer's stores of it on target objects, each with the dotted names of the
    classes (and their bases) its object may be on the target."""
    hit = ctx.memo.get("consumer_set")
    if hit is not None:
        return hit
    out: dict[str, list[dict]] = {}
    for row in getattr(ctx.consumer.inferred, "target_stores", None) or ():
        classes: set[str] = set()
        for obj in row.get("objects") or ():
            v = ctx.target_paths.value(tuple(obj))
            cls = v.cls if v.kind == "instance" else v.sym if v.kind == "class" else None
            if cls is not None:
                classes.update(c.dotted for c in ctx.target.mro(cls))
        if classes:
            out.setdefault(row["attr"], []).append({"path": row["path"], "line": row["line"], "classes": classes})
    for rows in out.values():
        rows.sort(key=lambda r: (r["path"], r["line"]))
    ctx.memo["consumer_set"] = out
    return out
