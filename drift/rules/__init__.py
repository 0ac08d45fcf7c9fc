"""Rule packs. Generic rules need no knowledge of the target; packs add what only it knows."""

from drift.rules.arg_types import argument_retyped
from drift.rules.base_init import RULES as BASE_INIT_RULES
from drift.rules.defaults import default_changed
from drift.rules.family import method_vanished
from drift.rules.forwarded import RULES as FORWARDED_RULES
from drift.rules.handed import RULES as HANDED_RULES
from drift.rules.imports import import_removed
from drift.rules.kind_change import RULES as KIND_CHANGE_RULES
from drift.rules.setters import RULES as SETTER_RULES
from drift.rules.nulls import RULES as NULL_RULES
from drift.rules.protocol import two_phase_protocol
from drift.rules.reach import RULES as REACH_RULES
from drift.rules.shape import return_shape
from drift.rules.soft_reads import RULES as SOFT_READ_RULES
from drift.rules.swapped import RULES as SWAPPED_RULES
from drift.rules.versions import version_text_compare
from drift.rules.signature import keyword_removed, positional_arity, positional_shift, required_added

GENERIC_RULES = [
    import_removed,
    keyword_removed,
    required_added,
    positional_arity,
    positional_shift,
    *FORWARDED_RULES,
    *NULL_RULES,
    two_phase_protocol,
    return_shape,
    method_vanished,
    default_changed,
    *REACH_RULES,
    *KIND_CHANGE_RULES,
    *SETTER_RULES,
    *HANDED_RULES,
    *SOFT_READ_RULES,
    *BASE_INIT_RULES,
    *SWAPPED_RULES,
    argument_retyped,
    version_text_compare,
]
