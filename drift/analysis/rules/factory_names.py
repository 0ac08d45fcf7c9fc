"""A module-level value the baseline built with a factory call (`logger = init_logger(__name__)` in
vllm/utils), for a consumer that imported it from there and finds it gone.

Why: such a value is not a definition that moved (a `logger` bound in twenty other modules is twenty
other objects), so no new home can be named; but the baseline's own assignment shows how it was
made. The consumer can make it the same way: the factory imported from where the target defines
it, called with the baseline's arguments, `__name__` spelled out as the baseline module's name, so
the call is the very call the baseline made at import. The evidence is the probe's record of the
module's names (the assignment's text) and imports (where the factory comes from), and the
factory's record in both releases.

Tier: the call is the same, but calling a factory a second time may build a second object. It is
safe when the factory hands out a registry's entry keyed by its arguments, so the second call
returns the object the first one did: the factory's body calls the standard library's
`getLogger` (`logging.getLogger(name)`: "all calls with a given name return the same logger
instance"), in both releases. Otherwise unsafe: the consumer would hold its own object.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, Symbol

#: calls that return a process-wide registry's entry for their arguments (the same object each time)
_REGISTRY_LOOKUPS = frozenset({"getLogger"})


@dataclass(frozen=True)
class FactoryBuild:
    name: str  # the value's name (`logger`)
    module: str  # the baseline module that built it (`vllm.utils`)
    factory_module: str  # where the target defines the factory (`vllm.logger`)
    factory: str  # the factory's name (`init_logger`)
    call: str  # the consumer's call (`init_logger("vllm.utils")`)
    registry: bool  # the factory returns a registry entry: the call gives the baseline's very object
    line: int  # the baseline's assignment
    per_module: bool = False  # the call takes the module's `__name__`: each module's value is its own

    @property
    def edit(self) -> str:
        return f"import `{self.factory}` from `{self.factory_module}` and set `{self.name} = {self.call}`"


def _argument(node: ast.expr, text: str, module: str) -> str | None:
    """An argument's text in the consumer: `__name__` as the baseline module's name, a constant as
    written; None for anything else (a name of the baseline module means nothing in the consumer)."""
    if isinstance(node, ast.Name) and node.id == "__name__":
        return '"' + module + '"'
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return ast.get_source_segment(text, node)
    return None


def factory_build(baseline: PackageIndex | None, target: PackageIndex, base: Symbol | None) -> FactoryBuild | None:
    """How the consumer can build `base` (a module-level name of the baseline) itself, or None when
    the baseline's assignment is not a call of an imported function the target still defines with
    arguments that mean the same in the consumer."""
    if baseline is None or base is None or base.kind != "name":
        return None
    text = base.facts.get("value")
    if not isinstance(text, str):
        return None
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    raw = baseline.modules.get(base.module)
    if raw is None:
        return None
    imported = ModuleFacts(raw).imports.get(call.func.id)
    if imported is None or "." not in imported.target:
        return None
    factory_module, factory = imported.target.rsplit(".", 1)
    args = [_argument(a, text, base.module) for a in call.args]
    keywords = [(k.arg, _argument(k.value, text, base.module)) for k in call.keywords]
    if any(a is None for a in args) or any(k is None or v is None for k, v in keywords):
        return None
    then, now = baseline.lookup(imported.target), target.lookup(imported.target)
    if then is None or now is None or then.kind != "function" or now.kind != "function":
        return None
    if not now.as_function.same_params(then.as_function):
        return None  # the call the baseline made may not bind the same way in the target
    registry = all(bool(_REGISTRY_LOOKUPS & set(fn.as_function.behaviour.call_sites)) for fn in (then, now))
    shown = ", ".join([*(a for a in args if a), *(f"{k}={v}" for k, v in keywords)])
    per_module = any(isinstance(a, ast.Name) and a.id == "__name__" for a in [*call.args, *(k.value for k in call.keywords)])
    return FactoryBuild(name=base.dotted.rsplit(".", 1)[-1], module=base.module, factory_module=factory_module,
                        factory=factory, call=f"{factory}({shown})", registry=registry, line=base.line,
                        per_module=per_module)
