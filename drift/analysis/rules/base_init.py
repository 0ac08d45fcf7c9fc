"""A consumer subclass that never runs its target base's `__init__`, meeting new reads of that state.

A plugin that replaces a vLLM object (`class ElasticBlockPool(BlockPool)`) often writes its own
`__init__` and sets only what it needs, never calling `super().__init__`. That holds while vLLM
reads nothing else from the object. When the target's code starts reading an attribute the base
`__init__` sets (`block_pool.hash_block_size` in the cache managers) that the baseline's code did
not read from outside, the replacement object fails there with AttributeError.

Which reads are "on this class" is answered from the target's sources by name: `<receiver>.x`
where the receiver is named after the class (`block_pool` for `BlockPool`, `model_runner` for
`GPUModelRunner`), vLLM's own convention. The search is demand-driven (only modules whose text
holds the attribute are looked at; `PackageIndex.source_search`): facts that came whole from the
store are searched in the release's files (tree or pack) when they are on this machine; a host's
reply has no sources, so the rule says nothing there rather than guess.
"""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.torch_module import module_based as _module_based
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Needle, PackageIndex, Symbol
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _consumer_defines, _module_of
from drift.analysis.rules.replaced_init import installed_inits, replaced_names, self_calls_of, site_of_init, stored_names


def receiver_names(cls_name: str) -> list[str]:
    """`BlockPool` -> ["block_pool"]; `GPUModelRunner` -> ["gpu_model_runner", "model_runner"]
    (a leading qualifier may be dropped, never down to one word)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", cls_name).lower()
    parts = snake.split("_")
    return ["_".join(parts[i:]) for i in range(len(parts) - 1)] or [snake]


# vLLM's model classes (`DeepseekV2ForCausalLM`): its loader calls `model.load_weights(...)` on them
_MODEL_SUFFIXES = ("ForCausalLM", "ForConditionalGeneration", "LMHeadModel", "ForSequenceClassification")


def _reads(index: PackageIndex, cls: Symbol, attr: str, *, call: bool = False,
           short: bool = True) -> list[str] | None:
    """Modules of `index` that read `<receiver named after cls>.attr` (not an assignment), or
    call `<receiver>.attr(...)` (`call`), or None when the sources are not at hand. A call's
    receiver may be the class's last word alone (`impl.m(...)` for `MLACommonImpl`) unless
    `short` is false: the method's name is then evidence enough that the object is this kind. A
    model class (`DeepseekV2ForCausalLM`) is also `model` for a call, as vLLM's loader names it
    (`model.load_weights(...)`); attributes read on a `model` may be another interface's."""
    names = receiver_names(cls.dotted.rsplit(".", 1)[-1])
    if call and short and "_" in names[-1]:  # a call names the method too: the class's last word is receiver enough
        names.append(names[-1].rsplit("_", 1)[-1])
    if call and cls.dotted.endswith(_MODEL_SUFFIXES):  # the loader calls the model it holds `model`
        names.append("model")
    tail = rb"\s*\(" if call else rb"(?![A-Za-z0-9_])(?!\s*=[^=])"
    pattern = rb"(?<![A-Za-z0-9_])(?:%s)\.%s%s" % (
        b"|".join(re.escape(n.encode()) for n in names), re.escape(attr.encode()), tail)
    needle = Needle(attr.encode(), re.compile(pattern))
    if not index.has_sources:
        return None  # a host's reply: no sources here, and no answer to remember
    return index.memo("receiver-calls.2" if call else "receiver-reads.2",  # .2: a pack-only release is searched too
                      f"{'|'.join(names)}.{attr}",
                      lambda: index.source_search(needle))


def _init_state(index: PackageIndex, cls: Symbol) -> dict[str, tuple[Symbol, int]]:
    """Attributes the class's `__init__` chain sets on `self` -> (class, line), minus those
    that also exist at class level (an instance without them still finds those). A bare
    annotation (`renderer: BaseRenderer` in a protocol or base) declares, it creates no class
    attribute: only a field with a value does."""
    nodes = [(owner, owner.as_class) for owner in index.mro(cls)]
    class_level: set[str] = set()
    for _owner, node in nodes:
        class_level |= set(node.methods) | set(node.attrs) | set(node.nested)
        class_level |= {fl.name for fl in node.fields if fl.has_default}
    out: dict[str, tuple[Symbol, int]] = {}
    for owner, node in nodes:
        for name, ia in node.instance_attrs.items():
            if ia.method == "__init__" and name not in class_level and name not in out:
                out[name] = (owner, ia.line or owner.line)
    return out


