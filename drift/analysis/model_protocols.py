"""What the object a target function declares as a bare `torch.nn.Module` answers: the target's
protocols of torch modules.

vLLM's model loader declares `get_model(...) -> nn.Module` (and `BaseModelLoader.load_model`
likewise), and drift never reads torch: a runner's `self.model = get_model(...)` was unknown, so
`self.model.compute_logits(hidden_states, None)` was never held to anything. Yet what the loader
returns is not any module: every model vLLM loads implements the protocols vLLM writes for them
(`interfaces_base.VllmModel`: `forward`; `VllmModelForTextGeneration`: `compute_logits`), and vLLM
0.11 dropped `sampling_metadata` from that protocol and from every model together. So a member
read off such an object is the member of the one target `typing.Protocol` that declares it, among
the protocols of models: those whose MRO declares `__init__` (how vLLM builds the object) and
`forward` (how it calls it), as `VllmModel` does; a protocol of one capability (`SupportsPP`'s
`forward(*, intermediate_tensors)`, an attention layer's) is not the loaded object's whole
contract. Where none or several declare the member, it stays unknown, as before. Only a value a
target function *returns* is typed this way: a parameter annotated `nn.Module` (a quant method's
`layer`) is any layer at all.
"""

from __future__ import annotations

from typing import Any, Iterable

from drift.analysis.torch_module import is_module_base
from drift.model.index import PackageIndex, Symbol, word

_PROTOCOL_HEADS = ("Protocol", "typing.Protocol", "typing_extensions.Protocol")


def returns_torch_module(index: PackageIndex, fn: Symbol) -> bool:
    """Whether a target function or method declares it returns a bare `torch.nn.Module`."""
    text = (fn.as_function.returns or "").strip().strip("'\"")
    if not text or "[" in text or "|" in text:
        return False
    return is_module_base(index.dotted_in(fn.module, text))


def is_protocol(index: PackageIndex, cls: Symbol) -> bool:
    """A protocol class names `Protocol` among its own bases (PEP 544); a class that merely
    implements protocols inherits them without being one."""
    return any(b.split("[", 1)[0].strip() in _PROTOCOL_HEADS
               or index.dotted_in(cls.module, b.split("[", 1)[0].strip()) in _PROTOCOL_HEADS
               for b in cls.as_class.bases)


def _declared(index: PackageIndex, modules: Iterable[str]) -> dict[str, list[str]]:
    """member name -> the dotted methods declaring it in the target's protocols of models."""
    out: dict[str, list[str]] = {}
    for cls in index.iter_classes(modules):
        mro = index.mro(cls)
        if not is_protocol(index, cls) or not any("forward" in o.as_class.methods for o in mro) \
                or not any("__init__" in o.as_class.methods for o in mro):
            continue
        for name in cls.as_class.methods:
            out.setdefault(name, []).append(f"{cls.dotted}.{name}")
    return out


def protocol_member(index: PackageIndex, name: str) -> Symbol | None:
    """The method `name` as the one protocol of models that declares it declares it, or None."""
    declared: Any = index.query("model_protocols.v3", name, needle=word(name), build=_declared, default=[])
    found = sorted(set(declared or ()))
    if len(found) != 1:
        return None
    sym = index.lookup(found[0])
    return sym if sym is not None and sym.kind == "method" else None
