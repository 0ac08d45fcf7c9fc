"""DRIFT078: an override returns nothing where the target's method now returns a value its callers use.

vLLM widens contracts by return value as often as by parameters: `Scheduler.finish_requests`
went from `-> None` to returning the requests it aborted (the engine sends their ABORT outputs),
`WorkerBase.compile_or_warm_up_model` from `-> None` to the compilation time (the executor takes
the max over workers). A consumer override written for the old contract still returns None, so
the target's callers get None where they now expect a value: nothing fails where the override
is, often nothing fails at all, and a feature quietly does nothing (or `max([None, None])` raises
far away). The same holds when the base already returned a plain value and now returns an object
of one of the target's classes (`-> float` became `-> CompilationTimes`): a single worker's None
passed through `max([None])` before, and `None.language_model` raises now. Whether the override
gives a value comes from the consumer's IR (probes/ir.py). A base that now returns an Optional
value (`-> None` became `-> Callable | None`: vLLM 0.19's `GPUModelRunner._update_states` hands back
deferred state corrections `execute_model` runs) is reported only where the override calls the base
(`super().m(...)`, `Base.m(self, ...)`: `override_params._forward_call`) and drops that value: returning None is legal there, dropping what the base built
is not.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.override_params import _forward_call
from drift.analysis.rules.reach import _consumer_classes, _lookup_method, _module_of
from drift.analysis.rules.signature import _type_names
from drift.findings import Finding, Fix, Location, RuleKind, Severity

_NOTHING = frozenset({"", "None", "NoReturn", "Never", "typing.NoReturn", "typing.Never"})


def _gives_nothing_declared(text: str | None) -> bool:
    return (text or "").strip() == "None"


def _gives_value_declared(text: str | None) -> bool:
    """A return annotation that promises a value every time (an Optional may be None anyway)."""
    t = (text or "").strip().strip("'\"")
    if t in _NOTHING or t.startswith(("Optional[", "typing.Optional[")) or t == "Any":
        return False
    return not any(part.strip() == "None" for part in t.split("|"))


def _newly_a_target_class(ctx: CheckContext, tm, bret: str | None, tret: str | None,
                          nominal: bool = False) -> bool:
    """The target's return annotation names a class of the target where the baseline's named
    something else: the target's callers now read that class's members off the value.
    `nominal`: only a class a value must be an instance of, not a `Protocol` (any object with
    its members is one: an `nn.Module` is a `VllmModel`)."""
    t = (tret or "").strip().strip("'\"")
    if not t or not bret or t == (bret or "").strip().strip("'\"") or not tm.module:
        return False
    sym = ctx.target.lookup(ctx.target.dotted_in(tm.module, t)) or ctx.target.lookup(f"{tm.module}.{t}")
    if sym is None or sym.kind != "class" or sym.dotted.split(".")[0] != ctx.target_package:
        return False
    return not nominal or not any(b.split("[")[0].rsplit(".", 1)[-1] == "Protocol"
                                  for c in ctx.target.mro(sym) for b in c.as_class.bases)


def _sometimes_a_value(text: str | None) -> bool:
    """An Optional return annotation of something (`Callable | None`, `Optional[X]`): the method
    now hands back a value on some calls, which its callers act on when it is not None."""
    t = (text or "").strip().strip("'\"")
    if t.startswith(("Optional[", "typing.Optional[")):
        return True
    parts = [part.strip() for part in t.split("|")]
    return len(parts) > 1 and "None" in parts and any(part not in _NOTHING for part in parts)


@rule("DRIFT078", RuleKind.OVERRIDE_INCOMPATIBLE, Severity.RISKY)
def override_returns_nothing(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override of a method the baseline declared `-> None` (or `-> <a plain value>`)
    and the target declares as returning a value (an object of one of the target's classes), when
    no `return` in the override hands back anything: the target's callers now receive None where
    they expect that value, or read its members off None."""
    if ctx.baseline is None:
        return
    gives = ctx.consumer.inferred.gives
    for ref, cls, tb, bb in _consumer_classes(ctx):
        for name, m in (cls.get("methods") or {}).items():
            if name.startswith("__") or m.get("raises_only") or gives.get(f"{ref}.{name}", True):
                continue
            tm = _lookup_method(ctx.target, tb, name)
            bm = _lookup_method(ctx.baseline, bb, name)
            if tm is None or bm is None:
                continue
            tret, bret = tm.as_function.returns, bm.as_function.returns
            dropped = None  # the override's super() call whose new value it drops
            if _sometimes_a_value(tret) and _gives_nothing_declared(bret):
                # `-> None` became `-> Callable | None`: the callers act on the value when there is one,
                # so an override that calls the base and returns nothing silently drops it
                fwd = _forward_call(ctx, Location(_module_of(ctx, cls)["path"], m["line"]), f"{cls['qual']}.{name}",
                                    tm, bm)
                if fwd is None:
                    continue
                dropped = fwd.rec.get("line")
            elif not _gives_value_declared(tret) or not (_gives_nothing_declared(bret)
                                                         or _newly_a_target_class(ctx, tm, bret, tret)):
                continue
            base = tm.dotted.rsplit(".", 2)[-2]
            yield Finding(
                rule_id="DRIFT078", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
                title=f"`{cls['qual']}.{name}` returns nothing, but `{base}.{name}` now returns `{tret}` "
                      f"(it returned {'None' if _gives_nothing_declared(bret) else f'`{bret}`'})",
                consumer_site=Location(_module_of(ctx, cls)["path"], m["line"], symbol=f"{ref}.{name}",
                                       col=(m.get("col") or 0) + 1),
                target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
                baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
                predicted_failure=None,
                details=("the target's callers now use the value; the override hands them None" if dropped is None else
                         f"the override calls `super().{name}(...)` at line {dropped} and drops what it now returns: "
                         "the target's callers act on that value when there is one, and get None instead"),
                fix=(Fix(f"return what `{base}.{name}` now returns (`{tret}`)",
                         manual_reason="the value must come from the override's own logic") if dropped is None else
                     Fix(f"return the value of `super().{name}(...)` (line {dropped}) from `{cls['qual']}.{name}`",
                         manual_reason="where the override's own code after the call should run decides the edit")),
                symbol=tm.dotted,
            )


