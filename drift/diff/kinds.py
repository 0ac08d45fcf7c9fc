"""Kinds of change between two snapshots; values read as messages (griffe style)."""

from __future__ import annotations

import enum


class ChangeKind(str, enum.Enum):
    """What changed; the value is the message a report prints before the details."""

    MODULE_REMOVED = "module was removed"
    MODULE_ADDED = "module was added"
    SYMBOL_REMOVED = "symbol was removed"
    SYMBOL_MOVED = "symbol moved to another module"
    CLASS_KIND_CHANGED = "class kind changed"
    BASE_CHANGED = "class bases changed"
    PARAM_REMOVED = "parameter was removed"
    PARAM_RENAMED = "parameter was renamed"
    PARAM_KIND_CHANGED = "parameter kind changed"
    PARAM_REQUIRED_ADDED = "new required parameter"
    PARAM_ADDED = "new optional parameter"
    PARAM_DEFAULT_REMOVED = "parameter default was removed"
    PARAM_DEFAULT_CHANGED = "parameter default changed"
    PARAM_REORDERED = "positional parameters were reordered"
    RETURN_CHANGED = "return annotation changed"
    FIELD_REQUIRED_ADDED = "new required field"
    FIELD_REMOVED = "field was removed"
    FIELD_DEFAULT_CHANGED = "field default changed"
    TWO_PHASE_PROTOCOL = "method now returns None and hands its state to a sibling method"
    RETURNS_NONE = "method now returns None unconditionally"
    RETURN_SHAPE_DEPENDS = "shape of the returned value now depends on a parameter"
    STATE_RAISE_ADDED = "new error raised when object state is wrong"
    ARG_ASSERT_ADDED = "new assertion on an argument's attribute"


# Kinds that make code written against the old snapshot fail when it uses the symbol.
BREAKING_KINDS = frozenset(
    {
        ChangeKind.MODULE_REMOVED,
        ChangeKind.SYMBOL_REMOVED,
        ChangeKind.SYMBOL_MOVED,
        ChangeKind.PARAM_REMOVED,
        ChangeKind.PARAM_RENAMED,
        ChangeKind.PARAM_KIND_CHANGED,
        ChangeKind.PARAM_REQUIRED_ADDED,
        ChangeKind.PARAM_DEFAULT_REMOVED,
        ChangeKind.PARAM_REORDERED,
        ChangeKind.FIELD_REQUIRED_ADDED,
        ChangeKind.FIELD_REMOVED,
        ChangeKind.TWO_PHASE_PROTOCOL,
        ChangeKind.RETURNS_NONE,
        ChangeKind.RETURN_SHAPE_DEPENDS,
    }
)


def parse_kind(text: str) -> ChangeKind | None:
    """Accept a kind by enum name (any case, `-` or `_`) or by its exact message."""
    key = text.strip().upper().replace("-", "_").replace(" ", "_")
    if key in ChangeKind.__members__:
        return ChangeKind[key]
    for kind in ChangeKind:
        if kind.value == text.strip():
            return kind
    return None
