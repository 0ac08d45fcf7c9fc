"""Time `drift diff` of vLLM 0.11.0 -> 0.16.0 against griffe on the same two source trees.

    python benchmarks/bench_diff.py [--repeat 3] [--json out.json]

Each measurement is a fresh process, timed wall-clock from outside, so interpreter start and
imports count for both tools:

- drift cold: `drift diff OLD NEW --package vllm --json` with an empty probe-facts cache
  (every module of both releases parsed);
- drift warm: the same with the cache the cold run filled;
- griffe: `griffe.load("vllm", search_paths=[tree])` for both trees, then
  `griffe.find_breaking_changes(old, new)`, counting what it reports (griffe keeps no cache,
  so it is the same cold or warm; its logging is silenced so it is not timed printing).

Targets: drift cold >= 5x faster than griffe, drift warm >= 20x. Always exits 0 and prints
whether each target was met.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV_SRC = Path("/root/.cache/drift-dev/src")
TARGET_COLD, TARGET_WARM = 5.0, 20.0

GRIFFE_SCRIPT = """
import json, logging, sys
logging.disable(logging.CRITICAL)
import griffe
old = griffe.load("vllm", search_paths=[sys.argv[1]], resolve_aliases=False)
new = griffe.load("vllm", search_paths=[sys.argv[2]], resolve_aliases=False)
print(json.dumps({"breaking": sum(1 for _ in griffe.find_breaking_changes(old, new))}))
"""


def trees() -> tuple[Path, Path]:
    """The two extracted releases: the dev copy when present, else drift's own fetcher."""
    if all((DEV_SRC / f"vllm-{v}" / "vllm").is_dir() for v in ("0.11.0", "0.16.0")):
        return DEV_SRC / "vllm-0.11.0", DEV_SRC / "vllm-0.16.0"
    sys.path.insert(0, str(REPO))
    from drift.sources.fetch import fetch_sources

    return fetch_sources("vllm==0.11.0").root, fetch_sources("vllm==0.16.0").root


def timed(argv: list[str]) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of the child and its workers, its JSON output)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=str(REPO))
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv[:4])} ...\n" + "\n".join(tail))
    return elapsed, cpu, json.loads(proc.stdout)


def drift_argv(old: Path, new: Path, cache: Path) -> list[str]:
    return [sys.executable, "-m", "drift.cli", "diff", str(old), str(new), "--package", "vllm",
            "--json", "--cache-dir", str(cache)]


def stats(samples: list[float]) -> dict:
    return {"median_s": round(statistics.median(samples), 3), "min_s": round(min(samples), 3),
            "max_s": round(max(samples), 3), "n": len(samples)}


def run(repeat: int) -> dict:
    old, new = trees()
    work = Path(tempfile.mkdtemp(prefix="drift-bench-diff-"))
    try:
        cold, warm, griffe_s = [], [], []
        cpu: dict[str, list[float]] = {"drift_cold": [], "drift_warm": [], "griffe": []}
        drift_doc = griffe_doc = None
        griffe_argv = [sys.executable, "-c", GRIFFE_SCRIPT, str(old), str(new)]
        # Interleaved (cold, warm, griffe) per round, so load from other processes on a
        # shared machine falls on all three alike.
        for i in range(repeat):
            seconds, used, drift_doc = timed(drift_argv(old, new, work / f"cold-{i}"))
            cold.append(seconds)
            cpu["drift_cold"].append(used)
            print(f"  round {i + 1}: drift cold {seconds:.2f} s ({used:.2f} s CPU)", file=sys.stderr)
            seconds, used, _ = timed(drift_argv(old, new, work / f"cold-{i}"))
            warm.append(seconds)
            cpu["drift_warm"].append(used)
            print(f"  round {i + 1}: drift warm {seconds:.2f} s ({used:.2f} s CPU)", file=sys.stderr)
            seconds, used, griffe_doc = timed(griffe_argv)
            griffe_s.append(seconds)
            cpu["griffe"].append(used)
            print(f"  round {i + 1}: griffe     {seconds:.2f} s ({used:.2f} s CPU)", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = drift_doc["summary"]
    results = {
        "inputs": {"old": str(old), "new": str(new), "cpus": os.cpu_count(), "repeat": repeat},
        "drift_cold": stats(cold),
        "drift_warm": stats(warm),
        "griffe": stats(griffe_s),
        "drift_changes": summary["changes"],
        "drift_breaking": summary["breaking"],
        "griffe_breaking": griffe_doc["breaking"],
        "cpu_median_s": {k: round(statistics.median(v), 3) for k, v in cpu.items()},
        "load_average": os.getloadavg(),
    }
    g = results["griffe"]["median_s"]
    results["speedup_cold"] = round(g / results["drift_cold"]["median_s"], 1)
    results["speedup_warm"] = round(g / results["drift_warm"]["median_s"], 1)
    results["target_cold_met"] = results["speedup_cold"] >= TARGET_COLD
    results["target_warm_met"] = results["speedup_warm"] >= TARGET_WARM
    return results


def table(r: dict) -> str:
    g = r["griffe"]["median_s"]
    rows = [
        ("drift diff, cold (no facts cache)", r["drift_cold"], r["drift_changes"], r["drift_breaking"]),
        ("drift diff, warm (facts cached)", r["drift_warm"], r["drift_changes"], r["drift_breaking"]),
        ("griffe load x2 + find_breaking_changes", r["griffe"], None, r["griffe_breaking"]),
    ]
    out = [
        f"vLLM 0.11.0 -> 0.16.0, {r['inputs']['cpus']} CPUs, median of {r['inputs']['repeat']} runs",
        "",
        f"{'tool':<40} {'median s':>9} {'min s':>7} {'max s':>7} {'vs griffe':>10} {'changes':>8} {'breaking':>9}",
    ]
    for name, s, changes, breaking in rows:
        ratio = f"{g / s['median_s']:.1f}x" if s is not r["griffe"] else "1.0x"
        out.append(
            f"{name:<40} {s['median_s']:>9.2f} {s['min_s']:>7.2f} {s['max_s']:>7.2f} {ratio:>10} "
            f"{changes if changes is not None else '-':>8} {breaking:>9}"
        )
    c = r["cpu_median_s"]
    out += [
        "",
        f"CPU seconds (median, incl. worker processes): drift cold {c['drift_cold']:.2f}, "
        f"warm {c['drift_warm']:.2f}, griffe {c['griffe']:.2f} "
        f"(ratios {c['griffe'] / c['drift_cold']:.1f}x, {c['griffe'] / c['drift_warm']:.1f}x)",
        f"load average at the end: {', '.join(f'{x:.2f}' for x in r['load_average'])} "
        "(wall-clock ratios drop when other processes share the 2 cores)",
        "",
        f"target cold >= {TARGET_COLD:.0f}x: {'met' if r['target_cold_met'] else 'NOT met'} ({r['speedup_cold']}x)",
        f"target warm >= {TARGET_WARM:.0f}x: {'met' if r['target_warm_met'] else 'NOT met'} ({r['speedup_warm']}x)",
    ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    results = run(max(1, args.repeat))
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