@rule("DRIFT086", RuleKind.OVERRIDE_INCOMPATIBLE, Severity.RISKY)
def override_returns_old_type(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override that says it returns the type the baseline's method declared (its
    annotation, or the type of the one constant it returns: `return "gdn_attention"`), where the
    target's method now declares one of the target's classes sharing no type with the old
    (`-> str` became `-> MambaAttentionBackendEnum`): the target's callers now take the override's
    value for that class, and fail on the plain value it still hands them (an isinstance assert,
    a member read). Reported at that constant's `return` when the body is one, else at the
    override."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        for name, m in sorted((cls.get("methods") or {}).items()):
            mine = m.get("returns")
            if not mine or name.startswith("__") or m.get("raises_only"):
                continue
            tm, bm = _lookup_method(ctx.target, tb, name), _lookup_method(ctx.baseline, bb, name)
            if tm is None or bm is None:
                continue
            tret, bret = tm.as_function.returns, bm.as_function.returns
            was, now, says = _type_names(bret), _type_names(tret), _type_names(mine)
            if not was or not now or not says or was & now or not says <= was \
                    or not _newly_a_target_class(ctx, tm, bret, tret, nominal=True):
                continue
            base = tm.dotted.rsplit(".", 2)[-2]
            yield Finding(
                rule_id="DRIFT086", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
                title=f"`{cls['qual']}.{name}` returns `{mine}`, but `{base}.{name}` now returns `{tret}` "
                      f"(it returned `{bret}`)",
                consumer_site=Location(_module_of(ctx, cls)["path"], m.get("returns_line") or m["line"],
                                       symbol=f"{ref}.{name}", col=1 if m.get("returns_line") else (m.get("col") or 0) + 1),
                target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
                baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
                predicted_failure=None,
                details="the target's callers now use the value as the new type; the override hands them the old",
                fix=Fix(f"return a `{tret}` from `{cls['qual']}.{name}` as `{base}.{name}` now does",
                        manual_reason="which value of the new type stands for the old one is the consumer's choice"),
                symbol=tm.dotted,
            )


RULES = [override_returns_nothing, override_returns_old_type]
