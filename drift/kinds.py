"""One vocabulary of drift: what a detector saw change, and what a rule found at a consumer's line.

Values read as messages (griffe style). `drift diff` (detectors) and `drift check` (rules) used
two enums; a change and the finding it causes are now named in one place, so a rule can say
which change it turns into a finding. `ChangeKind` and `RuleKind` stay as names for the same
enum; `CHANGE_KINDS` and `RULE_KINDS` say which members each side produces (JSON and SARIF keep
the member names they always used).
"""

from __future__ import annotations

import enum


class Kind(str, enum.Enum):
    """What changed, or what breaks; the value is the message a report prints before details."""

    # -- changes between two snapshots (drift diff) -----------------------------------------
    MODULE_REMOVED = "module was removed"
    MODULE_ADDED = "module was added"
    SYMBOL_REMOVED = "symbol was removed"
    SYMBOL_MOVED = "symbol moved to another module"
    CLASS_KIND_CHANGED = "class kind changed"
    CLASS_BECAME_FUNCTION = "class is now a function: it cannot be subclassed, given to isinstance or hold class attributes"
    BASE_CHANGED = "class bases changed"
    PARAM_REMOVED = "parameter was removed"
    PARAM_RENAMED = "parameter was renamed"
    PARAM_KIND_CHANGED = "parameter kind changed"
    PARAM_REQUIRED_ADDED = "new required parameter"
    PARAM_ADDED = "new optional parameter"
    PARAM_DEFAULT_REMOVED = "parameter default was removed"
    PARAM_DEFAULT_CHANGED = "parameter default changed"
    PARAM_REORDERED = "positional parameters were reordered"
    PARAM_MOVED = "positional parameters shifted: positional callers bind the wrong parameter"
    RETURN_CHANGED = "return annotation changed"
    FIELD_REQUIRED_ADDED = "new required field"
    FIELD_REMOVED = "field was removed"
    FIELD_DEFAULT_CHANGED = "field default changed"
    CLASS_ATTRIBUTE_REMOVED = "class attribute was removed"
    ATTRIBUTE_REMOVED = "instance attribute is no longer set"
    ATTRIBUTE_TYPE_CHANGED = "instance attribute holds a different kind of value"
    # shared: a change kind and the finding it causes
    TWO_PHASE_PROTOCOL = "method now returns None and hands its result to a sibling method"
    RETURNS_NONE = "method now returns None on every path"
    RETURN_SHAPE_DEPENDS = "shape of the returned value now depends on a parameter"
    STATE_RAISE_ADDED = "new error raised when object state is wrong"
    ARG_ASSERT_ADDED = "new assertion on an argument's attribute"
    PARAM_NONE_REJECTED = "parameter is now used unconditionally: None is no longer accepted"

    # -- findings at a consumer's use (drift check) -----------------------------------------
    IMPORT_REMOVED = "imported name no longer exists"
    IMPORT_MOVED = "imported name moved"
    KEYWORD_REMOVED = "keyword is no longer accepted"
    REQUIRED_ADDED = "new required parameter is not passed"
    POSITIONAL_ARITY = "too many positional arguments"
    POSITIONAL_SHIFT = "a positional argument now binds a different parameter"
    RETURN_SHAPE = "shape of the returned value changed"
    METHOD_VANISHED = "method vanished from the whole class family"
    DEFAULT_CHANGED = "default changed with a behavioural consequence"
    SEMANTIC = "a requirement only the target's behaviour reveals"
    ATTRIBUTE_MISSING = "attribute the consumer uses no longer exists"
    ATTRIBUTE_RETYPED = "attribute now holds a value without the member the consumer uses"
    OVERRIDE_INCOMPATIBLE = "override no longer matches how the target calls it"
    FIELD_UNSET = "the target now reads a field the object the consumer built never sets"
    NAME_NOT_MEMBER = "the name an override returns is no member of the enum the target looks it up in"
    HOOK_NOT_DECLARED = "the consumer's class keeps a new hook's default that the target's own version of it overrides"
    OVERRIDE_SKIPS_STATE = "override never touches state the target's base now keeps for that method"
    ABSTRACT_ADDED = "base class gained an abstract method the consumer does not implement"
    HOOK_NOT_CALLED = "override of a method the target no longer has: never called"
    PATCH_TARGET_GONE = "patch replaces a name the target no longer has"
    VERSION_TEXT_COMPARE = "version compared as text gives the wrong answer for the target"
    VALUE_REJECTED = "argument value the target no longer accepts"
    INTERFACE_METHOD_MISSING = "the target now needs a method the consumer's class does not have"
    ARGUMENT_RETYPED = "argument no longer has the type the target now declares for it"
    CLASS_NOT_BUILT = "the class the consumer patches is no longer the one the target builds by default"
    NOT_A_CLASS = "the name the consumer uses as a class is now a function"
    PROPERTY_READ_ONLY = "attribute the consumer assigns is now a property without a setter"
    CONSUMER_UNPARSABLE = "the consumer's file does not parse: nothing in it could be checked"
    VERSION_ASSERT_FAILS = "a module-level assertion on the target's version fails on the target"
    PATCH_BYPASSED = "patch of a module's name no longer reaches the target code that calls it"
    COPY_STALE = "the consumer's copy of a target function lacks a step the target's own version now takes"
    OPTION_CONFLICT = "the consumer's own command-line option is now registered by the target's parser builder too"
    STATE_OVERWRITTEN = "state the consumer sets before the base `__init__` runs, which that `__init__` now sets itself"
    FIELD_NOW_NONE = "field the consumer reads now defaults to None where the baseline's had a value"


ChangeKind = Kind
RuleKind = Kind

_FIRST_RULE_ONLY = "IMPORT_REMOVED"
_names = list(Kind.__members__)
CHANGE_KINDS: tuple[Kind, ...] = tuple(Kind[n] for n in _names[: _names.index(_FIRST_RULE_ONLY)])
RULE_KINDS: tuple[Kind, ...] = (Kind.TWO_PHASE_PROTOCOL,) + tuple(
    Kind[n] for n in _names[_names.index(_FIRST_RULE_ONLY):]
)
del _names

# Changes that make code written against the old snapshot fail when it uses the symbol.
BREAKING_KINDS = frozenset({
    Kind.MODULE_REMOVED,
    Kind.SYMBOL_REMOVED,
    Kind.SYMBOL_MOVED,
    Kind.CLASS_BECAME_FUNCTION,
    Kind.PARAM_REMOVED,
    Kind.PARAM_RENAMED,
    Kind.PARAM_KIND_CHANGED,
    Kind.PARAM_REQUIRED_ADDED,
    Kind.PARAM_DEFAULT_REMOVED,
    Kind.PARAM_REORDERED,
    Kind.PARAM_MOVED,
    Kind.FIELD_REQUIRED_ADDED,
    Kind.FIELD_REMOVED,
    Kind.CLASS_ATTRIBUTE_REMOVED,
    Kind.ATTRIBUTE_REMOVED,
    Kind.TWO_PHASE_PROTOCOL,
    Kind.RETURNS_NONE,
    Kind.RETURN_SHAPE_DEPENDS,
})


def parse_kind(text: str) -> Kind | None:
    """A change kind by enum name (any case, `-` or `_`) or by its exact message."""
    key = text.strip().upper().replace("-", "_").replace(" ", "_")
    if key in Kind.__members__ and Kind[key] in CHANGE_KINDS:
        return Kind[key]
    for kind in CHANGE_KINDS:
        if kind.value == text.strip():
            return kind
    return None
