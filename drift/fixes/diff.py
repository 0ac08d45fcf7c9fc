"""Render a plan as a git-style unified diff that `git apply` and `patch -p1` accept."""

from __future__ import annotations

import difflib

from drift.fixes.plan import FileChange, PatchPlan

NO_EOL = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    """Split on "\n" only, as patch tools do (str.splitlines also splits on form feeds)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _file_diff(change: FileChange, *, context: int) -> str:
    old = _lines(change.before.decode("utf-8"))
    new = _lines(change.after.decode("utf-8"))
    out = [f"diff --git a/{change.path} b/{change.path}\n"]
    if change.created:
        out.append("new file mode 100644\n")
    source = "/dev/null" if change.created else f"a/{change.path}"
    for n, line in enumerate(
        difflib.unified_diff(old, new, source, f"b/{change.path}", n=context, lineterm="")
    ):
        if n < 2 or line.startswith("@@"):
            out.append(line + "\n")  # headers come without a line end with lineterm=""
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + NO_EOL)
    return "".join(out)


def unified_diff(plan: PatchPlan, *, context: int = 3) -> str:
    """One diff for every changed file, paths as `a/<path>` and `b/<path>`."""
    return "".join(_file_diff(c, context=context) for c in plan.changes)
