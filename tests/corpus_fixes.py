"""What `drift patch` does to each corpus consumer's ground-truth breaks (tests/corpus/<name>.toml).

For every break: the findings at its line, their fix tiers, and whether the planner's edit
lands with safe fixes only (`drift patch --apply`) and with `--unsafe-fixes`. A break counts as
fixed by a mode when every breaking finding at its line had its codemod applied in that mode.
For a consumer that supports a range of vLLM releases both modes are measured on the
version-gated patch, the one drift writes for it (a fix safe only inside a version branch,
`Fix.gated_tier`, counts as safe there).
The `fix = "..."` field of a break records a reviewer's verdict against the maintainers' own fix
(same / acceptable / wrong / manual-mechanical / manual-by-design / not-found); this tool prints
it beside the measurement. Run: `python -m tests.corpus_fixes [name ...]`.
"""

from __future__ import annotations

import sys
from collections import Counter

from drift.consumer.support import support
from drift.fixes import plan
from drift.fixes.version_helper import choose_gate, top_package, tree_files
from drift.pipeline.run import run
from tests.corpus_score import ground_truth, names


def measure(name: str) -> tuple[list[dict], str | None]:
    gt = ground_truth(name)
    consumer, outcomes = run(consumer_spec=gt.get("consumer_source", gt["consumer"]), target_specs=[gt["target"]],
                             baseline_spec=gt["baseline"], consumer_packages=gt.get("consumer_packages"))
    outcome = outcomes[-1]
    if consumer is None or outcome.report is None:
        return [], outcome.error or "no report"
    findings = list(outcome.report.findings)
    paths = sorted({f.consumer_site.path for f in findings})
    files = {}
    for p in paths:
        try:
            files[p] = (consumer.root / p).read_bytes()
        except OSError:
            pass
    safe = set(plan(files, findings).finding_keys)
    unsafe = set(plan(files, findings, unsafe_fixes=True).finding_keys)
    # before tiers: every codemod was written by default, and move_import did not exist
    before = set(plan(files, [f for f in findings if not (f.fix and f.fix.codemod == "move_import")],
                      unsafe_fixes=True).finding_keys)
    ranged = support(list((consumer.meta or {}).get("requires") or []),
                     baseline=(outcome.report.baseline or {}).get("version"))
    gated_keys: set[str] | None = None
    gated_unsafe: set[str] | None = None
    recheck: str | None = None
    if ranged.is_range:
        top = top_package(list(files), list(consumer.packages))
        gate = choose_gate(tree_files(consumer.root, top), top=top,
                           since=str(outcome.report.target.get("version")),
                           before=str((outcome.report.baseline or {}).get("version")))
        gated_keys, gated_unsafe, recheck = version_gated(consumer, files, findings, gt, gate)
        # what drift writes for a range consumer is the version-gated patch: its figures are that patch's
        safe, unsafe = gated_keys, gated_unsafe
    rows = []
    for b in gt.get("breaks") or []:
        at = [f for f in findings if (f.consumer_site.path, f.consumer_site.line) == (b["path"], b["line"])
              and f.severity.value in ("breaking", "risky")]
        # the breaking findings at the line are the break; a risky one beside them (a default that
        # changed in the same call) is another matter, and only a break found as risky needs its own
        here = [f for f in at if f.severity.value == "breaking"] or at
        tiers = sorted({f.fix.tier if f.fix else "manual" for f in here})
        codemods = [f for f in here if f.fix and f.fix.codemod]
        rows.append({
            "id": b["id"], "where": f"{b['path']}:{b['line']}", "found": bool(here), "tiers": tiers,
            "safe": bool(here) and all(f.key in safe for f in here),
            "unsafe": bool(here) and all(f.key in unsafe for f in here),
            "before": bool(here) and all(f.key in before for f in here),
            "gated": gated_keys is not None and bool(here) and all(f.key in gated_keys for f in here),
            "codemods": sorted({f.fix.codemod for f in codemods}), "verdict": b.get("fix"),
            "edits": [f.fix.description for f in here if f.fix],
        })
    return rows, (None if recheck is None else f"range consumer ({ranged.why}); {recheck}")


