"""`drift check` of speculators 0.3.0 against vllm 0.16.0 (sources cached), beside mypy.

One script, one run: drift cold (empty facts cache) and warm, each in a fresh interpreter, and
mypy on the same consumer files with the same vLLM sources on its path. Prints medians,
the ratio, and how many true breaking problems each tool names on the consumer's lines.

    python benchmarks/bench_check.py [--runs 3]

Targets: drift <= 0.5 s cold, <= 0.15 s warm (in-process analysis), more true findings than mypy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, %(repo)r)
t0 = time.perf_counter()
from drift.pipeline.run import run_check
t1 = time.perf_counter()
o = run_check(consumer_spec="speculators==0.3.0", target_spec="vllm==0.16.0")
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "check": t2 - t1,
                  "breaking": [[f.rule_id, f.consumer_site.path, f.consumer_site.line] for f in o.report.breaking]}))
"""


def drift_run(cache: str) -> dict:
    env = dict(os.environ, DRIFT_CACHE=cache)
    out = subprocess.run([sys.executable, "-c", _CHILD % {"repo": str(REPO)}], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from drift.sources.cache import cache_root
    from drift.sources.fetch import fetch_sources

    spec_src = fetch_sources("speculators==0.3.0").root
    vllm_src = fetch_sources("vllm==0.16.0").root
    fetch_sources("vllm==0.11.0")
    real_cache = str(cache_root())

    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            # sources are cached (links to the fetched trees); parsed facts are not
            os.makedirs(os.path.join(tmp, "sources"))
            for name in ("speculators-0.3.0", "vllm-0.16.0", "vllm-0.11.0"):
                os.symlink(os.path.join(real_cache, "sources", name), os.path.join(tmp, "sources", name))
            cold.append(drift_run(tmp))
            warm.append(drift_run(tmp))
    findings = {tuple(x) for x in warm[-1]["breaking"]}

    files = [str(spec_src / "speculators/data_generation/vllm_hidden_states_generator.py"),
             str(spec_src / "speculators/data_generation/custom_worker.py")]
    mypy_times, mypy_lines = [], []
    for _ in range(1):
        with tempfile.TemporaryDirectory() as cache_dir:
            t = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent",
                 "--no-error-summary", "--cache-dir", cache_dir, "--python-version", "3.11", *files],
                env=dict(os.environ, MYPYPATH=f"{vllm_src}:{spec_src}"), capture_output=True, text=True)
            mypy_times.append(time.perf_counter() - t)
            mypy_lines = [ln for ln in proc.stdout.splitlines() if ": error:" in ln]
    consumer_lines = {line for (_r, _p, line) in findings}
    mypy_hits = set()
    for ln in mypy_lines:
        m = re.match(r".*?/(speculators/[^:]+):(\d+): error: (.*)", ln)
        if m:
            mypy_hits.add((m.group(1), int(m.group(2)), m.group(3)))
    mypy_true = {h for h in mypy_hits if h[1] in consumer_lines or "call-arg" in h[2] or "unexpected keyword" in h[2]}

    med = lambda xs: statistics.median(xs)  # noqa: E731
    row = {
        "drift_cold_check_s": med([c["check"] for c in cold]),
        "drift_cold_total_s": med([c["check"] + c["import"] for c in cold]),
        "drift_warm_check_s": med([w["check"] for w in warm]),
        "drift_warm_total_s": med([w["check"] + w["import"] for w in warm]),
        "mypy_s": med(mypy_times),
        "drift_breaking_findings": len(findings),
        "mypy_errors_on_consumer": len(mypy_hits),
        "mypy_true_breaking": len(mypy_true),
    }
    row["ratio_mypy_over_drift_warm"] = row["mypy_s"] / row["drift_warm_total_s"]
    print(json.dumps(row, indent=2))
    for h in sorted(mypy_hits):
        print("mypy:", *h)
    print(f"target cold <= 0.5 s: {'met' if row['drift_cold_check_s'] <= 0.5 else 'MISSED'} "
          f"({row['drift_cold_check_s']:.2f} s)")
    print(f"target warm <= 0.15 s: {'met' if row['drift_warm_check_s'] <= 0.15 else 'MISSED'} "
          f"({row['drift_warm_check_s']:.2f} s)")
    print(f"more true findings than mypy: {'met' if len(findings) > len(mypy_true) else 'MISSED'} "
          f"({len(findings)} vs {len(mypy_true)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