@rule("DRIFT075", RuleKind.ATTRIBUTE_MISSING)
def base_init_skipped(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer subclass whose `__init__` never calls its target base's `__init__`, where the
    target's code now reads (on objects named after that base) an attribute the base `__init__`
    sets and the consumer does not, and the baseline's code read no such attribute from outside.
    A call of a saved original (`_orig_init = Base.__init__`, then `self._orig_init(...)` or
    `_orig(self, ...)`) runs the base `__init__` (the probe's `init_calls_base`). An `__init__`
    that hands on only by `super(Base, self).__init__(...)` skips Base's own (Python looks after
    Base in the MRO), and one that calls only `nn.Module.__init__(self)` (a class outside the
    target and the consumer) runs none of the target's. Both are risky: such a subclass bypasses
    the base's set-up on purpose and redoes it, and which inherited methods still run on it is
    its design.
    The base's own methods count too: one the subclass inherits (does not override) and that
    runs on its objects (the consumer calls it on `self`, the target calls it on an object
    named after the base, or such a method calls it on `self`; `forward` of a class built on
    `torch.nn.Module`, which every call of the layer runs) and now reads `self.x` that only the
    skipped `__init__` sets, where the baseline's inherited methods did not read it. Where the
    target reaches the reader only through a receiver named with the class's last word alone
    (`self.impl.m(...)`), the finding is risky: that receiver may hold another implementation.
    The same question is asked of a consumer function installed as a target class's `__init__`
    (`Cls.__init__ = new_init`) that runs no original `__init__`: the class's own methods the
    consumer leaves in place play the inherited ones (drift/analysis/rules/replaced_init.py).
    A dataclass subclass's own `__post_init__` that never hands on to its base's, where the
    target's base gained one the baseline's lacked, is risky: the generated `__init__` runs only the
    subclass's, so what the base's new one fills in is never done.
    """
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        ran = _named_inits_ran(ctx, cls)
        if cls.get("init_calls_base") is not False and ran is None:
            continue
        ran_classes, ran_state = ran or (set(), set())
        # `super(Base, self).__init__` or only `nn.Module.__init__(self)`: the base's own set-up is
        # bypassed on purpose and redone by the subclass, so what it still lacks is likely, not certain
        rebuilt = ran is not None and (not ran_classes or bool(cls.get("init_super_from")))
        skip = _consumer_defines(ctx, ref)
        own = skip | set(cls.get("self_attrs") or {}) | ran_state
        site = _Site(ctx, ref, cls)
        for base in tb:
            if base.dotted in ran_classes:
                continue  # its `__init__` is the one called by name
            bbase = ctx.baseline.lookup(base.dotted)
            if bbase is None or bbase.kind != "class":
                continue
            state = {n: v for n, v in _init_state(ctx.target, base).items() if n not in own and not n.startswith("__")}
            for name, (owner, line) in sorted(state.items()):  # read from outside, on objects named after the base
                now = _reads(ctx.target, base, name)
                before = _reads(ctx.baseline, bbase, name)
                if not now or before is None or before:
                    continue
                del state[name]
                yield site.finding(
                    base, name, "the target now reads `{name}` on these objects".format(name=name),
                    (Location(owner.path, line, symbol=f"{owner.dotted}.{name}"),)
                    + tuple(Location(ModuleFacts(ctx.target.modules[m]).path or m, 1, symbol=m) for m in now[:3]),
                    symbol=f"{base.dotted}.{name}", details=f"read in {', '.join(now[:3])}", bypassed=rebuilt)
            if not state:
                continue
            weak: set[str] = set()
            now = _live_reads(ctx.target, base, skip, site.calls, set(state), weak, site.handed)  # read by inherited methods
            before = _live_reads(ctx.baseline, bbase, skip, site.calls, set(now)) if now else {}
            for name in sorted(set(now) - set(before)):  # the baseline's inherited code did not read it
                owner, line = state[name]
                method, mowner, mline = now[name]
                yield site.finding(
                    base, name, f"the inherited `{mowner.dotted.rsplit('.', 1)[-1]}.{method}` now reads it",
                    (Location(mowner.path, mline, symbol=f"{mowner.dotted}.{method}"),
                     Location(owner.path, line, symbol=f"{owner.dotted}.{name}")),
                    symbol=f"{owner.dotted}.{name}",
                    details=f"`{method}` is inherited, not overridden, and runs on `{site.short}` objects" + (
                        f"; the target calls its way to it only on a receiver named `"
                        f"{receiver_names(base.dotted.rsplit('.', 1)[-1])[-1].rsplit('_', 1)[-1]}`, which may hold "
                        "another kind of object" if name in weak else "") + (
                        "; the subclass bypasses the base's `__init__` by name and builds that state itself, "
                        "so which inherited methods still run on it is its own design" if rebuilt else ""),
                    likely=name in weak or rebuilt, bypassed=rebuilt)
    yield from _replaced_inits(ctx)
    yield from _skipped_post_inits(ctx)


def _post_init_of(index: PackageIndex, cls: Symbol) -> tuple[Symbol, int] | None:
    """The class of `cls`'s MRO whose `__post_init__` a dataclass's generated `__init__` runs,
    with the method's line; None when no class of it defines one."""
    for owner in index.mro(cls):
        m = owner.as_class.methods.get("__post_init__")
        if m is not None:
            return owner, m.line or owner.line
    return None


def _skipped_post_inits(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer dataclass subclass whose own `__post_init__` never hands on to its base's,
    where the target's base chain newly defines one (the baseline's had none, so nothing was
    skipped there): the dataclass `__init__` runs only the subclass's, and what the base's new
    `__post_init__` fills in (a field derived from another, `head_size_v` from `head_size`) is never
    done. Risky: what that method does (a derived field, a validation) is the target's to read."""
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        if cls.get("post_init_calls_base") is not False:
            continue
        m = (cls.get("methods") or {}).get("__post_init__") or {}
        for base in tb:
            found = _post_init_of(ctx.target, base)
            bbase = ctx.baseline.lookup(base.dotted) if ctx.baseline is not None else None
            if found is None or bbase is None or bbase.kind != "class" or _post_init_of(ctx.baseline, bbase):
                continue
            owner, line = found
            short, oshort = cls.get("qual") or ref, owner.dotted.rsplit(".", 1)[-1]
            yield Finding(
                rule_id="DRIFT075", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
                title=f"`{short}.__post_init__` never calls `{oshort}.__post_init__`, new in the target: what it "
                      f"sets up on the object is never done",
                consumer_site=Location(_module_of(ctx, cls).get("path") or "?", m.get("line") or cls.get("line") or 1,
                                       col=(m.get("col") or 0) + 1),
                target_evidence=(Location(owner.path, line, symbol=f"{owner.dotted}.__post_init__"),),
                predicted_failure=None,
                fix=Fix(f"call `super().__post_init__()` in `{short}.__post_init__`",
                        manual_reason="where in the subclass's own set-up the base's must run is the consumer's to judge"),
                symbol=f"{owner.dotted}.__post_init__",
                details=f"the baseline's `{bbase.dotted.rsplit('.', 1)[-1]}` had no `__post_init__`; a dataclass's "
                        "generated `__init__` calls only the most derived one",
            )
            break


def _named_inits_ran(ctx: CheckContext, cls: dict) -> tuple[set[str], set[str]] | None:
    """For an `__init__` that hands on only by `Base.__init__(self, ...)` calls (the probe's
    `init_calls`): the target classes whose `__init__` it calls and what their `__init__` chains
    set; the classes between the subclass and those never run theirs (`FusedMoEMethodBase.__init__`
    called from a subclass of `Fp8MoEMethod` skips `Fp8MoEMethod.__init__`). Where every call names
    a class outside the target and the consumer (`nn.Module.__init__(self)`), no target `__init__`
    runs at all. For one that hands on only by `super(Base, self).__init__(...)` (the probe's
    `init_super_from`), the classes after Base in its MRO run theirs and Base's own is skipped
    (`super(GateLinear, self).__init__` skips `GateLinear.__init__`). None when the record has no
    such calls or one may reach a class drift cannot place."""
    above = cls.get("init_super_from")
    if above:
        return _inits_after(ctx, above)
    calls = cls.get("init_calls")
    if not calls:
        return None
    classes: set[str] = set()
    state: set[str] = set()
    for path in calls:
        v = ctx.target_paths.value(tuple(path))
        if v.kind == "class" and v.sym is not None:
            classes |= {c.dotted for c in ctx.target.mro(v.sym)}
            state |= set(_init_state(ctx.target, v.sym))
    if not classes and all(_outside(ctx, path) for path in calls):
        return set(), set()
    return (classes, state) if classes else None


def _inits_after(ctx: CheckContext, above: list) -> tuple[set[str], set[str]] | None:
    """The target classes whose `__init__` a `super(X, self).__init__(...)` runs (X's MRO after
    X) and what they set; None when an X is not a target class."""
    classes: set[str] = set()
    state: set[str] = set()
    for path in above:
        v = ctx.target_paths.value(tuple(path))
        if v.kind != "class" or v.sym is None:
            return None
        for after in ctx.target.mro(v.sym)[1:]:
            classes.add(after.dotted)
            state |= set(_init_state(ctx.target, after))
    return classes, state


def _outside(ctx: CheckContext, path) -> bool:
    """Whether a path names a module of neither the target nor the consumer (`torch.nn.Module`):
    its `__init__` sets none of the target's state."""
    root = str(path[0]) if path else ""
    if not root.startswith("sym:"):
        return False
    top = root[4:].split(".", 1)[0]
    own = {str(m.get("module") or "").split(".", 1)[0] for m in ctx.usage}
    return bool(top) and top != ctx.target_package and top not in own


def _replaced_inits(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer function installed as a target class's `__init__` that never runs the
    original, where the class's methods the consumer left in place (and that run: called by the
    consumer on these objects, by the target on an object named after the class, or by such a
    method) now read `self.x` that only the target's `__init__` chain sets, and the baseline's
    did not read it. A name the consumer stores anywhere is never reported."""
    stored = stored_names(ctx)
    for mod, patch, tcls, bcls in installed_inits(ctx):
        skip = replaced_names(ctx, tcls) | {"__init__"}
        state = {n: v for n, v in _init_state(ctx.target, tcls).items() if n not in stored and not n.startswith("__")}
        if not state:
            continue
        calls = self_calls_of(mod)
        now = _live_reads(ctx.target, tcls, skip, calls, set(state))
        before = _live_reads(ctx.baseline, bcls, skip, calls, set(now)) if now else {}
        fn = (patch.get("value") or {}).get("function") or "?"
        short = tcls.dotted.rsplit(".", 1)[-1]
        for name in sorted(set(now) - set(before)):
            owner, line = state[name]
            method, mowner, mline = now[name]
            site = site_of_init(mod, patch)
            yield Finding(
                rule_id="DRIFT075", kind=RuleKind.ATTRIBUTE_MISSING,
                severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
                title=f"`{fn}` replaces `{short}.__init__` and never sets `{name}`, which the target's "
                      f"`__init__` now sets; `{mowner.dotted.rsplit('.', 1)[-1]}.{method}` reads it",
                consumer_site=site,
                target_evidence=(Location(mowner.path, mline, symbol=f"{mowner.dotted}.{method}"),
                                 Location(owner.path, line, symbol=f"{owner.dotted}.{name}")),
                baseline_evidence=(),
                predicted_failure=f"AttributeError: '{short}' object has no attribute '{name}'",
                fix=Fix(f"set `self.{name}` in `{fn}` as the target's `__init__` does",
                        manual_reason="the value must match what the target's `__init__` computes"),
                symbol=f"{owner.dotted}.{name}",
                details=f"`{method}` is the target's own, not replaced, and runs on objects `{fn}` builds")


class _Site:
    """One consumer class whose `__init__` skips the base's: where its findings point and what
    they say in common."""

    def __init__(self, ctx: CheckContext, ref: str, cls: dict):
        self.ctx, self.cls = ctx, cls
        self.mod = _module_of(ctx, cls)
        self.init = (cls.get("methods") or {}).get("__init__") or {}
        self.short = ref.rsplit(".", 1)[-1]
        self.calls = ctx.self_calls(ref)
        # a bound method it hands on (`{"weight_loader": self.weight_loader}`) likely runs later: who calls it
        # (and whether: `self.step_fn = a if cond else self.other`) is another object's code
        self.handed = frozenset(ctx.self_handed(ref) - self.calls)
        self.bypass = _bypass_line(ctx.module_ir(self.mod), self.mod, ref, cls.get("qual") or self.short)

    def finding(self, base: Symbol, name: str, how: str, evidence: tuple[Location, ...], *, symbol: str,
                details: str, likely: bool = False, bypassed: bool = False) -> Finding:
        """`bypassed`: the subclass steps past the base by a call of its own (`nn.Module.__init__(self)`,
        `super(Base, self).__init__()`): reported at that call, the statement to change."""
        short = self.short
        at = self.bypass if bypassed else None
        return Finding(
            rule_id="DRIFT075", kind=RuleKind.ATTRIBUTE_MISSING,
            severity=Severity.RISKY if self.ctx.dead_on_baseline(self.mod) or likely else Severity.BREAKING,
            title=f"`{short}.__init__` never calls `{base.dotted.rsplit('.', 1)[-1]}.__init__`, which sets "
                  f"`{name}`; {how}",
            consumer_site=Location(self.mod.get("path") or "?", at) if at is not None else
            Location(self.mod.get("path") or "?", self.init.get("line") or self.cls.get("line") or 1,
                     col=(self.init.get("col") or 0) + 1),
            target_evidence=evidence,
            baseline_evidence=(),
            predicted_failure=f"AttributeError: '{short}' object has no attribute '{name}'",
            fix=Fix(f"set `self.{name}` in `{short}.__init__` (or call the base `__init__`)",
                    manual_reason="the value must match what the target's base computes"),
            symbol=symbol,
            details=details,
        )


def _bypass_line(ir: dict, mod: dict, ref: str, qual: str) -> int | None:
    """The line of the first call in the class's `__init__` that runs some class's `__init__` by
    name on `self` (`nn.Module.__init__(self)`, the IR's calls) or through `super(Base, self)`
    (the usage calls): where the subclass steps past its base."""
    me = [f"var:{ref}.__init__:self"]
    lines = [row[3] for row in ir.get("call") or ()
             if len(row) > 3 and row[0] and str(row[0][-1]) == ".__init__" and row[1] and list(row[1][0]) == me
             and isinstance(row[3], int)]
    lines += [rec["line"] for rec in mod.get("calls") or ()
              if rec.get("function") == f"{qual}.__init__" and isinstance(rec.get("line"), int)
              and str(rec.get("callee_src") or "").startswith("super(") and str(rec["callee_src"]).endswith(".__init__")]
    return min(lines) if lines else None


def _live_reads(index: PackageIndex, base: Symbol, skip: set[str], own_calls: set[str],
                wanted: set[str], weak: set[str] | None = None,
                handed: frozenset[str] = frozenset()) -> dict[str, tuple[str, Symbol, int]]:
    """attr -> (method, its class, line) for each `self.attr` in `wanted` read by a method the
    consumer's class inherits from `base` (not overridden: `skip`) that runs on it: one the
    consumer calls on itself, one the target calls on an object named after `base`
    (`self.block_pool.cache_full_blocks(...)`, vLLM's convention), one that implements a method a
    class further up declares (the target calls it through that interface: `quant_method.create_weights`),
    or one such a method calls on `self`. Only the readers and
    their callers are looked up, so a base with hundreds of methods costs a few searches.
    `weak`, when given, receives the attributes whose reader runs only by a target call on a
    receiver named with the class's last word alone (`self.impl.m(...)` in some other model's
    layer), or only as a bound method the consumer hands on (`handed`: `{"weight_loader":
    self.weight_loader}`): the object may be another kind, or the callee may never call it, so
    what it shows is likely, not certain."""
    methods: dict[str, tuple[Symbol, FunctionFacts]] = {}
    interface: set[str] = set()  # implemented here, declared by a class further up: called through it
    if _module_based(index, base):
        interface.add("forward")  # `nn.Module.__call__` runs it: every `layer(x)` of the model calls it
    for owner in index.mro(base):
        for name, fn in owner.as_class.methods.items():
            if name in methods:
                interface.add(name)
            elif name not in skip and name != "__init__":
                methods[name] = (owner, fn)
    callers: dict[str, set[str]] = {}
    for name, (_owner, fn) in methods.items():
        for callee in fn.behaviour.self_calls:
            callers.setdefault(callee, set()).add(name)
    memo: dict[str, int] = {}

    def called(name: str) -> int:
        """2: the consumer, an interface or a receiver named after the class calls it; 1: only a
        receiver named with the class's last word; 0: nothing seen."""
        if name not in memo:
            if name in own_calls or name in interface:
                memo[name] = 2
            elif name.startswith("__"):
                memo[name] = 0
            elif _reads(index, base, name, call=True, short=False):
                memo[name] = 2
            else:
                memo[name] = 1 if name in handed or _reads(index, base, name, call=True) else 0
        return memo[name]

    def live(name: str) -> int:
        seen, todo, best = set(), [name], 0
        while todo:
            m = todo.pop()
            if m in seen:
                continue
            seen.add(m)
            best = max(best, called(m))
            if best == 2:
                return best
            todo.extend(callers.get(m, ()))
        return best

    out: dict[str, tuple[str, Symbol, int]] = {}
    for name in sorted(methods):
        owner, fn = methods[name]
        reads = fn.behaviour.self_reads
        hits = [a for a in reads if a in wanted and a not in out]
        level = live(name) if hits else 0
        if level:
            for attr in hits:
                lines = reads[attr]
                out[attr] = (name, owner, lines[0] if lines else fn.line or owner.line)
                if level == 1 and weak is not None:
                    weak.add(attr)
    return out


RULES = [base_init_skipped]
