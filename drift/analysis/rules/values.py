"""The value the target's own code passes for a parameter, in the consumer's terms.

Two sources, both read from facts: a factory that fills `kwargs["name"] = value` for the class,
and the target's own construction (or, for a function or method, call: `kw_calls`) of the same callable (`Scheduler(..., block_size=x)` with
`x = vllm_config.cache_config.block_size * ...`), rewritten with the expressions the consumer
passes for the same keywords (`vllm_config` -> `self.vllm_config`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

from drift.model.facts import CtorCall, FunctionFacts, ModuleFacts
from drift.findings import Location
from drift.model.index import PackageIndex, call_of


@dataclass(frozen=True)
class Value:
    source: str
    why: str
    evidence: Location | None
    # every construction in the target that passes the parameter gives this same value in the
    # consumer's terms (a factory's default counts as agreed); False: some other caller passes
    # something else, or something the consumer's call cannot express, so the value is a guess
    agreed: bool = True


def _functions(index: PackageIndex, modules: Iterable[str] | None = None
               ) -> Iterator[tuple[str, ModuleFacts, FunctionFacts]]:
    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.every_function():
            yield mod_name, mod, fn


def _build_ctor_calls(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """callee's last segment -> [{path, function, call}]; `call` is the probe's record, kept as
    stored (the answer is written to the facts store)."""
    out: dict[str, list] = {}
    for _name, mod, fn in _functions(index, modules):
        for call in fn.behaviour.ctor_calls:
            out.setdefault(call.callee.rsplit(".", 1)[-1], []).append(
                {"path": mod.path, "function": fn.qualname or fn.name, "call": call.raw})
    return out


def ctor_calls(index: PackageIndex, callee: str) -> list[dict]:
    """[{path, function, call}] of the target's own `callee(...)` constructions (by the last
    segment of the name; cached per package digest and callee). The probe records only
    calls of a capitalised name with keywords, so any other name has none, unparsed."""
    if not callee[:1].isupper():
        return []
    return index.query("ctor_calls", callee, needle=call_of(callee), build=_build_ctor_calls, default=[],
                       scoped=True)


def _build_kw_calls(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """callee's last segment -> [{path, function, line, keywords}] over `kw_calls` and `ctor_calls`."""
    out: dict[str, list] = {}
    for _name, mod, fn in _functions(index, modules):
        beh = fn.behaviour
        for call in list(beh.kw_calls) + list(beh.ctor_calls):
            kws = {k: v for k, v in call.keywords.items() if k != "**"}
            if kws and "**" not in call.keywords:
                out.setdefault(call.callee.rsplit(".", 1)[-1], []).append(
                    {"path": mod.path, "function": fn.qualname or fn.name, "line": call.line, "keywords": kws})
    return out


def kw_calls(index: PackageIndex, name: str) -> list[dict]:
    """The package's own calls of `name` / `x.name` that pass keywords (no `**dict`), with the
    keywords' source texts (cached per package digest and name)."""
    return index.query("kw_calls", name, needle=call_of(name), build=_build_kw_calls, default=[], scoped=True)


