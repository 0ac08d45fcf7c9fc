"""Warm `drift check` of every corpus consumer (tests/corpus/*.toml) against its target.

Warm means the releases and their facts are cached (a first run primes them); each timed run is
a fresh interpreter, and the figure is the in-process analysis (`run_check`), as for
bench_check.py. Prints the median per consumer and the number of consumer uses checked.

    python benchmarks/bench_check_corpus.py [--runs 3] [NAME ...]

Targets (issue 10): speculators <= 0.15 s, the largest corpus consumer <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

_CHILD = r"""
import json, sys, time, gc
sys.path.insert(0, %(repo)r)
from drift.pipeline.run import run_check
gc.disable()
t = time.perf_counter()
o = run_check(consumer_spec=%(consumer)r, target_spec=%(target)r, baseline_spec=%(baseline)r)
print(json.dumps({"check": time.perf_counter() - t, "uses": len(o.report.uses), "findings": len(o.report.findings)}))
"""


def one(consumer: str, target: str, baseline: str | None) -> dict:
    code = _CHILD % {"repo": str(REPO), "consumer": consumer, "target": target, "baseline": baseline}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    from tests.corpus_score import ground_truth, names

    cases = [("speculators", "speculators==0.3.0", "vllm==0.16.0", None)]
    for name in [n for n in args.names if n != "speculators"] or names():
        gt = ground_truth(name)
        cases.append((name, gt.get("consumer_source", gt["consumer"]), gt["target"], gt["baseline"]))
    if args.names:
        cases = [c for c in cases if c[0] in args.names]
    print(f"{'consumer':<16} {'warm check (median)':>20} {'uses':>6} {'findings':>9}")
    for name, consumer, target, baseline in cases:
        one(consumer, target, baseline)  # prime releases, facts and derived indexes
        runs = [one(consumer, target, baseline) for _ in range(args.runs)]
        med = statistics.median(r["check"] for r in runs)
        print(f"{name:<16} {med:>19.3f}s {runs[-1]['uses']:>6} {runs[-1]['findings']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
