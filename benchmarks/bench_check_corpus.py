"""Warm `drift check` of every corpus consumer (tests/corpus/*.toml) against its target.

Warm means the releases and their facts are cached (a first run primes them); each timed run is
a fresh interpreter, and the figure is the in-process analysis (`run_check`), as for
bench_check.py. "warm check" is what a second `drift check` does (the rules' answer read back from
drift/pipeline/check_cache.py), "rules run" the same with that cache off, so the rules themselves
are timed too (both alternate run by run). Prints the median per consumer (wall and the process's CPU, which a machine shared
with other sessions disturbs less than the wall), the number of consumer uses checked and the
one-minute load average after the consumer's runs.

    python benchmarks/bench_check_corpus.py [--runs 3] [NAME ...]

Targets (issue 10): speculators <= 0.15 s, the largest corpus consumer <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

_CHILD = r"""
import json, sys, time, gc
sys.path.insert(0, %(repo)r)
try:
    from drift.pipeline import check_cache
    check_cache.ENABLED = %(cached)r
except ImportError:  # a tree from before the answer cache (a before/after run of this script)
    pass
from drift.pipeline.run import run_check
gc.disable()
t, c = time.perf_counter(), time.process_time()
o = run_check(consumer_spec=%(consumer)r, target_spec=%(target)r, baseline_spec=%(baseline)r)
print(json.dumps({"check": time.perf_counter() - t, "cpu": time.process_time() - c,
                  "uses": len(o.report.uses), "findings": len(o.report.findings)}))
"""


def one(consumer: str, target: str, baseline: str | None, cached: bool = True) -> dict:
    code = _CHILD % {"repo": str(REPO), "consumer": consumer, "target": target, "baseline": baseline,
                     "cached": cached}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    from tests.corpus_score import ground_truth, names

    cases = [("speculators-readme", "speculators==0.3.0", "vllm==0.16.0", None)]  # the README command: no -b
    for name in [n for n in args.names if n != "speculators-readme"] or names():
        gt = ground_truth(name)
        cases.append((name, gt.get("consumer_source", gt["consumer"]), gt["target"], gt["baseline"]))
    if args.names:
        cases = [c for c in cases if c[0] in args.names]
    print(f"load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{'consumer':<16} {'warm check (median)':>20} {'its CPU':>9} {'rules run':>10} {'its CPU':>9}"
          f" {'uses':>6} {'findings':>9} {'load':>5}")
    for name, consumer, target, baseline in cases:
        one(consumer, target, baseline)  # prime releases, facts and derived indexes
        runs, ruled = [], []
        for _ in range(args.runs):  # alternating, so both columns see the same load
            runs.append(one(consumer, target, baseline))
            ruled.append(one(consumer, target, baseline, cached=False))
        med = statistics.median(r["check"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        rmed = statistics.median(r["check"] for r in ruled)
        rcpu = statistics.median(r["cpu"] for r in ruled)
        if (runs[-1]["uses"], runs[-1]["findings"]) != (ruled[-1]["uses"], ruled[-1]["findings"]):
            print(f"{name}: the cached answer and the rules disagree: {runs[-1]} vs {ruled[-1]}")
        print(f"{name:<16} {med:>19.3f}s {cpu:>8.3f}s {rmed:>9.3f}s {rcpu:>8.3f}s {runs[-1]['uses']:>6}"
              f" {runs[-1]['findings']:>9} {os.getloadavg()[0]:>5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
