"""The target's calls of a module function made through an import inside the calling function.

Why: vLLM often imports a helper where it uses it (`from vllm.x.monitor import activate as
activate_monitor` inside a method) and calls it under that alias. A consumer that assigns its own
function over `vllm.x.monitor.activate` is what that call runs (the import reads the module's
attribute at call time), with the arguments the call passes; a search for `.activate(` finds none
of these calls. The probe records them under the dotted name the import resolves to
(`imported_calls`, facts +ic), so the replacement can be held to them.
"""

from __future__ import annotations

from typing import Any

from drift.model.index import PackageIndex, functions_in, word


def _sites(index: PackageIndex, modules=None) -> dict[str, list[list[Any]]]:
    """dotted -> [[path, line, positional count, keywords, star, class, function]]: every call of a
    name a lazy import inside a target function binds."""
    out: dict[str, list[list[Any]]] = {}
    for _mod_name, mod, owner, fn in functions_in(index, index.modules if modules is None else modules):
        for callee, sites in fn.behaviour.imported_calls.items():
            out.setdefault(callee, []).extend(
                [mod.path, site[0], site[1], site[2], len(site) > 3, owner, fn.name] for site in sites)
    return out


def lazy_call_sites(index: PackageIndex, dotted: str) -> list[list[Any]]:
    """The target's calls of module function `dotted` through a function-local import (aliased or
    not), in the call-site row shape DRIFT070 reads (`reach._site_failure`)."""
    name = dotted.rsplit(".", 1)[-1]
    return index.query("lazy_calls.v1", dotted, needle=word(name), build=_sites) or []
