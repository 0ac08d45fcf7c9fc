"""Two-phase methods: a call that used to return its result now returns None and parks the
result in a field that a sibling method must collect."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Iterable, Iterator

from drift.analysis.context import CheckContext
from drift.model.ahead import AheadJob, answered, take_ahead
from drift.model.facts import FunctionFacts, RaiseFacts, Table
from drift.findings import SAFE, UNSAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol, def_of
from drift.analysis.rules.base import rule


def two_phase_pairs(index: PackageIndex, method: str) -> list[dict[str, Any]]:
    """The protocols of `method` found anywhere in the target (cached per digest and method):
    only modules that define a `method` can hold one.

    A protocol: method `m` of class C ends in an unconditional `return None` after setting
    `self.F`, and a sibling `s` of C reads F and resets it to None.

    Over demand-driven facts the classes are read as outlines and only `m` itself is parsed,
    alone (`drift.model.outline.method_alone`); a sibling is parsed only when `m` qualifies and its
    text holds the field's name. Why: the classes defining `execute_model` live in the GPU
    model runners (450 KB each); parsing them was ~45 % of a cold check, for an answer that
    reads one method of each class."""
    if index.demand:
        return index.memo("two_phase", method, lambda: _two_phase_of(
            index.outline, index.modules_mentioning(def_of(method)), method))
    return index.query("two_phase", method, needle=def_of(method), build=_build_two_phase, default=[])


def two_phase_jobs(usage: list[dict]) -> list[AheadJob]:
    """DRIFT020's question for every method the consumer calls on a receiver (its usage names
    them), for a worker to answer ahead (`drift.model.ahead.answered_ahead`): the classes defining
    `execute_model` are the GPU model runners' outlines, the biggest modules a check reads."""
    methods = sorted({rec["callee"]["method"] for mod in usage for rec in mod.get("calls") or []
                      if rec.get("callee", {}).get("method") and "receiver" in rec["callee"]})
    return [AheadJob(("two_phase", m), lambda t, b, m=m: two_phase_pairs(t, m),
                     lambda t, b, m=m: answered(t, "two_phase", m)) for m in methods]


def _build_two_phase(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list] = {}
    for cls in index.iter_classes(modules):
        methods = cls.as_class.methods
        for name, m in methods.items():
            found = _protocols(cls, methods, name, m)
            if found:
                out.setdefault(name, []).extend(found)
    for protos in out.values():
        _order(protos)
    return out


def _two_phase_of(index: PackageIndex, modules: Iterable[str], method: str) -> list[dict[str, Any]]:
    """`_build_two_phase(index, modules)[method]`, reading no other method than `method` unless
    it qualifies."""
    out: list = []
    for cls in index.iter_classes(modules):
        methods = cls.as_class.methods
        m = methods.get(method)
        if m is not None:
            out.extend(_protocols(cls, methods, method, m))
    return _order(out)


def _order(protos: list) -> list:
    protos.sort(key=lambda p: (p["guard"] is None, p["cls"]["path"]))  # a literal state guard first: it names the failure
    return protos


def _protocols(cls: Symbol, methods: Table[FunctionFacts], name: str, m: FunctionFacts) -> list[dict[str, Any]]:
    """A protocol answer is a plain record (stored with marshal): the class, the two methods'
    records, the field, where it is set and the raise guarding it (`RaiseFacts` records)."""
    b = m.behaviour
    if not b.tail_return_none or not b.self_sets:
        return []
    out = []
    for field, set_lines in b.self_sets.items():
        for sname, s in methods.items():
            if sname == name:
                continue
            if hasattr(s.raw, "mentions") and s.raw.mentions(field.encode()) is False:
                continue  # an outline method whose text cannot read the field
            sb = s.behaviour
            if field in sb.self_reads and field in sb.self_resets:
                guard = next((r.raw for r in b.raises if field in (r.guard or "")), None)
                out.append({
                    "cls": {"dotted": cls.dotted, "path": cls.path}, "method": _plain(m), "sibling": _plain(s),
                    "field": field, "set_line": set_lines[-1], "guard": guard,
                })
    return out


def _plain(node: FunctionFacts) -> dict:
    """The parse's own record for a method, also of an outline node (answers are stored with marshal)."""
    raw = node.raw
    return raw.whole() if hasattr(raw, "whole") else raw


def _has_method(index: PackageIndex | None, cls_dotted: str, name: str) -> Symbol | None:
    if index is None:
        return None
    sym = index.lookup(f"{cls_dotted}.{name}")
    return sym if sym is not None and sym.kind == "method" else None


