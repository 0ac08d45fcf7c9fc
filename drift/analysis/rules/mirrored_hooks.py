"""A consumer class that mirrors one of the target's implementations misses a hook that implementation
now declares.

Plugins write their own version of a vLLM implementation (`MacaFlashAttentionBackend` beside vLLM's
`FlashAttentionBackend`, both implementing `AttentionBackend`). When the target adds a hook to the
shared base with a conservative default (`supports_batch_invariance() -> False`) and its own
implementation overrides it (vLLM's flash backend returns True), the target's code starts asking
the hook (and rejects a backend answering the default in that mode): the plugin's copy, written
against the baseline, keeps the base's default where the implementation it mirrors declares
otherwise. Nothing fails to import or bind.

Which target class a consumer class mirrors is read from its name: the target's classes named by
the consumer class's own name or a suffix of it of two words or more (`FlashAttentionBackend` in
`MacaFlashAttentionBackend`), that share a base with it and are not in its own chain (a subclass of
vLLM's implementation inherits the override). The hook: a public method the target's shared base
defines and the baseline's did not, declared `-> bool` (a capability the class declares, not a
no-op behaviour hook such as a connector's `on_new_request`), that the mirrored class defines itself
and the consumer's class (and its consumer bases) does not. Risky: the default may be right for the consumer's class.
"""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _consumer_classes, _consumer_defines, _module_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z0-9]+|[A-Z]+")


def mirrored_names(name: str) -> list[str]:
    """`MacaFlashAttentionBackend` -> ["MacaFlashAttentionBackend", "FlashAttentionBackend",
    "AttentionBackend"]: the name and each suffix of two words or more, longest first."""
    words = _WORDS.findall(name)
    if "".join(words) != name:
        return [name]
    return ["".join(words[i:]) for i in range(max(1, len(words) - 1))]


def _chain(index: PackageIndex, bases: list[Symbol]) -> list[Symbol]:
    out: list[Symbol] = []
    for base in bases:
        for owner in index.mro(base):
            if all(o.dotted != owner.dotted for o in out):
                out.append(owner)
    return out


def _twins(index: PackageIndex, name: str, chain: list[Symbol]) -> list[tuple[Symbol, list[Symbol]]]:
    """(target class the consumer class mirrors by name, its chain) for classes sharing a base with
    the consumer's and not in its chain."""
    own = {o.dotted for o in chain}
    out = []
    for candidate in mirrored_names(name):
        for sym in index.definitions_of(candidate, kinds=("class",)):
            if sym.dotted in own:
                continue
            mro = index.mro(sym)
            if any(o.dotted in own for o in mro[1:]):
                out.append((sym, mro))
        if out:
            return out  # the longest name that names a target class is the one mirrored
    return out


@rule("DRIFT092", RuleKind.HOOK_NOT_DECLARED, Severity.RISKY)
def mirrored_hook_missing(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer class named after one of the target's implementations of a shared base (its name
    or a suffix of it), not inheriting from that implementation, where the target's shared base
    gained a public `-> bool` method (absent from the baseline's base) that the implementation overrides and
    the consumer's class does not: the consumer's class keeps the base's default where the class it
    mirrors declares otherwise."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, _bb in _consumer_classes(ctx):
        if not tb:
            continue
        chain = _chain(ctx.target, tb)
        twins = _twins(ctx.target, ref.rsplit(".", 1)[-1], chain)
        if not twins:
            continue
        own = _consumer_defines(ctx, ref)
        for twin, mro in twins:
            hooks = [(name, base) for name, base in _new_hooks(ctx, chain, twin, mro) if name not in own]
            if hooks:
                yield _finding(ctx, ref, cls, hooks, twin)
                break  # one mirrored class is enough to say it


def _new_hooks(ctx: CheckContext, chain: list[Symbol], twin: Symbol, mro: list[Symbol]) -> list[tuple[str, Symbol]]:
    """(method, the shared base defining it) for each public method `twin` defines that a class of
    the consumer's chain, also in the twin's, defines in the target and not in the baseline."""
    out = []
    for name in sorted(twin.as_class.methods):
        if name.startswith("_"):
            continue
        base = next((o for o in chain if name in o.as_class.methods), None)
        if base is None or all(o.dotted != base.dotted for o in mro[1:]):
            continue  # the consumer's class does not get it from a base the twin overrides
        if (base.as_class.methods[name].returns or "").strip().strip("'\"") != "bool":
            continue  # a capability the class declares (`-> bool`), not a no-op behaviour hook
        old = ctx.baseline.lookup(base.dotted)
        if old is None or old.kind != "class" or any(name in o.as_class.methods for o in ctx.baseline.mro(old)):
            continue  # not new on the base: the consumer's class was written knowing it
        out.append((name, base))
    return out


def _finding(ctx: CheckContext, ref: str, cls: dict, hooks: list[tuple[str, Symbol]], twin: Symbol) -> Finding:
    mod = _module_of(ctx, cls)
    short, twin_short = ref.rsplit(".", 1)[-1], twin.dotted.rsplit(".", 1)[-1]
    names = ", ".join(f"`{b.dotted.rsplit('.', 1)[-1]}.{n}`" for n, b in hooks)
    evidence = []
    for name, base in hooks[:3]:
        evidence.append(Location(base.path, base.as_class.methods[name].line or base.line, symbol=f"{base.dotted}.{name}"))
        evidence.append(Location(twin.path, twin.as_class.methods[name].line or twin.line, symbol=f"{twin.dotted}.{name}"))
    first, base = hooks[0]
    return Finding(
        rule_id="DRIFT092", kind=RuleKind.HOOK_NOT_DECLARED, severity=Severity.RISKY,
        title=f"`{short}` keeps the default of {names}, new in the target, which the target's own "
              f"`{twin_short}` (the class it mirrors) overrides",
        consumer_site=Location(mod.get("path") or "?", cls.get("line") or 1),
        target_evidence=tuple(evidence),
        baseline_evidence=(),
        predicted_failure=None,
        fix=Fix(f"define {', '.join(f'`{n}`' for n, _b in hooks)} in `{short}` as its behaviour warrants (the "
                f"target's `{twin_short}` shows what the target expects of such a class)",
                manual_reason="whether the consumer's class has the capability is the consumer's knowledge"),
        symbol=f"{base.dotted}.{first}",
        details="absent from the baseline's base class; the target asks it of every such class",
    )


RULES = [mirrored_hook_missing]
