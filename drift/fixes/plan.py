"""Turn findings plus the consumer's files into a patch plan: per-file before/after and why.

Pure: no I/O. The plan is what `drift patch` prints as a diff and what `apply` writes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from drift.findings import SAFE, UNSAFE, Finding
from drift.fixes.gate import VersionGate, gate_file
from drift.fixes.import_order import order_imports
from drift.fixes.kinds import apply_fixes, line_mapper
from drift.fixes.orphaned_imports import drop_orphaned_imports
from drift.fixes.paths import check_relpath
from drift.fixes.style import DEFAULT_LINE_LENGTH
from drift.fixes.todo import add_todos
from drift.fixes.wrap import wrap_long_lines


NEW_FILE = ""  # before_sha256 of a file the plan creates (as the host applier spells it)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to the directory that holds the consumer's top-level package
    before_sha256: str
    after_sha256: str
    before: bytes
    after: bytes
    finding_keys: tuple[str, ...]

    @property
    def created(self) -> bool:
        """A module the patch adds (the version helper of a range consumer): it must not exist yet."""
        return self.before_sha256 == NEW_FILE


@dataclass(frozen=True)
class PatchPlan:
    changes: tuple[FileChange, ...] = ()
    manual: tuple[tuple[Finding, str], ...] = ()  # findings no codemod can fix, with why
    skipped: tuple[tuple[str, str], ...] = ()  # (finding key, reason) for fixes that did not match
    already: tuple[str, ...] = ()  # finding keys whose fix is already in the file
    held: tuple[tuple[Finding, str], ...] = ()  # unsafe fixes left out (no --unsafe-fixes), with why
    todos: tuple[str, ...] = ()  # finding keys marked with a `# TODO(drift):` comment

    @property
    def patch_id(self) -> str:
        """Same changes, same id: a second apply of an equal plan finds its own manifest."""
        blob = json.dumps(
            sorted((c.path, c.before_sha256, c.after_sha256) for c in self.changes), separators=(",", ":")
        )
        return sha256(blob.encode())[:16]

    @property
    def finding_keys(self) -> tuple[str, ...]:
        return tuple(k for c in self.changes for k in c.finding_keys)

    @property
    def empty(self) -> bool:
        return not self.changes


HELD_REASON = "unsafe fix (it may change what the code does): applied only with --unsafe-fixes"
# Kinds whose edit cannot run on the baseline by construction: `drop_argument` stops passing a
# parameter the baseline's signature still has, so the baseline binds the rest one slot off
# (a shift its re-check does not always see); `bind_parameters` removes parameters the
# baseline's own caller passes; `drop_check` deletes a check the baseline still needs (its
# attributes exist there, and the check may raise); `rewrite_arguments` passes the target's
# arguments, which the baseline binds to its own parameters (an appended one lands in an optional
# slot there, unseen). A range consumer's patch always puts them in a vLLM-version branch,
# whatever the baseline re-check says.
NEVER_ON_BASELINE = frozenset({"drop_argument", "bind_parameters", "drop_check", "rewrite_arguments"})


def _never_on_baseline(fix) -> bool:  # type: ignore[no-untyped-def]
    """A kind above; `add_parameters` making a parameter required: the baseline's callers do
    not pass it (its re-check may not see that when the baseline's base never declared the method);
    a keyword dropped whose value is not the baseline's default (`drop_keyword`, unsafe, or safe
    as the target rewrote its own call: `migration`): the baseline still reads it, and no finding
    there says so; a keyword the baseline never read (`unread_in`): only the baseline is known not
    to, and a range reaches older releases; and any fix whose tier depends on the
    branch (`gated_tier`): its judgement holds only where the original stays for the baseline."""
    if fix is None or fix.codemod is None:
        return False
    if fix.codemod in NEVER_ON_BASELINE or fix.gated_tier is not None:
        return True
    if fix.codemod == "drop_keyword" and (fix.tier == UNSAFE or "migration" in fix.args or "unread_in" in fix.args):
        # a drop as the target rewrote its own call: the baseline still reads the value; one the
        # baseline never read (`unread_in`): a release before the baseline may have read it
        return True
    # a parameter added required, or in the middle (`mid_signature`): the baseline's callers do
    # not pass it, or pass the later arguments one slot earlier
    return fix.codemod == "add_parameters" and (bool(fix.args.get("mid_signature")) or any(
        len(p) > 1 and p[1] is None for p in fix.args.get("params") or []))


def tier_of(fix, *, gated: bool = False) -> str | None:  # type: ignore[no-untyped-def]
    """The fix's tier as this patch writes it: its `gated_tier` when the patch is version-gated
    (a range consumer; the plan then always puts the edit in a branch), else its `tier`."""
    if fix is None:
        return None
    return fix.gated_tier if gated and fix.gated_tier is not None else fix.tier


def applies(finding: Finding, *, unsafe_fixes: bool = False, gated: bool = False) -> bool:
    """Whether `drift patch` writes this finding's codemod: safe ones always, unsafe ones on request.
    `gated`: the patch is version-gated (a range consumer), so a fix safe in a branch is safe."""
    fix = finding.fix
    if fix is None or fix.codemod is None:
        return False
    tier = tier_of(fix, gated=gated)
    return tier == SAFE or (unsafe_fixes and tier == UNSAFE)


def _module_of(path: str) -> str:
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def plan(files: Mapping[str, bytes], findings: Iterable[Finding], *, unsafe_fixes: bool = False,
         add_todo: bool = False, gate: VersionGate | None = None,
         gate_lines: Mapping[str, frozenset[int]] | None = None,
         line_length: int | None = None) -> PatchPlan:
    """Apply every fix of an allowed tier to its file's original bytes; collect what could not be done.

    Safe fixes always; unsafe ones only with `unsafe_fixes` (else they are `held`, with why).
    With `add_todo`, each manual or held finding whose file is provided gets a `# TODO(drift):`
    comment above its site. With `gate` (a consumer that supports a range of vLLM releases),
    every statement an edit changes becomes a version branch that keeps the original for the
    older release (drift.fixes.gate); a file whose edits cannot be gated is left as it was, its
    fixes skipped with why, and the helper module the gate needs is added once. `gate_lines`
    limits the gate to the edited statements covering those lines of each file (where a plain
    edit breaks the baseline); a file it does not name gets plain edits. Every edited file then
    gets the imports the fixes added in the consumer's isort order and the lines they made too
    long wrapped at `line_length` (default: the gate's, else 88), and loses the imports the fixes
    left unused, so a reviewer can take the diff as written (drift.fixes.import_order,
    drift.fixes.wrap, drift.fixes.orphaned_imports).
    """
    width = line_length or (gate.line_length if gate is not None else DEFAULT_LINE_LENGTH)
    by_path: dict[str, list[Finding]] = {}
    marked: dict[str, list[Finding]] = {}
    manual: list[tuple[Finding, str]] = []
    held: list[tuple[Finding, str]] = []
    skipped: list[tuple[str, str]] = []
    for f in findings:
        if f.fix is None or f.fix.codemod is None:
            reason = (f.fix.manual_reason if f.fix else None) or "no automatic fix is known"
            manual.append((f, reason))
            bucket = marked
        elif not applies(f, unsafe_fixes=unsafe_fixes, gated=gate is not None):
            held.append((f, HELD_REASON))
            bucket = marked
        else:
            bucket = by_path
        if bucket is marked and not add_todo:
            continue
        problem = check_relpath(f.consumer_site.path)
        if problem:
            skipped.append((f.key, problem))
        elif f.consumer_site.path not in files:
            if bucket is by_path:
                skipped.append((f.key, f"{f.consumer_site.path} was not provided"))
        else:
            bucket.setdefault(f.consumer_site.path, []).append(f)
    changes: list[FileChange] = []
    already: list[str] = []
    todos: list[str] = []
    uses_helper = False
    for path in sorted(set(by_path) | set(marked)):
        before = files[path]
        try:
            text = before.decode("utf-8")
        except UnicodeDecodeError:
            skipped.extend((f.key, f"{path} is not UTF-8 text") for f in by_path.get(path, ()))
            continue
        result = apply_fixes(text, by_path.get(path, ()), path=path)
        skipped.extend(result.skipped)
        already.extend(result.already)
        new_text = result.new_source
        applied = list(result.applied)
        if applied:
            new_text = order_imports(text, new_text, first_party=(path.split("/")[0].removesuffix(".py"),))
            new_text = wrap_long_lines(text, new_text, line_length=width)
        forced = frozenset(f.consumer_site.line for f in by_path.get(path, ())
                           if f.key in applied and _never_on_baseline(f.fix))
        if gate is not None and applied and (gate_lines is None or path in gate_lines or forced):
            own = gate if gate.import_from != _module_of(path) else replace(gate, import_from=None, name=None)
            what = [(f.consumer_site.line, f.fix.description if f.fix else "") for f in by_path.get(path, ())
                    if f.key in applied]
            gated = gate_file(text, new_text, own, what,
                              None if gate_lines is None else gate_lines.get(path, frozenset()) | forced)
            if gated.problem:
                skipped.extend((k, f"{path}: not gated by vLLM version, so not applied: {gated.problem}")
                               for k in applied)
                new_text, applied = text, []
            else:
                new_text = gated.source
                uses_helper = uses_helper or gated.gated > 0
        if applied:
            # after the gate: an edit in a version branch keeps the original, and its imports, beside it
            new_text = drop_orphaned_imports(text, new_text, first_party=(path.split("/")[0].removesuffix(".py"),))
        if marked.get(path):
            where = line_mapper(text, new_text)
            new_text, done = add_todos(new_text, marked[path],
                                       lines={f.consumer_site.line: where(f.consumer_site.line) for f in marked[path]})
            todos.extend(done)
        after = new_text.encode("utf-8")
        if after != before:
            changes.append(
                FileChange(
                    path=path,
                    before_sha256=sha256(before),
                    after_sha256=sha256(after),
                    before=before,
                    after=after,
                    finding_keys=tuple(applied),
                )
            )
    if uses_helper and gate is not None and gate.helper_path and gate.helper_text:
        helper = gate.helper_text.encode("utf-8")
        changes.append(FileChange(path=gate.helper_path, before_sha256=NEW_FILE, after_sha256=sha256(helper),
                                  before=b"", after=helper, finding_keys=()))
    return PatchPlan(changes=tuple(changes), manual=tuple(manual), skipped=tuple(skipped), already=tuple(already),
                     held=tuple(held), todos=tuple(todos))
