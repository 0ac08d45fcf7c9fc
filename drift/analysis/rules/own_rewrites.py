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
from drift.analysis.rules.values import kw_calls
from drift.findings import Location


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
