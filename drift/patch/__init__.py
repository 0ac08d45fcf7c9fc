"""Patch engine: plan fixes, print a diff, apply atomically with a manifest, revert, verify."""

from drift.patch.apply import ApplyResult, FileOutcome, apply
from drift.patch.diff import unified_diff
from drift.patch.manifest import read_manifest
from drift.patch.plan import FileChange, PatchPlan, plan
from drift.patch.revert import LATEST, RevertResult, revert
from drift.patch.verify import CompileResult, verify_compile

__all__ = [
    "LATEST",
    "ApplyResult",
    "CompileResult",
    "FileChange",
    "FileOutcome",
    "PatchPlan",
    "RevertResult",
    "apply",
    "plan",
    "read_manifest",
    "revert",
    "unified_diff",
    "verify_compile",
]
