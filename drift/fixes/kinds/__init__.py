"""Codemods that repair consumer code, and `apply_fixes`, which runs every fix for one file.

Fixes are applied bottom-up by line, so an edit rarely moves the lines of the fixes still to
run; when one does (a helper or an import inserted near the top), the remaining sites are
re-mapped through a line diff of before/after. A site that no longer matches is skipped with
a reason, never raised.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Iterable

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, Outcome, SiteCodemod
from drift.fixes.kinds.add_keyword import AddKeyword
from drift.fixes.kinds.add_parameters import AddParameters
from drift.fixes.kinds.add_second_phase import AddSecondPhase
from drift.fixes.kinds.alias_member import AliasMember
from drift.fixes.kinds.bind_parameters import BindParameters
from drift.fixes.kinds.build_from_factory import BuildFromFactory
from drift.fixes.kinds.call_to_attribute import CallToAttribute
from drift.fixes.kinds.compare_versions import CompareVersions
from drift.fixes.kinds.drop_argument import DropArgument
from drift.fixes.kinds.drop_check import DropCheck
from drift.fixes.kinds.drop_keyword import DropKeyword
from drift.fixes.kinds.import_moved_member import ImportMovedMember
from drift.fixes.kinds.keywordize_arguments import KeywordizeArguments
from drift.fixes.kinds.move_import import MoveImport
from drift.fixes.kinds.rename_attribute import RenameAttribute
from drift.fixes.kinds.rename_attribute_owner import RenameAttributeOwner
from drift.fixes.kinds.rename_constants_class import RenameConstantsClass
from drift.fixes.kinds.rename_import import RenameImport
from drift.fixes.kinds.rename_keyword import RenameKeyword
from drift.fixes.kinds.rename_method import RenameMethod
from drift.fixes.kinds.rewrite_arguments import RewriteArguments
from drift.fixes.kinds.read_env import ReadEnv
from drift.fixes.kinds.replace_removed_call import ReplaceRemovedCall
from drift.fixes.kinds.settle_setting import SettleSetting
from drift.fixes.kinds.unpack_rest import UnpackRest
from drift.fixes.kinds.unwrap_index import UnwrapIndex
from drift.findings import Finding

__all__ = ["REGISTRY", "FileFixResult", "apply_fixes", "line_mapper", "run_codemod"]

REGISTRY: dict[str, type[SiteCodemod]] = {
    "drop_keyword": DropKeyword,
    "add_keyword": AddKeyword,
    "rename_method": RenameMethod,
    "add_second_phase": AddSecondPhase,
    "unwrap_index": UnwrapIndex,
    "move_import": MoveImport,
    "import_moved_member": ImportMovedMember,
    "rename_attribute_owner": RenameAttributeOwner,
    "rename_keyword": RenameKeyword,
    "rename_attribute": RenameAttribute,
    "rename_import": RenameImport,
    "rename_constants_class": RenameConstantsClass,
    "keywordize_arguments": KeywordizeArguments,
    "add_parameters": AddParameters,
    "compare_versions": CompareVersions,
    "alias_member": AliasMember,
    "bind_parameters": BindParameters,
    "drop_argument": DropArgument,
    "call_to_attribute": CallToAttribute,
    "replace_removed_call": ReplaceRemovedCall,
    "build_from_factory": BuildFromFactory,
    "settle_setting": SettleSetting,
    "read_env": ReadEnv,
    "drop_check": DropCheck,
    "rewrite_arguments": RewriteArguments,
    "unpack_rest": UnpackRest,
}


@dataclass(frozen=True)
class FileFixResult:
    new_source: str
    applied: list[str] = field(default_factory=list)  # finding keys whose fix changed the file
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (finding key, reason)
    already: list[str] = field(default_factory=list)  # finding keys whose fix was already there

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def run_codemod(source: str, name: str, *, line: int, args: dict, path: str = "<consumer>") -> tuple[str, Outcome]:
    """Run one registered codemod on `source` at `line`; returns the new source and what happened."""
    cls = REGISTRY.get(name)
    if cls is None:
        return source, Outcome("not_found", f"unknown codemod {name!r}")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return source, Outcome("not_found", f"cannot parse {path}: {exc.message} (line {exc.raw_line})")
    except Exception as exc:  # e.g. NUL bytes, absurd nesting: still a reason, not a crash
        return source, Outcome("not_found", f"cannot parse {path}: {type(exc).__name__}: {exc}")
    context = CodemodContext(filename=path)
    try:
        command = cls(context, line=line, **args)
    except (TypeError, ValueError, cst.ParserSyntaxError) as exc:
        return source, Outcome("not_found", f"bad arguments for {name}: {exc}")
    try:
        new_module = command.transform_module(module)
    except Exception as exc:  # a codemod bug must not take the whole patch down
        return source, Outcome("not_found", f"{name} failed: {type(exc).__name__}: {exc}")
    outcome = command.outcome
    if outcome.status != APPLIED:
        return source, outcome
    return new_module.code, outcome


def _remap(line: int, opcodes: list[tuple[str, int, int, int, int]]) -> int:
    """Where 1-based `line` of the old text lives in the new text."""
    i = line - 1
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 <= i < i2 or (i1 == i2 == i):
            if tag == "equal":
                return j1 + (i - i1) + 1
            if tag == "insert":
                continue
            return j1 + min(i - i1, max(j2 - j1 - 1, 0)) + 1
    return line


def _line_opcodes(old: str, new: str) -> list[tuple[str, int, int, int, int]]:
    return list(difflib.SequenceMatcher(None, old.split("\n"), new.split("\n"), autojunk=False).get_opcodes())


def line_mapper(old: str, new: str):  # type: ignore[no-untyped-def]
    """A function from a 1-based line of `old` to where that line is in `new`."""
    ops = _line_opcodes(old, new)
    return lambda line: _remap(line, ops)


def apply_fixes(source: str, findings: Iterable[Finding], *, path: str) -> FileFixResult:
    """Apply every codemod fix that targets `path`, in one order-safe pass."""
    todo = [
        f
        for f in findings
        if f.fix is not None and f.fix.codemod is not None and f.consumer_site.path == path
    ]
    # Bottom-up; a stable sort keeps the rules' order for fixes on the same line.
    todo.sort(key=lambda f: -f.consumer_site.line)
    # a use whose edit is its import's (`rename_import` rewrites the import and every use): the
    # codemod runs at the import's line (`at_line`), once, whichever of the findings comes first
    origin = {id(f): int(f.fix.args.get("at_line") or f.consumer_site.line) for f in todo}  # type: ignore[union-attr]
    lines = dict(origin)  # where each edit runs, as earlier edits move the text
    applied: list[str] = []
    skipped: list[tuple[str, str]] = []
    already: list[str] = []
    current = source
    # one edit that fixes two findings (a dropped keyword whose value read a removed attribute):
    # the second finding's identical fix at the same line counts as applied with the first
    done: set[tuple[str, str, int]] = set()
    written: set[tuple[str, str]] = set()  # every edit applied, by (codemod, args)
    written_for_uses: set[tuple[str, str]] = set()  # those a use's `at_line` fix applied: its import's too
    for n, finding in enumerate(todo):
        assert finding.fix is not None and finding.fix.codemod is not None
        args = {k: v for k, v in finding.fix.args.items() if k != "at_line"}
        edit = (finding.fix.codemod, json.dumps(args, sort_keys=True, default=str))
        shared = "at_line" in finding.fix.args  # the import's whole-file edit, carried by one of its uses
        if (*edit, origin[id(finding)]) in done or edit in (written if shared else written_for_uses):
            applied.append(finding.key)
            continue
        new, outcome = run_codemod(current, finding.fix.codemod, line=lines[id(finding)], args=args, path=path)
        if outcome.status == APPLIED:
            applied.append(finding.key)
            done.add((*edit, origin[id(finding)]))
            written.add(edit)
            if shared:
                written_for_uses.add(edit)
            if new != current:
                ops = _line_opcodes(current, new)
                for later in todo[n + 1 :]:
                    lines[id(later)] = _remap(lines[id(later)], ops)
            current = new
        elif outcome.status == ALREADY:
            already.append(finding.key)
        else:
            skipped.append((finding.key, f"{path}:{finding.consumer_site.line}: {outcome.reason}"))
    return FileFixResult(new_source=current, applied=applied, skipped=skipped, already=already)