def _build_pos_calls(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """callee's last segment -> [{module, path, function, line, callee, args, locals}] over `pos_calls`."""
    out: dict[str, list] = {}
    for mod_name, mod, fn in _functions(index, modules):
        for call in fn.behaviour.pos_calls:
            out.setdefault(call.callee.rsplit(".", 1)[-1], []).append(
                {"module": mod_name, "path": mod.path, "function": fn.qualname or fn.name, "line": call.line,
                 "callee": call.callee,
                 "args": list(call.args), "locals": dict(call.locals)})
    return out


def pos_calls(index: PackageIndex, name: str) -> list[dict]:
    """The package's own `self.name(...)` / `self.x.name(...)` calls passing positional arguments
    only (facts +pc), with the argument texts and the locals they name (cached per digest and name)."""
    return index.query("pos_calls.v2", name, needle=call_of(name), build=_build_pos_calls, default=[], scoped=True)


def _build_flag_calls(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """callee's last segment -> [{path, function, line, callee, args}] over `flag_calls`."""
    out: dict[str, list] = {}
    for _name, mod, fn in _functions(index, modules):
        for call in fn.behaviour.flag_calls:
            out.setdefault(call.callee.rsplit(".", 1)[-1], []).append(
                {"path": mod.path, "function": fn.qualname or fn.name, "line": call.line, "callee": call.callee,
                 "args": list(call.args)})
    return out


def flag_calls(index: PackageIndex, name: str) -> list[dict]:
    """The package's own `x.name(a, True, b)` calls passing only names and constants positionally,
    one a True/False/None flag (facts +fc), with the argument texts (cached per digest and name)."""
    return index.query("flag_calls", name, needle=call_of(name), build=_build_flag_calls, default=[], scoped=True)


def determinable_value(ctx, rc, name: str) -> Value | None:
    at = rc.target_params_at
    if at is not None and at.kind == "method" and at.owner is not None:
        at = at.owner  # an explicit __init__: its class's factories count too
    if at is not None and at.kind == "class":
        for owner in ctx.target.mro(at):
            for meth in owner.as_class.methods.values():
                kd = meth.behaviour.kwarg_defaults.get(name)
                if kd:
                    return Value(kd["value"], f"the value `{owner.dotted.rsplit('.', 1)[-1]}.{meth.name}` fills in",
                                 Location(owner.path, kd.get("line", meth.line), symbol=f"{owner.dotted}.{meth.name}"))
    callee = rc.label.rsplit(".", 1)[-1]
    consumer_kw = rc.rec.get("kw_values") or {}
    found: list[tuple[str | None, dict, int]] = []
    for entry, keywords, local, line in _own_calls(ctx.target, callee):
        src = keywords.get(name)
        if not src:
            continue
        expr = local.get(src, src)
        found.append((_in_consumer_terms(expr, keywords, consumer_kw), entry, line))
    usable = [(text, entry, line) for text, entry, line in found if text]
    if not usable:
        return None
    text, entry, line = usable[0]
    agreed = all(other == text for other, _e, _c in found)
    verb, what = ("builds", "constructions") if callee[:1].isupper() else ("calls", "calls")
    why = f"as `{entry['function']}` {verb} it" + (
        f"; all {len(found)} of the target's {what} agree" if agreed and len(found) > 1 else
        "" if agreed else f"; {len(found) - 1} other {what[:-1]}(s) in the target pass something else")
    return Value(text, why, Location(entry["path"], line), agreed=agreed)


def _own_calls(index: PackageIndex, callee: str) -> Iterator[tuple[dict, Mapping[str, str], Mapping[str, str], int]]:
    """(entry, keywords, locals, line) of the target's own calls of `callee` that pass keywords: its
    constructions (`ctor_calls`, with the locals their values use) for a class, its `kw_calls`
    (facts +kwc, no locals) for a function or method."""
    if callee[:1].isupper():
        for entry in ctor_calls(index, callee):
            call = CtorCall(entry["call"])
            yield entry, call.keywords, call.locals, call.line
        return
    for entry in kw_calls(index, callee):
        yield entry, entry["keywords"], {}, entry["line"]


def target_example(ctx, rc, name: str) -> tuple[str, Location] | None:
    """How the target's own construction of the callee passes `name`, said as code, when no value
    can be written in the consumer's terms: `cu_num_sampled_tokens=cu_num_sampled_tokens` in
    `GPUModelRunner._calc_spec_decode_metadata`, where `cu_num_sampled_tokens = torch.from_numpy(...)`.
    The consumer's maintainer writes the equivalent from what their own function holds; drift
    never emits it, since the names are the target function's locals, not the consumer's."""
    callee = rc.label.rsplit(".", 1)[-1]
    for entry in ctor_calls(ctx.target, callee):
        call = CtorCall(entry["call"])
        src = call.keywords.get(name)
        if not src:
            continue
        built = call.locals.get(src)
        text = f"`{name}={src}` in `{entry['function']}`" + (
            f", where `{src} = {built}`" if built and built != src else "")
        return text, Location(entry["path"], call.line)
    return None


def _in_consumer_terms(expr: str, target_kw: Mapping[str, str], consumer_kw: Mapping[str, str]) -> str | None:
    if expr.endswith("…"):
        return None  # the probe cut a long expression: never emit half of it as code
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        return None
    mapping = {}
    for kw, tsrc in target_kw.items():
        if kw in consumer_kw and tsrc.isidentifier():
            mapping[tsrc] = consumer_kw[kw]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if not names <= set(mapping) | {"True", "False", "None"}:
        return None

    class Sub(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in mapping:
                return ast.copy_location(ast.parse(mapping[node.id], mode="eval").body, node)
            return node

    try:
        return ast.unparse(Sub().visit(tree))
    except SyntaxError:
        return None
