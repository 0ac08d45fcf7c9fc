"""vLLM knowledge: a KV cache is allocated in the shape its attention backend's
`get_kv_cache_shape` returns, and code that splits it into K and V relies on that layout."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol
from drift.analysis.rules.base import rule

SHAPE_FN = "get_kv_cache_shape"  # every backend's static method; the runner allocates from it
IMPL_GETTER = "get_impl_cls"  # a backend names the AttentionImpl whose forward gets the buffer
KV_PARAM = "kv_cache"  # AttentionImpl.forward's parameter holding the layer's buffer
LAYER_ATTR = "kv_cache"  # Attention.kv_cache: the buffer bound to a layer
PLATFORM_HOOK = "get_attn_backend_cls"  # a Platform subclass chooses its own backends
# The layout a buffer has when nothing ties it to a backend: CUDA's first choice for standard
# attention (vllm/platforms/cuda.py puts FLASH_ATTN first), where it moved, newest first.
DEFAULT_BACKENDS = ("vllm.v1.attention.backends.flash_attn.FlashAttentionBackend",
                    "vllm.attention.backends.flash_attn.FlashAttentionBackend")
LAYER_CLASSES = ("vllm.model_executor.layers.attention.attention.Attention", "vllm.attention.layer.Attention")
_FOLDED = re.compile(r"^\(?\s*2\s*\*|\*\s*2\s*\)?$")


@dataclass(frozen=True)
class Layout:
    """Where a shape function puts the K/V pair: `axis` holds a literal 2 (None: no axis does;
    `folded`: the axis whose size is `2 * x`, K and V packed into it)."""

    axis: int | None
    folded: int | None
    line: int
    src: str


def layout_of(sym: Symbol | None) -> Layout | None:
    """The K/V axis every shape-like tuple the function returns agrees on, or None (unknown)."""
    if sym is None:
        return None
    found = sym.as_function.behaviour.tuple_returns
    if not found:
        return None
    seen = set()
    for _line, elts in found:
        lits = [i for i, e in enumerate(elts) if e.strip("() ") == "2"]
        packed = [i for i, e in enumerate(elts) if _FOLDED.search(e.strip())]
        seen.add((lits[0] if len(lits) == 1 else None if not lits else -1,
                  packed[0] if len(packed) == 1 else None))
    if len(seen) != 1:
        return None  # returns disagree (a per-dtype branch): no one contract to compare
    axis, folded = seen.pop()
    if axis == -1:
        return None
    line, elts = found[0]
    return Layout(axis, folded, line, f"return ({', '.join(elts)})")


def _shape_fn(index: PackageIndex | None, backend: str) -> Symbol | None:
    if index is None:
        return None
    cls = index.lookup(backend)
    return index.class_member(cls, SHAPE_FN) if cls is not None and cls.kind == "class" else None


@dataclass(frozen=True)
class Contract:
    """A backend whose buffer layout the target changed: the shape functions on both sides."""

    backend: str  # the class the consumer uses (its own subclass, or vLLM's)
    shape_owner: str  # the vLLM class whose get_kv_cache_shape it inherits
    base: Layout
    new: Layout
    base_sym: Symbol
    new_sym: Symbol


def _moved(ctx: CheckContext, backend_label: str, target_cls: str) -> Contract | None:
    new_sym, base_sym = _shape_fn(ctx.target, target_cls), _shape_fn(ctx.baseline, target_cls)
    new, base = layout_of(new_sym), layout_of(base_sym)
    if new is None or base is None or base.axis is None or new.axis == base.axis:
        return None
    return Contract(backend_label, new_sym.dotted.rsplit(".", 1)[0], base, new, base_sym, new_sym)


def _consumer_defines(ctx: CheckContext, cref: str, name: str, seen: set | None = None) -> bool:
    """Whether the consumer class or one of its consumer bases defines `name` itself."""
    seen = set() if seen is None else seen
    if cref in seen:
        return False
    seen.add(cref)
    cls = ctx.consumer.classes.get(cref)
    if cls is None:
        return False
    if name in (cls.get("methods") or {}):
        return True
    for b in cls.get("bases") or []:
        v = ctx.target_paths.value(tuple(b)) if b else None
        if v is not None and v.kind == "consumer" and v.ckind == "class" and _consumer_defines(ctx, v.cref or "", name, seen):
            return True
    return False


def _backends(ctx: CheckContext) -> dict[str, Contract]:
    """Consumer classes that are attention backends inheriting vLLM's shape function, whose
    layout moved: consumer class -> contract. A backend with its own shape function owns its
    layout (nothing drifts under it)."""
    memo = ctx.memo.get("kv_layout_backends")
    if memo is not None:
        return memo
    out: dict[str, Contract] = {}
    for cref in ctx.consumer.classes:
        if _consumer_defines(ctx, cref, SHAPE_FN):
            continue
        for base in ctx.target_paths.target_bases(cref):
            owner = ctx.target.class_member(base, SHAPE_FN)
            if owner is None:
                continue
            found = _moved(ctx, cref, owner.dotted.rsplit(".", 1)[0])
            if found is not None:
                out[cref] = found
            break
    ctx.memo["kv_layout_backends"] = out
    return out


def _is_platform_plugin(ctx: CheckContext) -> bool:
    """A consumer that subclasses vLLM's Platform picks its own backends: vLLM's default layout
    says nothing about the buffers its layers get."""
    for cref in ctx.consumer.classes:
        for base in ctx.target_paths.target_bases(cref):
            if ctx.target.class_member(base, PLATFORM_HOOK) is not None:
                return True
    return False


def _impls(ctx: CheckContext, backends: dict[str, Contract]) -> dict[str, Contract]:
    """Consumer AttentionImpl classes a moved backend hands to vLLM (`get_impl_cls`)."""
    out: dict[str, Contract] = {}
    for cref, contract in backends.items():
        path = ctx.consumer.returns.get(f"{cref}.{IMPL_GETTER}")
        if not path:
            continue
        v = ctx.target_paths.value(tuple(path))
        if v.kind == "consumer" and v.ckind == "class" and v.cref:
            out.setdefault(v.cref, contract)
    return out


def _kv_param_index(ctx: CheckContext, impl: str, method: str) -> int | None:
    """The position of vLLM's `kv_cache` parameter in the Impl method this one overrides."""
    for base in ctx.target_paths.target_bases(impl):
        m = ctx.target.class_member(base, method)
        if m is None:
            continue
        names = [p.name for p in m.as_function.param_facts if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        return names.index(KV_PARAM) if KV_PARAM in names else None
    return None


def _layer_depth(ctx: CheckContext) -> int | None:
    """How many subscripts below `layer.kv_cache` the buffer sits on the baseline: 1 when the
    layer held a list of buffers (one per virtual engine), 0 when it held the buffer itself."""
    return layer_depth_in(ctx.baseline)


def layer_depth_in(index: PackageIndex | None) -> int | None:
    """`_layer_depth` for one side's index (None: no Attention layer class, or no `kv_cache`)."""
    for dotted in LAYER_CLASSES:
        cls = index.lookup(dotted) if index is not None else None
        if cls is None or cls.kind != "class":
            continue
        held = index.instance_attrs(cls).get(LAYER_ATTR)
        if held is None:
            return None
        value = str(held[1].value or "")
        return 1 if value.startswith(("lit:list", "lit:tuple", "comp:")) else 0
    return None


def _records(usage):
    """(module, function, record) for every well-formed split record: usage may come from a host,
    and a malformed record is skipped, never a traceback."""
    for mod in usage:
        table = mod.get("splits")
        if not isinstance(table, dict):
            continue
        for qual, recs in table.items():
            if not isinstance(qual, str) or not isinstance(recs, list):
                continue
            for rec in recs:
                if not (isinstance(rec, list) and len(rec) == 6 and all(type(x) is int for x in (rec[0], rec[1], rec[4]))
                        and isinstance(rec[3], str) and isinstance(rec[2], list) and len(rec[2]) == 3
                        and rec[2][0] in ("param", "attr") and type(rec[2][1 if rec[2][0] == "param" else 2]) is int
                        and isinstance(rec[2][2 if rec[2][0] == "param" else 1], str)):
                    continue
                yield mod, qual, rec


def _snippet(name: str, form: str, axis: int, extra) -> str:
    if form == "unbind":
        return f"{name}.unbind({axis})"
    if form == "chunk":
        return f"{name}.chunk(2, {axis})"
    if form == "unpack":
        return f"k, v = {name}"
    return f"{name}[{', '.join([':'] * axis + [str(extra)])}]"


def _failure(form: str, extra, contract: Contract) -> str:
    new = contract.new
    where = (f"the target packs K and V into axis {new.folded} (`{new.src}`)"
             if new.folded is not None else
             f"axis {new.axis} holds them now" if new.axis is not None else "no axis holds K and V any more")
    axis = contract.base.axis
    if form in ("unbind", "unpack") and extra == 2:
        return (f"ValueError: too many values to unpack (expected 2): axis {axis} is no longer K/V, "
                f"so it yields one tensor per entry of that axis ({where})")
    if form == "index":
        return (f"`[{extra}]` on axis {axis} now picks entry {extra} of another dimension, not the "
                f"{'key' if extra == 0 else 'value'} cache: a shape error in the kernel it feeds, or a silently "
                f"corrupted cache ({where})")
    return f"the split on axis {axis} now cuts another dimension, not K from V ({where})"


def _finding(ctx, mod, rec, contract: Contract, *, severity: Severity, how: str) -> Finding:
    line, col, subject, form, axis, extra = rec
    name = subject[2] if subject[0] == "param" else subject[1]
    base, new = contract.base, contract.new
    now = (f"packs them into axis {new.folded}" if new.folded is not None
           else f"holds them on axis {new.axis}" if new.axis is not None else "has no K/V axis")
    return Finding(
        rule_id="VLLM002", kind=RuleKind.RETURN_SHAPE, severity=severity,
        title=f"`{_snippet(name, form, axis, extra)}` splits the KV cache on axis {axis}, where the baseline's "
              f"`{contract.shape_owner.rsplit('.', 1)[-1]}.{SHAPE_FN}` held K and V; the target {now}",
        consumer_site=Location(mod["path"], line, snippet=_snippet(name, form, axis, extra), col=col + 1),
        target_evidence=(Location(contract.new_sym.path, new.line, symbol=contract.new_sym.dotted, snippet=new.src),),
        baseline_evidence=(Location(contract.base_sym.path, base.line, symbol=contract.base_sym.dotted,
                                    snippet=base.src),),
        predicted_failure=_failure(form, extra, contract),
        fix=Fix(f"split K and V the way the target's `{SHAPE_FN}` lays them out (or branch on the layout)",
                manual_reason="the split depends on the kernel the halves are passed to"),
        symbol=f"{contract.shape_owner}.{SHAPE_FN}",
        details=how,
    )


@rule("VLLM002", RuleKind.RETURN_SHAPE, pack="vllm")
def kv_cache_layout_moved(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer splits a KV cache into K and V on the axis where the baseline's
    `get_kv_cache_shape` put the literal `2` (`k, v = kv_cache.unbind(0)`, `kv_cache[0]` /
    `kv_cache[1]`, `kv_cache[:, 0]`, `kv_cache.chunk(2, 0)`, `k, v = kv_cache`), and the target's
    shape function no longer holds K/V on that axis (vLLM 0.26 packs them into the last axis:
    `(num_blocks, num_kv_heads, block_size, 2 * head_size)`). Nothing fails where the layout
    changed: the split silently picks blocks instead of K and V.

    Which shape a buffer has is read from the consumer's ties to a backend: the `kv_cache`
    parameter of an AttentionImpl method (at the position vLLM's own method has it) in a class
    that a consumer backend's `get_impl_cls` returns, where that backend inherits vLLM's
    `get_kv_cache_shape` (breaking: the layout is certain, and the unpacking raises or the
    kernel gets the wrong tensor); or a layer's `.kv_cache` buffer (one subscript below it when
    the baseline's Attention held one buffer per virtual engine), whose backend is chosen at
    run time: a consumer backend inheriting the moved shape, else vLLM's default CUDA backend
    unless the consumer is a platform plugin (risky: another backend may still put K/V there).
    A backend that defines its own `get_kv_cache_shape` owns its layout and is never reported.
    """
    if ctx.baseline is None:
        return
    splits = list(_records(ctx.usage))
    if not splits:
        return
    backends = _backends(ctx)
    impls = _impls(ctx, backends)
    layer_contracts: list[Contract] | None = None
    depth = None
    for mod, qual, rec in splits:
        line, col, subject, form, axis, extra = rec
        if subject[0] == "param" and "." in qual:
            cls, method = qual.rsplit(".", 1)
            impl = f"{mod.get('module')}.{cls}"
            contract = impls.get(impl)
            if contract is None or contract.base.axis != axis:
                continue
            if _kv_param_index(ctx, impl, method) != subject[1]:
                continue
            severity = Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING
            yield _finding(ctx, mod, rec, contract, severity=severity,
                           how=f"`{cls}` is the impl of `{contract.backend.rsplit('.', 1)[-1]}` "
                               f"({IMPL_GETTER}), which inherits `{contract.shape_owner}.{SHAPE_FN}`; "
                               f"`{method}` receives the buffer as `{subject[2]}`")
        elif subject[0] == "attr" and subject[1] == LAYER_ATTR:
            if layer_contracts is None:
                depth = _layer_depth(ctx)
                layer_contracts = list({c.shape_owner: c for c in backends.values()}.values())
                if not _is_platform_plugin(ctx):
                    for d in DEFAULT_BACKENDS:
                        c = _moved(ctx, d, d)
                        if c is not None and all(x.shape_owner != c.shape_owner for x in layer_contracts):
                            layer_contracts.append(c)
                            break
            if depth is None or subject[2] != depth:
                continue
            for contract in layer_contracts:
                if contract.base.axis != axis:
                    continue
                via = ("the consumer's backend " + contract.backend.rsplit(".", 1)[-1]
                       if contract.backend != contract.shape_owner else "vLLM's default CUDA backend")
                yield _finding(ctx, mod, rec, contract, severity=Severity.RISKY,
                               how=f"a layer's `.{LAYER_ATTR}` buffer in `{qual}`; its layout is that of "
                                   f"the backend chosen at run time ({via}: `{contract.shape_owner}.{SHAPE_FN}`)")
                break
