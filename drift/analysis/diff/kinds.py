"""Change kinds of `drift diff`: the shared vocabulary in drift/kinds.py, under its old name."""

from drift.kinds import BREAKING_KINDS, CHANGE_KINDS, ChangeKind, parse_kind

__all__ = ["BREAKING_KINDS", "CHANGE_KINDS", "ChangeKind", "parse_kind"]
