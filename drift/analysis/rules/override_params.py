"""The fix for an override that must take the parameters vLLM now passes it (DRIFT070).

Why a module of its own: both DRIFT070 paths (the target's call sites, the base's declaration)
offer the same edit and must judge it the same way. The edit adds each new parameter with the
target's default where the target declares it, and, when the override hands its arguments to the
base (`super().m(...)`, `Base.m(self, ...)`, the saved original), forwards the new one by
keyword. Safe when it forwards and the default is the target's own: the base then receives
exactly what vLLM passed, as if the override were not there. Safe too when it does not forward but
every new parameter has the target's literal default and lands after the override's last
positional parameter (and no `*args` follows): every existing caller, the consumer's own included, binds as before, and
the override ignores the value, so it behaves as it did on the baseline, whose callers never
passed it (`add_parameters` refuses where the body reads a name the new parameter would shadow).
Safe too where the new parameters go in the middle but leave the override's positional parameters
exactly the target's declaration (every call vLLM makes binds by the same names) and no call of the
consumer's own passes that slot positionally; for a range consumer always in a vLLM-version branch
(`mid_signature`, drift.fixes.plan), since the baseline's callers pass the later arguments one slot earlier.
Never safe unread where the target's own implementation acts on the new parameter (`pipe.send()`,
`queue.put()`, `obj.x = ...`; `_channels`): vLLM's caller then waits for that effect.
Otherwise unsafe (a required value taken and ignored, or a slot in the middle that shifts the
consumer's own positional calls), or manual when the default cannot be written in the consumer's
module (it names something of vLLM's) or the forward call passes that slot positionally already.
"""

from __future__ import annotations

import ast
from typing import Any

from drift.analysis.context import CheckContext, ResolvedCall
from drift.findings import SAFE, UNSAFE, Fix, Location
from drift.model.facts import Param
from drift.model.index import Symbol

_POS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _own(params: list[Param]) -> list[Param]:
    return params[1:] if params and params[0].name in ("self", "cls") else list(params)


