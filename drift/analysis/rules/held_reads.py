"""DRIFT149: an object of the consumer's that a target base keeps on `self` lacks an attribute
the target's inherited code now reads on it.

A plugin subclasses a vLLM class and hands its constructor an object of its own:
`super().__init__(quant_config)` into vLLM's `AWQMarlinLinearMethod.__init__`, which keeps it as
`self.quant_config`. The plugin's config class extends vLLM's `QuantizationConfig`, not the
`AWQMarlinConfig` the parameter is annotated with, and has what the baseline's code read on it.
When the target's code starts reading one more attribute there (vLLM 0.19:
`self.quant_config.zero_point`), every layer built through the plugin raises AttributeError,
though no name the plugin imports or calls changed.

What drift reads: the base constructor call (`super().__init__(...)`, by position or keyword:
usage `pos_values` / `kw_values`), the parameter the target's `__init__` keeps on `self` as it is
(`self.quant_config = quant_config`, rules/held_objects.py), the consumer classes the solved model
says that argument holds (a parameter of the consumer's method, or a local it built), and the
attributes each side's methods of the base's MRO read on `self.<attr>` (`held_reads`), less those
read under a `hasattr`/`getattr` probe. An attribute the target reads that the baseline did not,
which the consumer's class does not have (its own members, the `self.x` its methods set, its
target bases' members; a class with `__getattr__` has everything), is reported at the base
constructor call: breaking where the target's constructor reads it (every object built runs that),
risky where only another method does (vllm-ascend's sampler: vLLM 0.30 reads
`self.sampler.watermarking` only after `assert isinstance(self.sampler, GPUWatermarkSampler)`).
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import plural, rule
from drift.analysis.rules.handed import _available
from drift.analysis.rules.held_objects import _base_init_calls, _kept_params
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _reads(index: PackageIndex, bases: list[Symbol], attr: str) -> dict[str, tuple[Symbol, int, str]]:
    """{name: (class, line, method)} read on `self.<attr>` (not under a probe) in the methods of
    the bases' MROs, nearest class first; a read in `__init__` wins over one elsewhere."""
    out: dict[str, tuple[Symbol, int, str]] = {}
    for base in bases:
        for cls in index.mro(base):
            for method, fn in cls.as_class.methods.items():
                beh = fn.behaviour
                guarded = beh.probes.get("self." + attr) or {}
                for name, line in (beh.held_reads.get("self." + attr) or {}).items():
                    first = name not in out
                    if name not in guarded and (first or (method == "__init__" and out[name][2] != "__init__")):
                        out[name] = (cls, int(line), method)
    return out


def _constructor_params(index: PackageIndex, bases: list[Symbol]) -> list[str]:
    """The positional parameter names of the base's constructor, `self` left out."""
    params, _at = index.constructor(bases[0]) if bases else ([], None)
    return [p.name for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]


def _held(ctx: CheckContext, ref: str, rec: dict[str, Any], kept: dict[str, str],
          positional: list[str]) -> dict[str, set[str]]:
    """{attribute: consumer classes} the base constructor call hands over to be kept on `self`."""
    solved = ctx.consumer.inferred
    module = ref.rsplit(".", 1)[0]
    fn = f"{module}.{rec.get('function') or ''}"
    own = (ctx.consumer.signature(fn) or {}).get("params") or []
    names = [p[0] for p in own if isinstance(p, list) and p]
    given = list(zip(positional, rec.get("pos_values") or ())) + list((rec.get("kw_values") or {}).items())
    out: dict[str, set[str]] = {}
    for param, text in given:
        attr = kept.get(param)
        if attr is None or not isinstance(text, str) or not text.isidentifier():
            continue
        classes = set(solved.method_objects.get(f"{fn}:{text}", ()))
        if text in names:  # a parameter of the consumer's method: what its callers and annotation hand in
            paths = solved.params.get(f"{fn}:{names.index(text)}") or []
            mine = {p[0][5:] for p in paths if len(p) == 1 and p[0].startswith("self:")}
            if len(mine) == len(paths):  # only the consumer's own objects reach it
                classes |= mine
        classes = {c for c in classes if c in ctx.consumer.classes}
        if classes:
            out.setdefault(attr, set()).update(classes)
    return out


@rule("DRIFT149", RuleKind.ATTRIBUTE_MISSING)
def held_object_lacks_read(ctx: CheckContext) -> Iterator[Finding]:
    """An object the consumer hands its target base's constructor to keep on `self` lacks an
    attribute the target's inherited methods now read there, which the baseline's did not read:
    AttributeError inside the target's code."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    for ref, calls in sorted(_base_init_calls(ctx).items()):
        tb, bb = ctx.target_paths.target_bases(ref), ctx.baseline_paths.target_bases(ref)
        if not tb or not bb:
            continue
        kept, bkept = _kept_params(ctx.target, tb), _kept_params(ctx.baseline, bb)
        positional = _constructor_params(ctx.target, tb)
        for rec in calls:
            for attr, classes in sorted(_held(ctx, ref, rec, kept, positional).items()):
                if attr not in bkept.values():
                    continue  # the baseline did not keep it there: another rule's question
                now, before = _reads(ctx.target, tb, attr), _reads(ctx.baseline, bb, attr)
                for cref in sorted(classes):
                    have = _available(ctx, ctx.target, cref)
                    if have is None:
                        continue
                    missing = {n: w for n, w in now.items()
                               if n not in before and n not in have and not n.startswith("__")}
                    if missing:
                        yield _finding(ctx, ref, rec, cref, attr, missing)


def _finding(ctx: CheckContext, ref: str, rec: dict[str, Any], cref: str, attr: str,
             missing: dict[str, tuple[Symbol, int, str]]) -> Finding:
    mod = next((m for m in ctx.usage if any(r is rec for r in m.get("calls") or ())), {})
    short = cref.rsplit(".", 1)[-1]
    names = sorted(missing, key=lambda n: (missing[n][2] != "__init__", missing[n][1], n))  # constructor reads first
    listed = ", ".join(f"`{n}`" for n in names)
    owner = missing[names[0]][0]
    at_init = missing[names[0]][2] == "__init__"
    where = ("in its constructor, which every object built runs" if at_init else
             f"in `{missing[names[0]][2]}`, which may run only on some paths (another object's branch, a feature "
             f"switched off): risky")
    return Finding(
        rule_id="DRIFT149", kind=RuleKind.ATTRIBUTE_MISSING,
        severity=Severity.BREAKING if at_init else Severity.RISKY,
        title=f"`{short}` kept by `{owner.dotted.rsplit('.', 1)[-1]}` as `self.{attr}` lacks {listed}, which the "
              f"target's code now reads on it",
        consumer_site=Location(mod.get("path") or "?", rec["line"], symbol=f"{owner.dotted}.{attr}",
                               col=(rec.get("col") or 0) + 1),
        target_evidence=tuple(Location(missing[n][0].path, missing[n][1], symbol=f"{missing[n][0].dotted}.{attr}.{n}")
                              for n in names[:5]),
        predicted_failure=f"AttributeError: '{short}' object has no attribute '{names[0]}'",
        fix=Fix(f"give `{short}` {listed} (what the target's `{owner.dotted.rsplit('.', 1)[-1]}` now reads on "
                f"`self.{attr}`)", manual_reason="what the attribute must hold is the target's contract"),
        symbol=f"{owner.dotted}.{attr}.{names[0]}",
        details=f"{plural(len(names), 'attribute')} the target's methods read on `self.{attr}` and the baseline's did "
                f"not; read {where}",
    )


RULES = [held_object_lacks_read]
