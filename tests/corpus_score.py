"""Score drift against a consumer's ground truth (tests/corpus/<name>.toml).

Ground truth is our own record of the breaks a consumer's maintainers fixed in their next
release (file:line in version A, what breaks, the vLLM evidence). A break is found when a
finding (breaking or risky) sits at the same consumer path and line. Precision is over breaking
findings: those at no ground-truth line are listed for reading, never assumed false.

`--by-statement` also counts a finding on another line of the break's own statement (see
`score_by_statement`); the floors and first-contact figures are the strict line match.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from drift.pipeline.run import run, run_check

CORPUS = Path(__file__).parent / "corpus"


@dataclass
class Score:
    name: str
    total: int
    found: list[str]
    missed: list[dict]
    breaking: int
    unmatched: list[str]  # breaking findings at no ground-truth line: "path:line rule title"
    error: str | None = None
    false: list[str] = None  # unmatched findings a review found false
    unreviewed: list[str] = None  # unmatched findings nobody has read yet

    @property
    def recall(self) -> float:
        return len(self.found) / self.total if self.total else 1.0

    @property
    def precision(self) -> float:
        """Real breaking findings over all breaking findings; unreviewed ones count as false."""
        if not self.breaking:
            return 1.0
        return (self.breaking - len(self.false or []) - len(self.unreviewed or [])) / self.breaking


def ground_truth(name: str) -> dict:
    return tomllib.loads((CORPUS / f"{name}.toml").read_text())


def names() -> list[str]:
    return sorted(p.stem for p in CORPUS.glob("*.toml"))


def score(name: str) -> Score:
    gt = ground_truth(name)
    outcome = run_check(consumer_spec=gt.get("consumer_source", gt["consumer"]), target_spec=gt["target"],
                        baseline_spec=gt["baseline"], consumer_packages=gt.get("consumer_packages"))
    breaks = gt.get("breaks") or []
    if outcome.report is None:
        return Score(name, len(breaks), [], breaks, 0, [], outcome.error)
    findings = [f for f in outcome.report.findings if f.severity.value in ("breaking", "risky")]
    at = {(f.consumer_site.path, f.consumer_site.line) for f in findings}
    found = [b["id"] for b in breaks if (b["path"], b["line"]) in at]
    missed = [b for b in breaks if (b["path"], b["line"]) not in at]
    truth = {(b["path"], b["line"]) for b in breaks}
    return _scored(name, gt, outcome, found, missed, truth)


def _scored(name: str, gt: dict, outcome, found: list[str], missed: list[dict], matched: set) -> Score:
    """The Score, with the breaking findings at no matched place sorted by the review's verdicts.
    A report whose rules raised (`Report.incomplete`, the "rule X failed" caveats) is an error:
    that rule's findings are missing, so its recall and precision measure a run that cannot pass."""
    breaking = [f for f in outcome.report.findings if f.severity.value == "breaking"]
    extra = [f for f in breaking if (f.consumer_site.path, f.consumer_site.line) not in matched]
    unmatched = [f"{f.consumer_site.path}:{f.consumer_site.line} {f.rule_id} {f.symbol} {f.title}" for f in extra]
    verdicts = {(r["path"], r["line"], r["rule"], r.get("symbol") or ""): r["verdict"] for r in gt.get("reviewed") or []}
    false, unreviewed = [], []
    for f, text in zip(extra, unmatched):
        v = verdicts.get((f.consumer_site.path, f.consumer_site.line, f.rule_id, f.symbol or ""))
        (false if v == "false" else unreviewed if v is None else []).append(text)
    failed = "; ".join(outcome.report.incomplete) or None
    return Score(name, len(gt.get("breaks") or []), found, missed, len(breaking), unmatched, failed, false, unreviewed)


def statement_spans(text: str) -> dict[int, tuple[int, int]]:
    """line -> the (first, last) line of the innermost statement written on it; a compound
    statement (def, class, if, with, ...) spans only its header, decorators included."""
    out: dict[int, tuple[int, int]] = {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return out
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
        for line in range(first, max(first, last) + 1):
            old = out.get(line)
            if old is None or old[1] - old[0] > last - first:
                out[line] = (first, max(first, last))
    return out


def score_by_statement(name: str) -> Score:
    """As `score`, but a break whose own line holds no finding is found by a finding on another
    line of the same statement (the ground truth names a multi-line call's first line, drift the
    line of the keyword it reports; an import's statement line against the name's line). Each
    finding is used once, and a finding at another break's line stays that break's."""
    gt = ground_truth(name)
    consumer, outcomes = run(consumer_spec=gt.get("consumer_source", gt["consumer"]), target_specs=[gt["target"]],
                             baseline_spec=gt["baseline"], consumer_packages=gt.get("consumer_packages"))
    outcome = outcomes[-1]
    breaks = gt.get("breaks") or []
    if consumer is None or outcome.report is None:
        return Score(name, len(breaks), [], breaks, 0, [], outcome.error or "no report")
    findings = [f for f in outcome.report.findings if f.severity.value in ("breaking", "risky")]
    truth = {(b["path"], b["line"]) for b in breaks}
    at = {(f.consumer_site.path, f.consumer_site.line) for f in findings}
    spans: dict[str, dict[int, tuple[int, int]]] = {}
    used: set[tuple[str, int]] = set()
    found, missed = [], []
    for b in breaks:
        if (b["path"], b["line"]) in at:
            found.append(b["id"])
            continue
        if b["path"] not in spans:
            try:
                spans[b["path"]] = statement_spans((consumer.root / b["path"]).read_text(errors="replace"))
            except OSError:
                spans[b["path"]] = {}
        first, last = spans[b["path"]].get(b["line"], (b["line"], b["line"]))
        near = sorted(p for p in at if p[0] == b["path"] and first <= p[1] <= last and p not in truth and p not in used)
        if near:
            used.add(near[0])
            found.append(b["id"])
        else:
            missed.append(b)
    return _scored(name, gt, outcome, found, missed, truth | used)


def main(argv: list[str]) -> int:
    by_statement = "--by-statement" in argv
    argv = [a for a in argv if a != "--by-statement"]
    unknown = [a for a in argv if not (CORPUS / f"{a}.toml").is_file()]
    if unknown:
        print(f"corpus_score: no such corpus file: {', '.join(unknown)} (names as `verl_b`, `git_only/areal`)",
              file=sys.stderr)
        return 2
    for name in argv or names():
        s = score_by_statement(name) if by_statement else score(name)
        if s.error:
            print(f"{name}: error: {s.error}")
            continue
        print(f"{name}: recall {len(s.found)}/{s.total} = {s.recall:.0%}; precision {s.precision:.0%} "
              f"({s.breaking} breaking, {len(s.unmatched)} at no ground-truth line: {len(s.false)} reviewed false, "
              f"{len(s.unreviewed)} not reviewed)")
        for b in s.missed:
            print(f"  MISSED {b['path']}:{b['line']} [{b.get('kind')}/{b.get('how_reached')}] {b['id']}")
        for u in s.false:
            print(f"  FALSE  {u}")
        for u in s.unreviewed:
            print(f"  UNREVIEWED {u}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
