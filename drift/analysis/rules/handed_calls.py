"""DRIFT119: a method of a class the consumer hands the target no longer takes what the target passes.

A class registered with vLLM (`ModelRegistry.register_model(name, Cls)`, a `"pkg.mod:Cls"`
string, a class passed to any target call) is built by vLLM, which then calls methods on the
object it holds (`self.model.compute_logits(hidden_states)` in the model runner). Where the class
extends no target class that declares the method (it subclasses `nn.Module` and interface mixins
only, and the method belongs to a structural protocol), no override check compares it with
anything: DRIFT070 needs a declaration. The evidence is the target's own call sites instead:
every `.name(...)` on an object the target holds or a local (never on `self` or `super()`,
which are the calling class's own objects, nor inside a method of the same name, a composite
handing the call on to its part).

Reported when each such call of the baseline binds to the consumer's method (it worked there,
whichever of them reached it) and no such call of the target does (the calling convention
changed everywhere: a parameter the target no longer passes, a keyword it now passes). Risky:
the receiver of those calls is not proven to be the consumer's object, only the only kind of
object the calls could all have fitted before. A method with `*args`/`**kwargs` swallowing the
difference binds and is left alone.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.callers import RECEIVER
from drift.analysis.rules.handed import _handed
from drift.analysis.rules.reach import _lookup_method, _module_of, _sig, _site_failure, _sites_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex


def _held_calls(index: PackageIndex, name: str) -> list[list[Any]]:
    """The calls `.name(...)` of `index` on anything but `self`/`super()`, with no `*`/`**` at the
    call (whose binding cannot be told), and not inside a method of the same name: that is a
    composite handing the call on to a part it holds (`def compute_logits(self, h): return
    self.language_model.compute_logits(h)`), which says how the part is called, not how the
    target calls the object it built from the consumer's class."""
    return [s for s in _sites_of(index, name, None) or []
            if not s[4] and (s[RECEIVER] if len(s) > RECEIVER else None) not in ("self", "super")
            and s[6] != name]


@rule("DRIFT119", RuleKind.OVERRIDE_INCOMPATIBLE, Severity.RISKY)
def handed_method_calls(ctx: CheckContext) -> Iterator[Finding]:
    """A method of a consumer class the target builds (registered, or named to it) that no target
    base of the class declares, where every call of `.name(...)` the baseline made on a held
    object binds to it and none the target makes does: TypeError when the target calls it."""
    if ctx.baseline is None or ctx.baseline_paths is None:
        return
    for ref, cls in _handed(ctx):
        tb, bb = ctx.target_paths.target_bases(ref), ctx.baseline_paths.target_bases(ref)
        mod = _module_of(ctx, cls)
        for name, m in sorted((cls.get("methods") or {}).items()):
            if name.startswith("__") or _lookup_method(ctx.target, tb, name) is not None \
                    or _lookup_method(ctx.baseline, bb, name) is not None:
                continue  # a declared override: DRIFT070 compares it with the declaration
            sig, label = _sig(m), f"{cls['qual']}.{name}"
            before, after = _held_calls(ctx.baseline, name), _held_calls(ctx.target, name)
            if not before or not after or any(_site_failure(label, sig, s) for s in before):
                continue
            failures = [(s, _site_failure(label, sig, s)) for s in after]
            if any(f is None for _s, f in failures):
                continue
            site, failure = failures[0]
            yield Finding(
                rule_id="DRIFT119", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
                title=f"`{label}` (of a class the target builds) does not take how the target now calls "
                      f"`.{name}()`: {len(after)} of its calls, none of which binds",
                consumer_site=Location(mod["path"], m["line"], symbol=f"{ref}.{name}", col=(m.get("col") or 0) + 1),
                target_evidence=(Location(site[0], site[1], symbol=f".{name}"),),
                baseline_evidence=(Location(before[0][0], before[0][1], symbol=f".{name}"),),
                predicted_failure=failure,
                details=f"the target's calls of `.{name}(...)` on held objects: "
                        + ", ".join(f"{s[0]}:{s[1]}" for s, _f in failures[:3]),
                fix=Fix(f"take the arguments the target's calls of `.{name}()` pass",
                        manual_reason="which parameters the method still needs comes from its own logic"),
                symbol=f"{ref}.{name}",
            )


RULES = [handed_method_calls]