def _literal(default: str) -> bool:
    """A default the consumer's module can write as is (`None`, `0`, `"x"`, `()`): it names
    nothing the module would have to import."""
    try:
        ast.literal_eval(default.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _forward_call(ctx: CheckContext, where: Location, label: str, tm: Symbol, bm: Symbol | None) -> ResolvedCall | None:
    """The call in the override that hands its arguments to the method it overrides."""
    name = tm.dotted.rsplit(".", 1)[-1]
    owners = {s.dotted for s in (tm, bm) if s is not None}
    classes = {d.rsplit(".", 1)[0] for d in owners}
    for rc in ctx.calls:
        rec = rc.rec
        if rc.module.get("path") != where.path or rec.get("function") != label:
            continue
        callee = rec.get("callee") or {}
        if callee.get("via") == "super" and (callee.get("method") == name or
                                            (name == "__init__" and "symbol" in callee)):
            return rc
        if rc.dotted in owners or (name == "__init__" and rc.dotted in classes
                                   and rec["callee_src"].endswith(".__init__")):
            return rc
    return None


def _appended(sig: list[list[Any]] | None, specs: list[list[Any]]) -> bool:
    """Whether each new parameter (`[name, default, after]`) lands after the override's last
    positional parameter, where `add_parameters` puts it: no existing positional call shifts."""
    if sig is None or any(p[1] == "VAR_POSITIONAL" for p in sig):
        return False  # `*args` after it: a positional call's extra arguments would bind to the new one
    names = [str(p[0]) for p in sig if p[1] in _POS]
    for name, _default, after in (s[:3] for s in specs):
        at = names.index(after) + 1 if after in names else len(names)
        if at != len(names):
            return False
        names.append(name)
    return True


def _grown(sig: list[list[Any]], specs: list[list[Any]]) -> list[str]:
    """The override's positional parameter names once each new one stands after its target
    neighbour, as `add_parameters` writes it."""
    names = [str(p[0]) for p in sig if p[1] in _POS]
    for name, _default, after in (s[:3] for s in specs):
        names.insert(names.index(after) + 1 if after in names else len(names), name)
    return names


def _as_declared(sig: list[list[Any]] | None, specs: list[list[Any]], tparams: list[Param]) -> bool:
    """Whether the new parameters go in the middle and leave the override's positional parameters
    exactly the target's declaration's, in order (`record(self, scheduler_stats, iteration_stats,
    mm_cache_stats=None, engine_idx=0)`): every call the target makes, positional or not, then binds
    each argument to the parameter of the same name. No `*args` in the override."""
    if sig is None or any(p[1] == "VAR_POSITIONAL" for p in sig) or _appended(sig, specs):
        return False
    return _grown(sig, specs) == [p.name for p in tparams if p.kind in _POS]


def _own_positional_calls(ctx: CheckContext, label: str, sig: list[list[Any]], specs: list[list[Any]]) -> bool:
    """Whether a call in the consumer of a method named like the override (whatever its receiver:
    the probe's calls as recorded, not only those resolved to the target) passes arguments
    positionally at or past the first new slot, or `*args`: inserting a parameter there would
    bind them one slot off. A call the probe did not record (a module that never names the
    target) is not seen."""
    name = label.rsplit(".", 1)[-1]
    grown = _grown(sig, specs)
    new = {str(s[0]) for s in specs}
    first = min(i for i, n in enumerate(grown) if n in new)
    skip = 1 if grown and grown[0] in ("self", "cls") else 0
    for module in ctx.usage:  # every call the probe recorded, resolved to the target or not
        for rec in module.get("calls") or ():
            src = str(rec.get("callee_src") or "")
            if src.rsplit(".", 1)[-1] != name:
                continue
            if rec.get("star_args") or int(rec.get("positional") or 0) + skip > first:
                return True
    return False


# methods that act on an object rather than read it: a parameter the target's own implementation
# sends on, fills or closes is a channel its caller waits on, not a value the override may ignore
_EFFECTS = frozenset({"send", "send_bytes", "send_multipart", "send_pyobj", "put", "put_nowait", "append",
                      "appendleft", "extend", "insert", "add", "update", "write", "set", "set_result",
                      "set_exception", "close", "notify", "notify_all", "release", "emit", "push"})


def _channels(ctx: CheckContext, tm: Symbol, names: list[str]) -> dict[str, str]:
    """{new parameter: what the target does with it} for those the target's own implementation (the
    method, or a sibling method of its class taking a parameter of that name, as vLLM's
    `DPCoordinatorProc.run_coordinator` hands `zmq_addr_pipe` to `process_input_socket`, which sends
    the bound addresses on it) acts on: calls `.send()`/`.put()`/`.close()`-like methods of it or
    sets attributes on it. Ignoring such a parameter is not keeping the baseline's behaviour: vLLM's
    caller waits for what the implementation was to send (DPCoordinator raises after 30 s)."""
    wanted = set(names)
    found: dict[str, str] = {}
    owner = ctx.target.lookup(tm.dotted.rsplit(".", 1)[0])
    methods: list[tuple[str, Any]] = [(tm.dotted.rsplit(".", 1)[-1], tm.as_function)]
    if owner is not None and owner.kind == "class":
        methods += [(n, m) for n, m in owner.as_class.methods.items() if n != methods[0][0]]
    for mname, fn in methods:
        beh = fn.behaviour
        reads, sets = beh.param_reads, beh.param_sets
        for name in wanted - set(found):
            acts = sorted(set(reads.get(name) or ()) & _EFFECTS, key=lambda a: (a == "close", a))
            if acts:
                found[name] = f"`{mname}` calls `{name}.{acts[0]}()`"
            elif sets.get(name):
                found[name] = f"`{mname}` sets `{name}.{sorted(sets[name])[0]}`"
    return found


def new_parameters_fix(ctx: CheckContext, *, where: Location, label: str, tm: Symbol, bm: Symbol | None,
                       missing: list[Param], fallback: Fix, sig: list[list[Any]] | None = None) -> Fix:
    """add_parameters for `missing` (the target's new parameters the override lacks), tiered as
    the module docstring says; `fallback` (manual) when no edit can be written."""
    tparams = tm.as_function.params
    tnames = [p.name for p in tparams]
    base = f"{tm.dotted.rsplit('.', 2)[-2]}.{tm.dotted.rsplit('.', 1)[-1]}"
    specs: list[list[Any]] = []
    shown = []
    for p in missing:
        if p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            return fallback
        default = None if p.required else p.default
        if default is not None and not _literal(default):
            return fallback  # vLLM's default names something of vLLM's: the consumer writes it by hand
        i = tnames.index(p.name)
        after = tnames[i - 1] if i > 0 else None
        specs.append([p.name, default, after] + ([p.annotation] if p.annotation else []))
        shown.append(f"`{p.name}{'=' + default if default is not None else ''}`"
                     + (f" after `{after}`" if after and after not in ("self", "cls") else ""))
    fwd = _forward_call(ctx, where, label, tm, bm)
    forward = None
    if fwd is not None and not fwd.rec.get("star_kwargs"):
        # the forward call must leave the new slot free: positional arguments at or past it are
        # named first (DRIFT013's keywordize_arguments), which needs the baseline's names there
        own_t = [p for p in _own(tparams) if p.kind in _POS]
        bparams = _own(bm.as_function.params) if bm is not None else []
        own_b = [p for p in bparams if p.kind in _POS]
        taken = fwd.rec["positional"] - (0 if fwd.rec["callee_src"].startswith("super") else 1)
        keywordable = {p.name for p in _own(tparams) if p.kind in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
        for p in missing:
            k = next((j for j, q in enumerate(own_t) if q.name == p.name), None)
            if k is None or taken <= k:
                continue
            if taken > len(own_b) or not all(q.name in keywordable and q.kind != "POSITIONAL_ONLY"
                                             for q in own_b[k:taken]):
                return fallback
        forward = fwd.rec["callee_src"].rsplit(".", 1)[-1]
    required = any(p.required for p in missing)
    args = {"function": label.rsplit(".", 1)[-1], "params": specs, "forward": forward}
    channels = {} if forward is not None else _channels(ctx, tm, [p.name for p in missing])
    if channels:
        # taken and ignored, a channel the target's implementation acts on leaves vLLM's caller waiting
        acts = "; ".join(channels[n] for n in sorted(channels))
        text = (f"add {', '.join(shown)} to `{label}`'s parameters, as `{base}` declares "
                f"{'them' if len(missing) > 1 else 'it'}, and do what the target does with "
                f"{'them' if len(channels) > 1 else 'it'} ({acts}): vLLM's caller relies on that")
        return Fix(text, codemod="add_parameters", args=args, tier=UNSAFE)
    names = ", ".join(f"`{p.name}={p.name}`" for p in missing)
    if forward is not None:
        text = (f"add {', '.join(shown)} to `{label}`'s parameters, as `{base}` declares "
                f"{'them' if len(missing) > 1 else 'it'}, and pass {names} on to `{fwd.rec['callee_src']}(...)`")
        return Fix(text, codemod="add_parameters", args=args, tier=UNSAFE if required else SAFE)
    if not required and _appended(sig, specs):
        it = 'them' if len(missing) > 1 else 'it'
        text = (f"add {', '.join(shown)} to `{label}`'s parameters, last, as `{base}` declares {it}, and leave "
                f"{it} unread: the override keeps its baseline behaviour whatever vLLM passes (written only where "
                f"the body reads no name of {'those names' if len(missing) > 1 else 'that name'} already; check the "
                f"override should not honour the value)")
        return Fix(text, codemod="add_parameters", args=args, tier=SAFE)
    if not required and _as_declared(sig, specs, tparams) and not _own_positional_calls(ctx, label, sig, specs):
        it = 'them' if len(missing) > 1 else 'it'
        text = (f"add {', '.join(shown)} to `{label}`'s parameters, where `{base}` declares {it}, and leave {it} "
                f"unread: the override's positional parameters are then the target's own, so every call vLLM makes "
                f"binds as it binds `{base}`'s, and the override keeps its baseline behaviour (no call of the "
                f"consumer's own passes that slot positionally; in a vLLM-version branch for a range consumer, whose "
                f"baseline still calls it positionally without {it})")
        return Fix(text, codemod="add_parameters", args={**args, "mid_signature": True}, tier=SAFE)
    text = (f"add {', '.join(shown)} to `{label}`'s parameters, as `{base}` declares "
            f"{'them' if len(missing) > 1 else 'it'} (drift sees no call in the override that hands "
            f"{'them' if len(missing) > 1 else 'it'} to `{base}`: check it should not use the value vLLM passes)")
    return Fix(text, codemod="add_parameters", args=args, tier=UNSAFE)
