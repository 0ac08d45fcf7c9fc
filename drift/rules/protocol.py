"""Two-phase methods: a call that used to return its result now returns None and parks the
result in a field that a sibling method must collect."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Iterable, Iterator

from drift.check.context import CheckContext
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.index import PackageIndex, Symbol, def_of
from drift.rules.base import rule


def two_phase_pairs(index: PackageIndex, method: str) -> list[dict[str, Any]]:
    """The protocols of `method` found anywhere in the target (cached per digest and method):
    only modules that define a `method` can hold one.

    A protocol: method `m` of class C ends in an unconditional `return None` after setting
    `self.F`, and a sibling `s` of C reads F and resets it to None.

    Over demand-driven facts the classes are read as outlines and only `m` itself is parsed,
    alone (`drift.outline.method_alone`); a sibling is parsed only when `m` qualifies and its
    text holds the field's name. Why: the classes defining `execute_model` live in the GPU
    model runners (450 KB each); parsing them was ~45 % of a cold check, for an answer that
    reads one method of each class."""
    if index.demand:
        return index.memo("two_phase", method, lambda: _two_phase_of(
            index.outline, index.modules_mentioning(def_of(method)), method))
    return index.query("two_phase", method, needle=def_of(method), build=_build_two_phase, default=[])


def _build_two_phase(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list] = {}
    for cls in index.iter_classes(modules):
        methods = cls.facts.get("methods") or {}
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
        methods = cls.facts.get("methods") or {}
        m = methods.get(method)
        if m is not None:
            out.extend(_protocols(cls, methods, method, m))
    return _order(out)


def _order(protos: list) -> list:
    protos.sort(key=lambda p: (p["guard"] is None, p["cls"]["path"]))  # a literal state guard first: it names the failure
    return protos


def _protocols(cls: Symbol, methods: dict, name: str, m: dict) -> list[dict[str, Any]]:
    b = m.get("behaviour") or {}
    if not b.get("tail_return_none") or not b.get("self_sets"):
        return []
    out = []
    for field, set_lines in b["self_sets"].items():
        for sname, s in methods.items():
            if sname == name:
                continue
            if hasattr(s, "mentions") and s.mentions(field.encode()) is False:
                continue  # an outline method whose text cannot read the field
            sb = s.get("behaviour") or {}
            if field in (sb.get("self_reads") or {}) and field in (sb.get("self_resets") or {}):
                guard = next((r for r in b.get("raises") or [] if field in (r.get("guard") or "")), None)
                out.append({
                    "cls": {"dotted": cls.dotted, "path": cls.path}, "method": _plain(m), "sibling": _plain(s),
                    "field": field, "set_line": set_lines[-1], "guard": guard,
                })
    return out


def _plain(node: dict) -> dict:
    """The parse's own dict for an outline node (answers are stored with marshal)."""
    return node.whole() if hasattr(node, "whole") else node


def _has_method(index: PackageIndex | None, cls_dotted: str, name: str) -> Symbol | None:
    if index is None:
        return None
    sym = index.lookup(f"{cls_dotted}.{name}")
    return sym if sym is not None and sym.kind == "method" else None


@rule("DRIFT020", RuleKind.TWO_PHASE_PROTOCOL)
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
        protos = two_phase_pairs(ctx.target, method)
        if not protos:
            continue
        receiver = callee["receiver"]
        for proto in protos:
            sibling = proto["sibling"]["name"]
            recv_sibling = _has_method(ctx.target.outline, receiver, sibling)
            if recv_sibling is None:
                continue
            base = ctx.baseline.outline if ctx.baseline is not None else None  # methods parsed alone
            base_sibling = _has_method(base, receiver, sibling)
            base_proto_cls = base.lookup(proto["cls"]["dotted"]) if base is not None else None
            base_m = (base_proto_cls.facts.get("methods") or {}).get(method) if base_proto_cls else None
            was_two_phase = bool(base_m and (base_m.get("behaviour") or {}).get("tail_return_none")) and base_sibling
            if ctx.baseline is not None and was_two_phase:
                continue
            if ctx.consumer_calls_method(receiver, sibling):
                continue
            key = (rc.module["path"], rc.rec["line"], method)
            if key in reported:
                continue
            reported.add(key)
            cls = SimpleNamespace(**proto["cls"])
            m = proto["method"]
            guard = proto["guard"]
            target_ev = [
                Location(cls.path, m["behaviour"]["tail_return_none"], symbol=f"{cls.dotted}.{method}",
                         snippet="return None"),
                Location(cls.path, proto["set_line"], symbol=f"{cls.dotted}.{method}",
                         snippet=f"self.{proto['field']} = ..."),
                Location(cls.path, proto["sibling"]["line"], symbol=f"{cls.dotted}.{sibling}",
                         snippet=f"reads and clears self.{proto['field']}"),
                Location(recv_sibling.path, recv_sibling.line, symbol=recv_sibling.dotted),
            ]
            base_ev = []
            base_recv_m = _has_method(base, receiver, method)
            if base_recv_m is not None:
                base_ev.append(Location(base_recv_m.path, base_recv_m.line, symbol=base_recv_m.dotted,
                                        snippet=f"returns the model output; {receiver.rsplit('.', 1)[-1]} has no {sibling}()"))
            if base_m is not None:
                base_ev.append(Location(base_proto_cls.path, base_m["line"], symbol=f"{base_proto_cls.dotted}.{method}",
                                        snippet="returns its output; no tail `return None`"))
            failure = (f"RuntimeError: {guard['message']}" if guard else
                       f"the result of `{method}()` is None; the state waits in `{proto['field']}` for `{sibling}()`")
            sib_params = [p for p in (proto["sibling"].get("params") or [])[1:] if p.get("default") is None
                          and p["kind"] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
            yield Finding(
                rule_id="DRIFT020", kind=RuleKind.TWO_PHASE_PROTOCOL, severity=Severity.BREAKING,
                title=f"`{rc.label}()` now returns None; `{sibling}()` must follow it",
                consumer_site=rc.site,
                target_evidence=tuple(target_ev),
                baseline_evidence=tuple(base_ev),
                predicted_failure=failure + f" (raised by the next `{method}()` call)",
                fix=Fix(f"call `{sibling}()` after `{method}()` returns None", codemod="add_second_phase",
                        args={"method": method, "sibling": sibling, "sibling_args": ["None"] * len(sib_params)}),
                symbol=rc.dotted,
                details=f"`{cls.dotted.rsplit('.', 1)[-1]}.{method}` stores its state in `self.{proto['field']}` "
                        f"and returns None; `{sibling}` consumes it.",
            )