@rule("DRIFT020", RuleKind.TWO_PHASE_PROTOCOL, answered_ahead=True)
def two_phase_protocol(ctx: CheckContext) -> Iterator[Finding]:
    """The consumer calls `m()` and never the sibling `s()` that now must follow it.

    In the target, `m` ends in an unconditional `return None` after storing its state in a
    field that `s` reads and clears; the next `m()` then fails on the state guard. The
    consumer's receiver class gained `s` (or `m` gained the tail return) since the baseline.
    """
    reported = set()
    for rc in ctx.calls:
        callee = rc.rec["callee"]
        method = callee.get("method")
        if not method or rc.target is None:
            continue
        take_ahead(ctx.target, ctx.baseline, ("two_phase", method))
        protos = two_phase_pairs(ctx.target, method)
        if not protos:
            continue
        receiver = callee["receiver"]
        for proto in protos:
            sibling = FunctionFacts(proto["sibling"]).name
            recv_sibling = _has_method(ctx.target.outline, receiver, sibling)
            if recv_sibling is None:
                continue
            base = ctx.baseline.outline if ctx.baseline is not None else None  # methods parsed alone
            base_sibling = _has_method(base, receiver, sibling)
            base_proto_cls = base.lookup(proto["cls"]["dotted"]) if base is not None else None
            base_m = base_proto_cls.as_class.methods.get(method) if base_proto_cls else None
            was_two_phase = bool(base_m is not None and base_m.behaviour.tail_return_none) and base_sibling
            if ctx.baseline is not None and was_two_phase:
                continue
            if ctx.consumer_calls_method(receiver, sibling):
                continue
            key = (rc.module["path"], rc.rec["line"], method)
            if key in reported:
                continue
            reported.add(key)
            cls = SimpleNamespace(**proto["cls"])
            m, sib = FunctionFacts(proto["method"]), FunctionFacts(proto["sibling"])
            guard = RaiseFacts(proto["guard"]) if proto["guard"] is not None else None
            target_ev = [
                Location(cls.path, m.behaviour.tail_return_none, symbol=f"{cls.dotted}.{method}",
                         snippet="return None"),
                Location(cls.path, proto["set_line"], symbol=f"{cls.dotted}.{method}",
                         snippet=f"self.{proto['field']} = ..."),
                Location(cls.path, sib.line, symbol=f"{cls.dotted}.{sibling}",
                         snippet=f"reads and clears self.{proto['field']}"),
                Location(recv_sibling.path, recv_sibling.line, symbol=recv_sibling.dotted),
            ]
            base_ev = []
            base_recv_m = _has_method(base, receiver, method)
            if base_recv_m is not None:
                base_ev.append(Location(base_recv_m.path, base_recv_m.line, symbol=base_recv_m.dotted,
                                        snippet=f"returns the model output; {receiver.rsplit('.', 1)[-1]} has no {sibling}()"))
            if base_m is not None:
                base_ev.append(Location(base_proto_cls.path, base_m.line, symbol=f"{base_proto_cls.dotted}.{method}",
                                        snippet="returns its output; no tail `return None`"))
            failure = _first_failure(rc.rec.get("result"), rc.rec["line"])
            if failure is None:
                failure = ((f"RuntimeError: {guard.message}" if guard is not None else
                            f"the result of `{method}()` is None; the state waits in `{proto['field']}` for "
                            f"`{sibling}()`") + f" (raised by the next `{method}()` call)")
            sib_params = [p for p in sib.param_facts[1:] if p.required]
            yield Finding(
                rule_id="DRIFT020", kind=RuleKind.TWO_PHASE_PROTOCOL, severity=Severity.BREAKING,
                title=f"`{rc.label}()` now returns None; `{sibling}()` must follow it",
                consumer_site=rc.site,
                target_evidence=tuple(target_ev),
                baseline_evidence=tuple(base_ev),
                predicted_failure=failure,
                fix=_second_phase_fix(rc.rec.get("function") or "", method, sibling, sib_params),
                symbol=rc.dotted,
                details=f"`{cls.dotted.rsplit('.', 1)[-1]}.{method}` stores its state in `self.{proto['field']}` "
                        f"and returns None; `{sibling}` consumes it.",
            )


def _first_failure(result: dict | None, call_line: int) -> str | None:
    """What Python raises first when the consumer uses the None it now gets back: an attribute
    read, an index or a loop on the result after the call, the earliest line first.

    Why: inside the consumer's own `execute_model` override, `out = super().execute_model(...)`
    is followed by `out.sampled_token_ids`; the AttributeError there comes before any next call
    could reach the state guard, so predicting the guard's error would send the reader astray."""
    if not result:
        return None
    first: list[tuple[int, str]] = []
    for a in result.get("attributes") or []:
        first.append((a["line"], f"AttributeError: 'NoneType' object has no attribute '{a['attr']}'"))
    for i in result.get("indexed") or []:
        first.append((i["line"], "TypeError: 'NoneType' object is not subscriptable"))
    for i in result.get("iterated") or []:
        first.append((i["line"], "TypeError: 'NoneType' object is not iterable"))
    first = [f for f in first if f[0] >= call_line]
    if not first:
        return None
    line, error = min(first)
    return f"{error} (line {line}, the result read)"


def _second_phase_fix(function: str, method: str, sibling: str, sib_params: list) -> Fix:
    """Add the second phase after the call, unless the call is inside the consumer's own override.

    Why manual there: an override of `method` is called by the engine, which then calls
    `sibling(...)` itself with the real arguments (the grammar bitmask); calling it inside the
    override would consume the state with placeholders and the engine's call would find nothing.
    Outside an override, the placeholders (`None` for each required argument) are what a caller
    without that state passes, but they may drop what the engine would have passed: unsafe.
    """
    if function.rsplit(".", 1)[-1] == method:
        names = ", ".join(p.name for p in sib_params)
        return Fix(f"keep `{function}` returning what `{method}()` returns (None) and let the engine call "
                   f"`{sibling}({names})`; move post-processing of the output into an override of `{sibling}`",
                   manual_reason=f"the call is inside the consumer's own `{method}` override: adding "
                                 f"`{sibling}()` there would pre-empt the engine's own call")
    placeholders = ["None"] * len(sib_params)
    shown = ", ".join(placeholders)
    return Fix(f"call `{sibling}({shown})` after `{method}()` returns None", codemod="add_second_phase",
               args={"method": method, "sibling": sibling, "sibling_args": placeholders},
               tier=UNSAFE if placeholders else SAFE)
