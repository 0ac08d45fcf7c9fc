"""vLLM knowledge: a KV connector reads the shape of the buffers vLLM hands it, by position.

vLLM hands a connector the KV buffers it allocated from the attention backend's
`get_kv_cache_shape` (`register_kv_caches(kv_caches)`, `save_kv_layer(layer_name, kv_layer, ...)`),
either to an override of the connector base's hook or, through vLLM's own in-tree connector, to a
consumer class vLLM builds and forwards the hook to. The consumer reads sizes by position
(`kv.shape[1]` as the block count), checks the rank (`assert kv.ndim == 5`) or reshapes K and V
apart (`kv.reshape(2, n, -1)`). When the target's shape function puts another element at that
position, or has another rank, nothing raises where the layout changed: the connector registers
or copies the wrong memory.

The buffers are found by inference over the consumer's records (probes/kv_reads.py): the hook's
parameter (vLLM's annotation says whether it holds the buffer or a dict of them), then every call
that hands it, or an element of it, to another function of the consumer, to a fixpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.handed import _builds, _method_site
from drift.analysis.rules.vllm.kv_layout import (DEFAULT_BACKENDS, SHAPE_FN, _is_platform_plugin, _layer_depth,
                                                 _shape_fn)
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Symbol, word

# vLLM hook parameters that hold KV buffers: the connector API's names for them.
KV_PARAMS = frozenset({"kv_caches", "kv_cache", "kv_layer"})
_CONTAINERS = ("dict", "Dict", "list", "List", "Mapping", "Sequence", "tuple", "Tuple")
_MAX_ROUNDS = 8
_ATTENTION_PACKAGE = ".attention."  # vllm.attention, vllm.v1.attention: backends and their impls


@dataclass(frozen=True)
class Shapes:
    """The elements `get_kv_cache_shape` returns on each side, for one backend."""

    backend: str
    base: tuple[str, ...]
    new: tuple[str, ...]
    base_sym: Symbol
    new_sym: Symbol
    base_line: int
    new_line: int


def _elements(sym: Symbol | None) -> tuple[tuple[str, ...], int] | None:
    """The one tuple every return of the shape function agrees on, with its line, or None."""
    if sym is None:
        return None
    found = sym.as_function.behaviour.tuple_returns
    if not found:
        return None
    shapes = {tuple(e.strip().strip("()").strip() for e in elts) for _line, elts in found}
    if len(shapes) != 1:
        return None
    return shapes.pop(), found[0][0]


def _default_shapes(ctx: CheckContext) -> Shapes | None:
    """vLLM's default CUDA backend's shapes on both sides, when they differ."""
    for dotted in DEFAULT_BACKENDS:
        new_sym, base_sym = _shape_fn(ctx.target, dotted), _shape_fn(ctx.baseline, dotted)
        new, base = _elements(new_sym), _elements(base_sym)
        if new is None or base is None:
            continue
        if new[0] == base[0]:
            return None
        return Shapes(dotted, base[0], new[0], base_sym, new_sym, base[1], new[1])
    return None


def _kv_at(param) -> int:
    """How many element steps below the hook's parameter the buffer sits (a dict of them: 1)."""
    ann = (param.annotation or "").strip("'\" ")
    if ann:
        return 1 if ann.startswith(_CONTAINERS) else 0
    return 1 if param.name.endswith("s") else 0


