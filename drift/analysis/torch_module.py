"""What an instance of `torch.nn.Module` answers for itself, so a target class built on it can
still be said to lack an attribute.

Why: most of vLLM's layers derive from `torch.nn.Module`, which drift never reads (torch is not
the target). Its `__getattr__` serves only what was registered on the instance: parameters,
buffers and submodules (`register_parameter` / `register_buffer` / `add_module`, or an
assignment of a Parameter or Module, which the class's own facts show as an attribute it sets).
So once the target's class and every base drift can read no longer set a name, the name is
missing unless nn.Module itself defines it (the names below, from torch's `Module`) or the
target registers it by string somewhere (`layer.register_parameter("weight", ...)` from a quant
method, `setattr(layer, "w", ...)`), which `registered_somewhere` looks for in the target's text.
"""

from __future__ import annotations

import re

from drift.model.index import Needle, PackageIndex, Symbol

MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})

# torch.nn.Module's own attributes and methods (torch 2.x), public and the private ones it sets
MODULE_NAMES = frozenset("""
training dump_patches call_super_init forward register_buffer register_parameter add_module register_module
get_submodule set_submodule get_parameter get_buffer get_extra_state set_extra_state apply cuda ipu xpu mtia cpu
type float double half bfloat16 to_empty to register_full_backward_pre_hook register_backward_hook
register_full_backward_hook register_forward_pre_hook register_forward_hook state_dict
register_state_dict_pre_hook register_state_dict_post_hook register_load_state_dict_pre_hook
register_load_state_dict_post_hook load_state_dict parameters named_parameters buffers named_buffers children
named_children modules named_modules train eval requires_grad_ zero_grad share_memory extra_repr compile
T_destination
""".split())
_MODULE_PRIVATE = re.compile(r"^_(parameters|buffers|modules|non_persistent_buffers_set|version|forward|backward|"
                             r"state_dict|load_state_dict|is_full_backward_hook|get_name|named_members|"
                             r"save_to_state_dict|load_from_state_dict|replicate_for_data_parallel|apply|"
                             r"call_impl|wrapped_call_impl|compiled_call_impl|slow_forward|get_backward_hooks|"
                             r"maybe_warn_non_full_backward_hook|register_)")


def is_module_base(dotted: str) -> bool:
    return dotted in MODULE_BASES


def module_based(index: PackageIndex, cls: Symbol) -> bool:
    """Whether a class of `cls`'s MRO names `torch.nn.Module` as a base (drift never reads torch)."""
    return any(is_module_base(index.dotted_in(o.module, b.split("[", 1)[0].strip()))
               for o in index.mro(cls) for b in o.as_class.bases)


def forward_of(index: PackageIndex, cls: Symbol) -> Symbol | None:
    """The `forward` a call of an instance of `cls` runs: `nn.Module.__call__` hands `layer(x)`
    on to it. None when `cls` is not built on nn.Module or a class of its MRO that drift reads
    writes its own `__call__` (then that is what runs)."""
    if not module_based(index, cls) or index.class_member(cls, "__call__") is not None:
        return None
    found = index.class_member(cls, "forward")
    return found if found is not None and found.kind == "method" else None


def module_defines(name: str) -> bool:
    """Whether torch's `nn.Module` itself has `name` (or may: its private machinery)."""
    return name in MODULE_NAMES or name.startswith("__") or bool(_MODULE_PRIVATE.match(name))


def registered_somewhere(index: PackageIndex, name: str) -> bool:
    """Whether the target's text names `name` as a string anywhere (`register_buffer("name", ...)`,
    `setattr(layer, "name", v)`, `getattr(self, "name")`) or stores it on some object
    (`layer.name = ...` in a helper that sets up layers it is handed): it may then be on the
    instance at run time. True (not provably absent) when the sources are not at hand."""
    if not index.has_sources:
        return True
    if index.demand:  # read as the check reads it: only the modules that mention the name
        word = re.escape(name.encode())
        pattern = re.compile(rb"""["']%s["']|\.%s\s*=(?!=)""" % (word, word))
        return bool(index.source_search(Needle(name.encode(), pattern)))
    return index.writes_quoted(name) or name in index.stored_attribute_names()  # sets stored per release
