"""Fixes: the fix kinds (`kinds/`, one libcst codemod per file), planning, a diff, apply
atomically with a manifest, revert, verify; `applier.py` is the stdlib script that applies on the
host. Imports: remote/ and the core (findings); nothing of analysis/ or above.
"""

from drift.fixes.apply import ApplyResult, FileOutcome, apply
from drift.fixes.diff import unified_diff
from drift.fixes.manifest import read_manifest
from drift.fixes.plan import FileChange, PatchPlan, applies, plan
from drift.fixes.revert import LATEST, RevertResult, revert
from drift.fixes.verify import CompileResult, verify_compile

__all__ = [
    "LATEST",
    "ApplyResult",
    "CompileResult",
    "FileChange",
    "FileOutcome",
    "PatchPlan",
    "RevertResult",
    "applies",
    "apply",
    "plan",
    "read_manifest",
    "revert",
    "unified_diff",
    "verify_compile",
]
