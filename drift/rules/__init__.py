"""Rule packs. Generic rules need no knowledge of the target; packs add what only it knows."""

from drift.rules.defaults import default_changed
from drift.rules.family import method_vanished
from drift.rules.imports import import_removed
from drift.rules.protocol import two_phase_protocol
from drift.rules.reach import RULES as REACH_RULES
from drift.rules.shape import return_shape
from drift.rules.versions import version_text_compare
from drift.rules.signature import keyword_removed, positional_arity, positional_shift, required_added

GENERIC_RULES = [
    import_removed,
    keyword_removed,
    required_added,
    positional_arity,
    positional_shift,
    two_phase_protocol,
    return_shape,
    method_vanished,
    default_changed,
    *REACH_RULES,
    version_text_compare,
]
