"""Rule packs. Generic rules need no knowledge of the target; packs add what only it knows."""

from drift.analysis.rules.arg_types import argument_retyped
from drift.analysis.rules.arity import RULES as ARITY_RULES
from drift.analysis.rules.cli_options import RULES as CLI_OPTION_RULES
from drift.analysis.rules.cli_conflicts import RULES as CLI_CONFLICT_RULES
from drift.analysis.rules.awaited import RULES as AWAITED_RULES
from drift.analysis.rules.base_init import RULES as BASE_INIT_RULES
from drift.analysis.rules.bypassed_patches import RULES as BYPASSED_PATCH_RULES
from drift.analysis.rules.replaced_state import RULES as REPLACED_STATE_RULES
from drift.analysis.rules.defaults import default_changed
from drift.analysis.rules.deprecated_omission import RULES as DEPRECATED_OMISSION_RULES
from drift.analysis.rules.family import method_vanished
from drift.analysis.rules.gone_uses import RULES as GONE_USE_RULES
from drift.analysis.rules.gone_receivers import RULES as GONE_RECEIVER_RULES
from drift.analysis.rules.filled import RULES as FILLED_RULES
from drift.analysis.rules.forwarded import RULES as FORWARDED_RULES
from drift.analysis.rules.guarded import RULES as GUARDED_RULES
from drift.analysis.rules.handed import RULES as HANDED_RULES
from drift.analysis.rules.handed_calls import RULES as HANDED_CALL_RULES
from drift.analysis.rules.held_objects import RULES as HELD_OBJECT_RULES
from drift.analysis.rules.module_swaps import RULES as MODULE_SWAP_RULES
from drift.analysis.rules.slots import RULES as SLOT_RULES
from drift.analysis.rules.stand_in_reads import RULES as STAND_IN_READ_RULES
from drift.analysis.rules.protocol_sets import RULES as PROTOCOL_SET_RULES
from drift.analysis.rules.app_state import RULES as APP_STATE_RULES
from drift.analysis.rules.held_reads import RULES as HELD_READ_RULES
from drift.analysis.rules.numeric_operands import RULES as NUMERIC_OPERAND_RULES
from drift.analysis.rules.self_builds import RULES as SELF_BUILD_RULES
from drift.analysis.rules.imports import import_removed
from drift.analysis.rules.keys import RULES as KEY_RULES
from drift.analysis.rules.kind_change import RULES as KIND_CHANGE_RULES
from drift.analysis.rules.setters import RULES as SETTER_RULES
from drift.analysis.rules.nulls import RULES as NULL_RULES
from drift.analysis.rules.override_types import RULES as OVERRIDE_TYPE_RULES
from drift.analysis.rules.override_state import RULES as OVERRIDE_STATE_RULES
from drift.analysis.rules.unset_fields import RULES as UNSET_FIELD_RULES
from drift.analysis.rules.enum_names import RULES as ENUM_NAME_RULES
from drift.analysis.rules.enum_compares import RULES as ENUM_COMPARE_RULES
from drift.analysis.rules.enum_sinks import RULES as ENUM_SINK_RULES
from drift.analysis.rules.mirrored_hooks import RULES as MIRRORED_HOOK_RULES
from drift.analysis.rules.copies import RULES as COPY_RULES
from drift.analysis.rules.protocol import two_phase_protocol
from drift.analysis.rules.reach import RULES as REACH_RULES
from drift.analysis.rules.renamed_hooks import RULES as RENAMED_HOOK_RULES
from drift.analysis.rules.rebound import RULES as REBOUND_RULES
from drift.analysis.rules.returns import RULES as RETURN_RULES
from drift.analysis.rules.returned_stubs import RULES as RETURNED_STUB_RULES
from drift.analysis.rules.lost_exception_bases import RULES as LOST_EXCEPTION_BASE_RULES
from drift.analysis.rules.holder_calls import RULES as HOLDER_CALL_RULES
from drift.analysis.rules.overwritten_state import RULES as OVERWRITTEN_STATE_RULES
from drift.analysis.rules.none_defaults import RULES as NONE_DEFAULT_RULES
from drift.analysis.rules.renamed_slots import RULES as RENAMED_SLOT_RULES
from drift.analysis.rules.validated_nones import RULES as VALIDATED_NONE_RULES
from drift.analysis.rules.kwarg_keys import RULES as KWARG_KEY_RULES
from drift.analysis.rules.hand_set_globals import RULES as HAND_SET_GLOBAL_RULES
from drift.analysis.rules.reflected_fields import RULES as REFLECTED_FIELD_RULES
from drift.analysis.rules.unpacked_returns import RULES as UNPACKED_RETURN_RULES
from drift.analysis.rules.ambient_state import RULES as AMBIENT_STATE_RULES
from drift.analysis.rules.shape import return_shape
from drift.analysis.rules.soft_reads import RULES as SOFT_READ_RULES
from drift.analysis.rules.string_paths import RULES as STRING_PATH_RULES
from drift.analysis.rules.swapped import RULES as SWAPPED_RULES
from drift.analysis.rules.torch_ops import RULES as TORCH_OP_RULES
from drift.analysis.rules.namespace_fields import RULES as NAMESPACE_FIELD_RULES
from drift.analysis.rules.name_tables import RULES as NAME_TABLE_RULES
from drift.analysis.rules.unparsable import consumer_unparsable
from drift.analysis.rules.version_asserts import RULES as VERSION_ASSERT_RULES
from drift.analysis.rules.versions import version_text_compare
from drift.analysis.rules.signature import keyword_removed, positional_arity, positional_shift, required_added

