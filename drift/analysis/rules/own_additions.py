"""A new required keyword passed as the target passes it in its own rewrite of the consumer's very call.

Why: DRIFT011 writes a value for a new required parameter when the target's constructions agree
on one in the consumer's terms (values.py). A value read off the target's own object
(`hash_block_size=self.block_size`) never translates that way, so the finding stayed manual,
even where the consumer's call is a verbatim copy of the baseline's own call (vLLM 0.11's
`Scheduler.__init__` built `KVCacheManager(kv_cache_config=..., max_model_len=self.max_model_len,
...)`; 0.13's same function adds `hash_block_size=self.block_size`) and the consumer's class keeps
that attribute itself. vLLM's maintainers wrote the rewrite for this exact call (MELT, "learn from
the library's own migration"); the consumer's copy gets the same keyword, in the target's words.

Conditions, all read from facts (`kw_calls`/`ctor_calls` argument texts, the consumer's IR):
- the consumer's call passes exactly the keywords the baseline's call passed, each the same
  expression, and no `**dict`;
- the target's same function makes exactly one such call, passing the parameter;
- every dotted name that value reads is read by the consumer's verbatim arguments (whole or as a
  prefix), or is `self.<attr>` where the consumer's own class (the one whose method makes the
  call) stores that attribute on `self`, or inherits it from a target class that keeps it there
  (a plugin's subclass of the very class whose method the target rewrote).
The call raised `TypeError` on the target before the edit, so no working behaviour is changed.
"""

from __future__ import annotations

from drift.analysis.rules.fix_tiers import same_value
from drift.analysis.rules.own_rewrites import OwnRewrite, _chains
from drift.analysis.rules.values import kw_calls
from drift.findings import Location
from drift.probes.consumer_scan import ir_of


def own_added_value(ctx, rc, name: str) -> OwnRewrite | None:  # type: ignore[no-untyped-def]
    """The target's rewrite of the baseline's own call the consumer copied, passing new `name`."""
    baseline = getattr(ctx, "baseline", None)
    if baseline is None or rc.baseline_params is None or rc.target_params is None:
        return None
    if rc.rec.get("star_kwargs") or rc.rec.get("star_args") or rc.rec.get("positional"):
        return None
    consumer_kw = rc.rec.get("kw_values") or {}
    if not consumer_kw:
        return None
    callee = rc.rec["callee_src"].rsplit(".", 1)[-1]
    base_names = {p.name for p in rc.baseline_params}
    target_names = {p.name for p in rc.target_params}
    after = kw_calls(ctx.target, callee)
    stored: set[str] | None = None  # decoded from the module's IR once, and only when a copy matched
    for b in kw_calls(baseline, callee):
        kws = b["keywords"]
        if set(kws) != set(consumer_kw) or not set(kws) <= base_names:
            continue
        if not all(same_value(consumer_kw[k], v) for k, v in kws.items()):
            continue  # not a verbatim copy of the baseline's call
        mine = [a for a in after if a["function"] == b["function"] and set(a["keywords"]) <= target_names]
        mine = [a for a in mine if a["path"] == b["path"]] or mine
        if len(mine) != 1 or name not in mine[0]["keywords"]:
            continue
        a = mine[0]
        value = a["keywords"][name].strip()
        if stored is None:
            stored = _self_stores(rc) | _inherited_state(ctx, rc)
        if _readable(value, kws, stored):
            return OwnRewrite(a["function"], Location(a["path"], a["line"], symbol=a["function"]),
                              Location(b["path"], b["line"], symbol=b["function"]), {name: value}, callee)
    return None


def _readable(value: str, verbatim: dict[str, str], stored: set[str]) -> bool:
    """Every dotted name `value` reads exists at the consumer's call and means what it means at
    the target's: read by the verbatim arguments, or `self.<attr>` the consumer's class stores."""
    chains = _chains(value)
    if chains is None:
        return False
    read: set[str] = set()
    for v in verbatim.values():
        read |= _chains(v) or set()
    for c in chains:
        if any(m == c or m.startswith(c + ".") for m in read):
            continue
        head, _, attr = c.partition(".")
        if head == "self" and attr and "." not in attr and attr in stored:
            continue
        return False
    return True


def _inherited_state(ctx, rc) -> set[str]:  # type: ignore[no-untyped-def]
    """Attributes the target's classes that the consumer's class extends keep on `self` (set in
    their methods, on the target side): `self.scoring_func` in a subclass of vLLM's
    `GroupedTopKRouter` is the base's own attribute, the one the target's rewrite reads."""
    function = rc.rec.get("function") or ""
    cls = function.rpartition(".")[0]
    module = rc.module.get("module")
    paths = getattr(ctx, "target_paths", None)
    if not cls or not module or paths is None:
        return set()
    out: set[str] = set()
    for base in paths.target_bases(f"{module}.{cls}"):
        out.update(ctx.target.instance_attrs(base))
    return out


def _self_stores(rc) -> set[str]:  # type: ignore[no-untyped-def]
    """Attributes the class whose method makes the consumer's call stores on `self` (IR `store`
    and `attrset` rows of any of its methods); empty for a module-level function."""
    function = rc.rec.get("function") or ""
    cls, _, _meth = function.rpartition(".")
    module = rc.module.get("module")
    if not cls or not module:
        return set()
    prefix = f"var:{module}.{cls}."
    ir = ir_of(rc.module)
    out: set[str] = set()
    for row in list(ir.get("store") or ()) + list(ir.get("attrset") or ()):
        obj = row[0] if isinstance(row, list) and row else None
        if not isinstance(obj, list) or len(obj) != 1 or not isinstance(obj[0], str):
            continue
        path = obj[0]
        if path.startswith(prefix) and path.endswith(":self") and "." not in path[len(prefix):-len(":self")]:
            out.add(str(row[1]))
    return out