def version_gated(consumer, files, findings, gt, gate) -> tuple[set[str], set[str], str]:  # type: ignore[no-untyped-def]
    """The range consumer's safe patch as `drift check --fix` writes it: plain edits tried on a
    copy of the release against the baseline (baseline and target swapped), a version branch
    where one adds a finding there; then the written patch re-checked the same way."""
    import shutil
    import tempfile
    from pathlib import Path

    from drift.fixes.local import write_plan
    from drift.pipeline.recheck import IGNORED, baseline_breaks, new_findings

    def swapped(root: str):  # type: ignore[no-untyped-def]
        _, outs = run(consumer_spec=root, target_specs=[gt["baseline"]], baseline_spec=gt["target"],
                      consumer_packages=list(consumer.packages))
        return outs[-1].report

    def on_target(root: str):  # type: ignore[no-untyped-def]
        _, outs = run(consumer_spec=root, target_specs=[gt["target"]], baseline_spec=gt["baseline"],
                      consumer_packages=list(consumer.packages))
        return outs[-1].report

    notes = []
    keys: set[str] = set()
    unsafe_keys: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="drift-corpus-fix-") as tmp:
        copy = Path(tmp) / "tree"
        shutil.copytree(consumer.root, copy, symlinks=True, ignore=shutil.ignore_patterns(*IGNORED))
        original = swapped(str(copy))
        unpatched = on_target(str(copy))
        if original is None or unpatched is None:
            return set(), set(), "baseline check failed"
        for unsafe in (False, True):
            lines = baseline_breaks(copy, plan(files, findings, unsafe_fixes=unsafe), original, swapped)
            gated = plan(files, findings, gate=gate, gate_lines=lines, unsafe_fixes=unsafe)
            if not unsafe:
                keys = set(gated.finding_keys)
            else:
                unsafe_keys = set(gated.finding_keys)
            mine = Path(tmp) / f"patched-{unsafe}"
            shutil.copytree(copy, mine, symlinks=True)
            problems = write_plan(mine, gated).problems
            if problems:
                notes.append("gated patch not written: " + "; ".join(problems))
                continue
            patched, fixed = swapped(str(mine)), on_target(str(mine))
            if patched is None or fixed is None:
                notes.append("re-check failed")
                continue
            new = [f"{f.consumer_site} {f.rule_id}" for f in new_findings(original, patched)]
            added = new_findings(unpatched, fixed)
            where = "every edit" if lines is None else (
                ", ".join(f"{p}:{','.join(map(str, sorted(ls)))}" for p, ls in sorted(lines.items())) or "none")
            notes.append(
                f"{'--unsafe-fixes' if unsafe else 'safe-only'}: version branches at {where}; "
                f"{len(gated.changes)} file(s); baseline re-check: {len(new)} new finding(s)"
                + (f" ({', '.join(new[:5])})" if new else "")
                + f"; target re-check: breaking {len(unpatched.breaking)} -> {len(fixed.breaking)}, {len(added)} new")
    return keys, unsafe_keys, "\n  ".join(notes)


def main(argv: list[str]) -> int:
    for name in argv or names():
        rows, error = measure(name)
        if error and not rows:
            print(f"{name}: error: {error}")
            continue
        n = len(rows)
        safe = sum(r["safe"] for r in rows)
        unsafe = sum(r["unsafe"] for r in rows)
        before = sum(r["before"] for r in rows)
        verdicts = Counter((r["verdict"] or "unclassified").split(":")[0] for r in rows)
        print(f"{name}: {n} breaks; fixed with no hand edit: before {before} (every codemod by default), now "
              f"{safe} safe-only, {unsafe} with --unsafe-fixes; "
              f"verdicts {dict(sorted(verdicts.items()))}")
        if error:  # a range consumer: the version-gated patch, and what it meets on the baseline
            print(f"  {error}; fixed safe-only and version-gated: {sum(r['gated'] for r in rows)}")
        for r in rows:
            mode = "SAFE  " if r["safe"] else "UNSAFE" if r["unsafe"] else "manual" if r["found"] else "-     "
            print(f"  {mode} {r['where']} {r['id']} {','.join(r['codemods'])} [{(r['verdict'] or '?').split(':')[0]}]"
                  + (f" :: {' | '.join(r['edits'])[:160]}" if r["edits"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