GENERIC_RULES = [
    consumer_unparsable,
    import_removed,
    *STRING_PATH_RULES,
    *CLI_OPTION_RULES,
    *CLI_CONFLICT_RULES,
    *GONE_USE_RULES,
    *GONE_RECEIVER_RULES,
    *GUARDED_RULES,
    keyword_removed,
    required_added,
    positional_arity,
    positional_shift,
    *FORWARDED_RULES,
    *NULL_RULES,
    two_phase_protocol,
    return_shape,
    *ARITY_RULES,
    *AWAITED_RULES,
    method_vanished,
    default_changed,
    *REACH_RULES,
    *RENAMED_HOOK_RULES,
    *KEY_RULES,
    *RETURN_RULES,
    *RETURNED_STUB_RULES,
    *LOST_EXCEPTION_BASE_RULES,
    *HOLDER_CALL_RULES,
    *OVERWRITTEN_STATE_RULES,
    *NONE_DEFAULT_RULES,
    *RENAMED_SLOT_RULES,
    *VALIDATED_NONE_RULES,
    *KWARG_KEY_RULES,
    *HAND_SET_GLOBAL_RULES,
    *REFLECTED_FIELD_RULES,
    *UNPACKED_RETURN_RULES,
    *AMBIENT_STATE_RULES,
    *REBOUND_RULES,
    *KIND_CHANGE_RULES,
    *SETTER_RULES,
    *HANDED_RULES,
    *HANDED_CALL_RULES,
    *HELD_OBJECT_RULES,
    *FILLED_RULES,
    *DEPRECATED_OMISSION_RULES,
    *SLOT_RULES,
    *STAND_IN_READ_RULES,
    *PROTOCOL_SET_RULES,
    *APP_STATE_RULES,
    *HELD_READ_RULES,
    *NUMERIC_OPERAND_RULES,
    *SELF_BUILD_RULES,
    *MODULE_SWAP_RULES,
    *BYPASSED_PATCH_RULES,
    *REPLACED_STATE_RULES,
    *SOFT_READ_RULES,
    *BASE_INIT_RULES,
    *OVERRIDE_TYPE_RULES,
    *OVERRIDE_STATE_RULES,
    *UNSET_FIELD_RULES,
    *ENUM_NAME_RULES,
    *ENUM_COMPARE_RULES,
    *ENUM_SINK_RULES,
    *MIRRORED_HOOK_RULES,
    *COPY_RULES,
    *SWAPPED_RULES,
    *TORCH_OP_RULES,
    *NAMESPACE_FIELD_RULES,
    *NAME_TABLE_RULES,
    argument_retyped,
    version_text_compare,
    *VERSION_ASSERT_RULES,
]