def _hook_params(sym: Symbol | None) -> dict[int, int]:
    """position -> depth of the KV buffer for each KV parameter of a vLLM method. An attention
    impl's hooks (vLLM's attention packages) get the buffer of the consumer's own backend, whose
    layout VLLM002 ties to that backend: not the default backend's."""
    if sym is None or sym.kind not in ("function", "method") or _ATTENTION_PACKAGE in f".{sym.module}.":
        return {}
    out = {}
    positional = [p for p in sym.as_function.param_facts if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    for i, p in enumerate(positional):
        if p.name in KV_PARAMS:
            out[i] = _kv_at(p)
    return out


def _seeds(ctx: CheckContext, recorded: set[tuple[str, str]]) -> dict[tuple[str, str], dict[int, tuple[int, str]]]:
    """(module, function qualname) -> {param index: (buffer depth, why)} for the consumer's
    implementations of vLLM hooks that receive KV buffers: overrides, and the methods of classes
    vLLM builds and forwards the hook to. Only methods with records (`recorded`) are asked about."""
    out: dict[tuple[str, str], dict[int, tuple[int, str]]] = {}

    def seed(cref: str, method: str, hook: Symbol, why: str) -> None:
        cls = ctx.consumer.classes.get(cref) or {}
        mod, qual = cls.get("module"), cls.get("qual")
        if not mod or not qual:
            return
        for i, depth in _hook_params(hook).items():
            out.setdefault((mod, f"{qual}.{method}"), {}).setdefault(i, (depth, why))

    for cref, cls in ctx.consumer.classes.items():
        for method in cls.get("methods") or {}:
            if (cls.get("module"), f"{cls.get('qual')}.{method}") not in recorded:
                continue
            for base in ctx.target_paths.target_bases(cref):
                hook = ctx.target.class_member(base, method)
                if hook is not None:
                    seed(cref, method, hook, f"overrides `{hook.dotted}`")
                    break
    pkgs = sorted({(m or "").split(".")[0] for m in ctx.consumer.modules} - {"", ctx.target_package})
    for pkg in pkgs:
        for ref, holder_cls, _holder, _path, calls in ctx.target.query(
                "consumer_builds", pkg, needle=word(pkg), build=_builds, default=[]):
            holder = ctx.target.lookup(holder_cls)
            if holder is None or holder.kind != "class":
                continue
            for method in calls:
                hook = ctx.target.class_member(holder, method)
                where = _method_site(ctx, ref, method) if hook is not None else None
                if where is None:
                    continue
                owner = where[0]
                cref = f"{owner.get('module')}.{owner.get('qual')}"
                seed(cref, method, hook, f"vLLM's `{holder_cls.rsplit('.', 1)[-1]}` builds it and forwards "
                                         f"`{method}` to it")
    return out


def _tables(ctx: CheckContext):
    """module name -> (module record, reads, flows), for well-formed records only (usage may come
    from a host: a malformed record is skipped, never a traceback)."""
    out = {}
    for mod in ctx.usage:
        table = mod.get("kv_reads")
        if not isinstance(table, dict) or not isinstance(mod.get("module"), str):
            continue
        reads, flows = table.get("reads"), table.get("flows")
        out[mod["module"]] = (mod, reads if isinstance(reads, dict) else {}, flows if isinstance(flows, dict) else {})
    return out


def _subject(s) -> tuple | None:
    if isinstance(s, list) and len(s) == 4 and s[0] == "param" and type(s[1]) is int and type(s[3]) is int:
        return ("param", s[1], s[3])
    if isinstance(s, list) and len(s) == 3 and s[0] == "attr" and isinstance(s[1], str) and type(s[2]) is int:
        return ("attr", s[1], s[2])
    return None


def _callees(ctx: CheckContext, module: str, qual: str, callee) -> list[tuple[str, str, int]]:
    """(module, qualname, parameter shift) of the consumer functions a flow's callee may be."""
    if not isinstance(callee, list) or not callee or not all(isinstance(c, str) for c in callee):
        return []
    if callee[0] == "name" and len(callee) == 2:
        return [(module, callee[1], 0)]
    if callee[0] == "self" and len(callee) == 2 and "." in qual:
        where = _method_site(ctx, f"{module}.{qual.rsplit('.', 1)[0]}", callee[1])
        return [(where[0].get("module"), f"{where[0].get('qual')}.{callee[1]}", 1)] if where else []
    if callee[0] == "held" and len(callee) == 3 and "." in qual:
        held = _held_class(ctx, f"{module}.{qual.rsplit('.', 1)[0]}", callee[1])
        where = _method_site(ctx, held, callee[2]) if held else None
        if where is not None:
            return [(where[0].get("module"), f"{where[0].get('qual')}.{callee[2]}", 1)]
        return [(c.get("module"), f"{c.get('qual')}.{callee[2]}", 1) for c in _definers(ctx).get(callee[2], ())]
    return []


def _held_class(ctx: CheckContext, cref: str, attr: str) -> str | None:
    """The consumer class `self.<attr>` is built from (`self.attr = Cls(...)`), when the probe says."""
    held = ((ctx.consumer.classes.get(cref) or {}).get("self_attrs") or {}).get(attr) or {}
    path = held.get("path") if isinstance(held, dict) else None
    if isinstance(path, list) and len(path) == 2 and path[1] == "()" and isinstance(path[0], str) \
            and path[0].startswith("sym:") and path[0][4:] in ctx.consumer.classes:
        return path[0][4:]
    return None


def _definers(ctx: CheckContext) -> dict[str, list[dict]]:
    """method name -> the consumer classes that define it: the candidates for a `self.attr.m(x)`
    callee when the probe could not tell which class `attr` holds, or that class lacks `m` (an
    attribute built from one of several classes, by role)."""
    memo = ctx.memo.get("kv_reads_definers")
    if memo is None:
        memo = {}
        for c in ctx.consumer.classes.values():
            for name in c.get("methods") or {}:
                memo.setdefault(name, []).append(c)
        ctx.memo["kv_reads_definers"] = memo
    return memo


def _buffers(ctx: CheckContext, tables, layer_depth: int | None):
    """(module, qualname) -> {param index: (buffer depth, why)}: the hook seeds, then every flow
    that hands a buffer (or a container of them) to another consumer function, to a fixpoint."""
    recorded = {(module, qual) for module, (_m, reads, flows) in tables.items() for qual in (*reads, *flows)}
    found = _seeds(ctx, recorded)
    for _ in range(_MAX_ROUNDS):
        changed = False
        for module, (_mod, _reads, flows) in tables.items():
            for qual, recs in flows.items():
                own = found.get((module, qual), {})
                for rec in recs if isinstance(recs, list) else []:
                    if not (isinstance(rec, list) and len(rec) == 4 and type(rec[2]) is int):
                        continue
                    subject = _subject(rec[3])
                    if subject is None:
                        continue
                    if subject[0] == "param" and subject[1] in own:
                        depth, why = own[subject[1]]
                        kv_at = depth - subject[2]
                    elif subject[0] == "attr" and layer_depth is not None:
                        kv_at, why = layer_depth - subject[2], f"a layer's `.{subject[1]}` buffer"
                    else:
                        continue
                    if kv_at < 0:
                        continue
                    for cmod, cqual, shift in _callees(ctx, module, qual, rec[1]):
                        slot = found.setdefault((cmod, cqual), {})
                        if rec[2] + shift not in slot:
                            slot[rec[2] + shift] = (kv_at, f"{why}; `{qual.rsplit('.', 1)[-1]}` hands it on")
                            changed = True
        if not changed:
            break
    return found


def _reads(tables, found, layer_depth):
    """(module record, qualname, read, why) for each read whose receiver is a KV buffer itself."""
    for module, (mod, reads, _flows) in tables.items():
        for qual, recs in reads.items():
            own = found.get((module, qual), {})
            for rec in recs if isinstance(recs, list) else []:
                if not (isinstance(rec, list) and len(rec) == 7 and all(type(x) is int for x in rec[:2])
                        and isinstance(rec[3], str) and rec[4] in ("shape", "rank", "split")
                        and type(rec[5]) is int and isinstance(rec[6], list)):
                    continue
                if "mla" in rec[6] or "compared" in rec[6]:
                    continue  # MLA's cache has its own layout; a compared size probes the layout
                subject = _subject(rec[2])
                if subject is None:
                    continue
                if subject[0] == "param" and own.get(subject[1], (None,))[0] == subject[2]:
                    yield mod, qual, rec, own[subject[1]][1]
                elif subject[0] == "attr" and layer_depth is not None and subject[2] == layer_depth:
                    yield mod, qual, rec, f"a layer's `.{subject[1]}` buffer"


def _broken(rec, shapes: Shapes) -> str | None:
    """What the read gets on the target that it did not get on the baseline, or None."""
    form, pos = rec[4], rec[5]
    base, new = shapes.base, shapes.new
    if form == "rank":
        if pos == len(base) and pos != len(new):
            return f"the buffer has rank {len(new)} on the target, not {pos}"
        return None
    if pos >= len(base):
        return None
    if form == "split":
        if base[pos] == "2" and (pos >= len(new) or new[pos] != "2"):
            where = next((i for i, e in enumerate(new) if e == "2"), None)
            return (f"axis {pos} no longer holds K and V" + (f" (axis {where} does)" if where is not None else
                                                              " (the target packs them into another axis)"))
        return None
    if pos >= len(new):
        return f"IndexError: the buffer has rank {len(new)} on the target, no axis {pos}"
    if base[pos] != new[pos]:
        return f"position {pos} held `{base[pos]}` on the baseline and holds `{new[pos]}` on the target"
    return None


def _snippet(rec) -> str:
    recv, form, pos = rec[3], rec[4], rec[5]
    if form == "rank":
        return f"{recv}.ndim == {pos}"
    if form == "split":
        return f"{recv}.reshape({', '.join(['...'] * pos + ['2'])}, ...)"
    return f"{recv}.shape[{pos}]"


@rule("DRIFT132", RuleKind.RETURN_SHAPE, pack="vllm")
def kv_buffer_shape_read(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer reads the shape of a KV buffer vLLM hands it (`kv.shape[1]`, `kv.size(1)`),
    checks its rank (`assert kv.ndim == 5`, `a, b, c, d, e = kv.shape`) or reshapes K and V apart
    (`kv.reshape(2, n, -1)`), and the target's `get_kv_cache_shape` puts another element at that
    position or has another rank: the connector registers or copies the wrong memory, silently,
    or the rank assert fails at start-up.

    The buffer is a KV parameter (`kv_caches`, `kv_layer`, `kv_cache`) of a vLLM hook the consumer
    implements: an override of a vLLM class's method, or a method of a consumer class vLLM builds
    and forwards the hook to (its in-tree connector importing the consumer's class); or a layer's
    `kv_cache` buffer. It is followed through containers (`for name, t in caches.items()`,
    `d[name] = t`, `list(d.values())[0]`) and into the consumer functions it is handed to, to a
    fixpoint. Reads under a branch taken for MLA (its cache has its own layout), sizes compared
    to a literal (the code probes the layout) and receivers whose rank check does not hold on the
    baseline (another cache) are left out; where a rank check fails on the target, only it is
    reported. Risky: the backend is chosen at run time; the layout compared is vLLM's default
    CUDA backend's, and a platform plugin (which picks its own backends) is never reported.
    """
    if ctx.baseline is None or _is_platform_plugin(ctx):
        return
    tables = _tables(ctx)
    if not any(reads for _m, reads, _f in tables.values()):
        return
    shapes = _default_shapes(ctx)
    if shapes is None:
        return
    layer_depth = _layer_depth(ctx)
    found = _buffers(ctx, tables, layer_depth)
    groups: dict[tuple[str, str, str], list] = {}
    for mod, qual, rec, why in _reads(tables, found, layer_depth):
        groups.setdefault((mod["path"], qual, rec[3]), []).append((mod, rec, why))
    for (_path, qual, recv), items in sorted(groups.items()):
        ranks = [rec for _m, rec, _w in items if rec[4] == "rank"]
        if any(rec[5] != len(shapes.base) for rec in ranks):
            continue  # the code expects another rank here: not the attention backend's buffer
        failing = [(m, rec, w) for m, rec, w in items if rec[4] == "rank" and _broken(rec, shapes)]
        for mod, rec, why in failing or items:
            broken = _broken(rec, shapes)
            if broken is None:
                continue
            yield _finding(mod, qual, rec, why, broken, shapes)


def _finding(mod, qual, rec, why, broken, shapes: Shapes) -> Finding:
    owner = shapes.backend.rsplit(".", 1)[-1]
    snippet = _snippet(rec)
    return Finding(
        rule_id="DRIFT132", kind=RuleKind.RETURN_SHAPE, severity=Severity.RISKY,
        title=f"`{snippet}` reads the KV buffer vLLM hands the consumer by the baseline's layout: {broken} "
              f"(`{owner}.{SHAPE_FN}`)",
        consumer_site=Location(mod["path"], rec[0], snippet=snippet, col=rec[1] + 1),
        target_evidence=(Location(shapes.new_sym.path, shapes.new_line, symbol=shapes.new_sym.dotted,
                                  snippet=f"return ({', '.join(shapes.new)})"),),
        baseline_evidence=(Location(shapes.base_sym.path, shapes.base_line, symbol=shapes.base_sym.dotted,
                                    snippet=f"return ({', '.join(shapes.base)})"),),
        predicted_failure=("AssertionError or a wrong branch at start-up" if rec[4] == "rank" else
                           "silent: sizes and strides taken from the wrong axis; the cache is registered or "
                           "copied at the wrong memory"),
        fix=Fix(f"read the layout from the target's `{SHAPE_FN}` (or detect the K/V axis) instead of a fixed position",
                manual_reason="which axis holds what depends on the backend chosen at run time"),
        symbol=f"{shapes.backend}.{SHAPE_FN}",
        details=f"`{qual}` receives the buffer: {why}; the backend is chosen at run time, so this compares "
                f"vLLM's default CUDA backend `{owner}`",
    )
