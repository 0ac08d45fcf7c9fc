"""vLLM knowledge: what a layer's `kv_cache` attribute holds, a list of buffers or the buffer.

vLLM's Attention layer held one KV buffer per virtual engine (`self.kv_cache = [torch.tensor([])
for _ in range(pp_size)]`, bound as `[kv_cache]`) and from 0.19 holds the buffer itself. Code
that picks its engine's buffer (`layer.kv_cache[forward_context.virtual_engine]`, `getattr(layer,
"kv_cache")[0]`) now picks a slice of the buffer, and nothing raises there.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.vllm.kv_layout import LAYER_ATTR, LAYER_CLASSES, layer_depth_in
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _picks(usage) -> Iterator[tuple[dict, str, list]]:
    """(module record, qualname, record) of every `x[i]` on a layer's buffer attribute itself,
    well-formed records only (usage may come from a host)."""
    for mod in usage:
        table = mod.get("kv_reads")
        reads = table.get("reads") if isinstance(table, dict) else None
        if not isinstance(reads, dict):
            continue
        for qual, recs in reads.items():
            for rec in recs if isinstance(recs, list) else []:
                if (isinstance(rec, list) and len(rec) == 7 and all(type(x) is int for x in rec[:2])
                        and rec[4] == "index" and isinstance(rec[3], str)
                        and rec[2] == ["attr", LAYER_ATTR, 0]):
                    yield mod, qual, rec


def _layer_class(index):
    for dotted in LAYER_CLASSES:
        cls = index.lookup(dotted)
        if cls is not None and cls.kind == "class":
            return cls
    return None


def _where(cls, held) -> Location:
    """Where the class sets `kv_cache` on `self` (the class's own line when the facts lack it)."""
    owner, info = held if held else (cls, None)
    line = info.line if info is not None and info.line else cls.line
    return Location(owner.path, line, symbol=f"{cls.dotted}.{LAYER_ATTR}")


@rule("DRIFT133", RuleKind.ATTRIBUTE_TYPE_CHANGED, pack="vllm")
def layer_buffer_no_longer_a_list(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer indexes a layer's `kv_cache` attribute (`layer.kv_cache[virtual_engine]`,
    `getattr(layer, "kv_cache", None)[0]`) to pick its virtual engine's buffer, as the baseline's
    Attention layer held a list of buffers; the target's holds the buffer itself, so the index
    now picks a slice of the KV cache (block or K/V half) and the code reads or writes the wrong
    memory. Risky: the receiver is known only by the attribute's name. `self.kv_cache` (the
    consumer's own attribute) is never read as a layer's.
    """
    if ctx.baseline is None or layer_depth_in(ctx.baseline) != 1 or layer_depth_in(ctx.target) != 0:
        return
    new_cls, base_cls = _layer_class(ctx.target), _layer_class(ctx.baseline)
    new_at = ctx.target.instance_attrs(new_cls).get(LAYER_ATTR)
    base_at = ctx.baseline.instance_attrs(base_cls).get(LAYER_ATTR)
    for mod, qual, rec in _picks(ctx.usage):
        recv = rec[3]
        pick = f"{recv}[{rec[5] if rec[5] >= 0 else '...'}]"
        yield Finding(
            rule_id="DRIFT133", kind=RuleKind.ATTRIBUTE_TYPE_CHANGED, severity=Severity.RISKY,
            title=f"`{pick}` picks a virtual engine's buffer from a layer's `.{LAYER_ATTR}`, a list on the "
                  f"baseline; the target's `{new_cls.dotted.rsplit('.', 1)[-1]}` holds the buffer itself",
            consumer_site=Location(mod["path"], rec[0], snippet=pick, col=rec[1] + 1),
            target_evidence=(_where(new_cls, new_at),),
            baseline_evidence=(_where(base_cls, base_at),),
            predicted_failure="silent: the index picks a slice of the KV cache (a block or the K half), "
                              "not the layer's buffer",
            fix=Fix(f"use the layer's `.{LAYER_ATTR}` as the buffer on the target (index it only where it is a list)",
                    manual_reason="the same code may still run on releases whose layer holds a list"),
            symbol=f"{new_cls.dotted}.{LAYER_ATTR}",
            details=f"in `{qual}`",
        )
