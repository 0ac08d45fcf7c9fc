"""`drift diff`: the full-surface difference of two facts snapshots, as pure functions."""

from drift.analysis.diff.engine import diff_facts, diff_modules, filter_changes, select_package
from drift.analysis.diff.kinds import BREAKING_KINDS, CHANGE_KINDS, ChangeKind, parse_kind
from drift.analysis.diff.model import SCHEMA, Change, DiffResult, Evidence, Side

__all__ = [
    "BREAKING_KINDS", "CHANGE_KINDS", "SCHEMA", "Change", "ChangeKind", "DiffResult", "Evidence", "Side",
    "diff_facts", "diff_modules", "filter_changes", "parse_kind", "select_package",
]
