"""Time `drift gate` of speculators 0.3.0 across five vLLM releases, sources already fetched.

    python benchmarks/bench_gate.py [--repeat 3] [--json out.json]

Releases missing from drift's source cache are fetched once with `drift.sources.fetch.fetch_sources`
before anything is timed (a vLLM wheel is ~450 MB to download; only its .py files are kept).
Each measurement is a fresh process timed wall-clock from outside, so interpreter start and
imports count:

- cold: `drift gate --consumer speculators==0.3.0 --target ... (x5) --json` with an empty
  probe-facts cache, i.e. every module of the baseline and the five releases parsed once;
- warm: the same command again on the facts cache the cold run filled (what CI sees when it
  restores ~/.cache/drift).

The cold/warm facts caches live in a temporary DRIFT_CACHE whose `sources` is a symlink to
the real source cache, so nothing is fetched again and the user's facts cache is untouched.
Warm runs are also made in-process: one with the progress callback timestamped, to show where
the time goes (reading the consumer, loading facts per release, the rules), and two more with
Python's cyclic GC on and paused, because the facts are large acyclic dicts that the
collector re-walks for nothing.

Target: warm gate over five releases <= 2 s wall-clock. Always exits 0 and prints whether the
target was met.
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
CONSUMER = "speculators==0.3.0"
RELEASES = ("0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.16.0")
TARGET_WARM_S = 2.0


def ensure_sources() -> Path:
    """Fetch what is missing (untimed); return drift's real source cache directory."""
    sys.path.insert(0, str(REPO))
    from drift.sources.cache import cache_root
    from drift.sources.fetch import fetch_sources

    for spec in (CONSUMER, *(f"vllm=={v}" for v in RELEASES)):
        start = time.perf_counter()
        src = fetch_sources(spec)
        took = time.perf_counter() - start
        if took > 1.0:
            print(f"  fetched {spec} in {took:.0f} s -> {src.root}", file=sys.stderr)
    return cache_root() / "sources"


def gate_argv() -> list[str]:
    argv = [sys.executable, "-m", "drift.cli", "gate", "--consumer", CONSUMER, "--json"]
    for version in RELEASES:
        argv += ["--target", f"vllm=={version}"]
    return argv


def timed(argv: list[str], cache: Path) -> tuple[float, float, list[dict]]:
    """(wall seconds, CPU seconds of the child, its JSON reports); exit 1 (breaking) is expected."""
    env = dict(os.environ, PYTHONPATH=str(REPO), DRIFT_CACHE=str(cache))
    env.pop("GITHUB_STEP_SUMMARY", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=str(REPO))
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"drift gate failed ({proc.returncode}):\n" + "\n".join(tail))
    return elapsed, cpu, json.loads(proc.stdout)


def fresh_cache(work: Path, sources: Path, name: str) -> Path:
    """A DRIFT_CACHE with no facts but the real extracted sources (symlinked, not copied)."""
    cache = work / name
    cache.mkdir()
    (cache / "sources").symlink_to(sources, target_is_directory=True)
    return cache


def stage_breakdown(cache: Path) -> list[tuple[str, float]]:
    """One warm gate in-process; seconds between progress messages, named by the message."""
    os.environ["DRIFT_CACHE"] = str(cache)
    from drift.pipeline.gate import run_gate

    marks: list[tuple[str, float]] = []
    start = time.perf_counter()
    result = run_gate(consumer_spec=CONSUMER, targets=[f"vllm=={v}" for v in RELEASES],
                      progress=lambda msg: marks.append((msg, time.perf_counter())))
    end = time.perf_counter()
    assert result.error is None, result.error
    stages, previous = [], ("(start)", start)
    for msg, at in marks + [("(rules + reports of the last release)", end)]:
        stages.append((previous[0], at - previous[1]))
        previous = (msg, at)
    return stages


def gc_effect(cache: Path) -> dict:
    """Warm in-process gate with the cyclic GC on vs paused (facts are big and acyclic)."""
    import gc

    os.environ["DRIFT_CACHE"] = str(cache)
    from drift.pipeline.gate import run_gate

    targets = [f"vllm=={v}" for v in RELEASES]
    out = {}
    for label, paused in (("gc_on", False), ("gc_paused", True)):
        if paused:
            gc.disable()
        start = time.perf_counter()
        run_gate(consumer_spec=CONSUMER, targets=targets)
        out[label] = round(time.perf_counter() - start, 3)
        gc.enable()
    return out


def stats(samples: list[float]) -> dict:
    return {"median_s": round(statistics.median(samples), 3), "min_s": round(min(samples), 3),
            "max_s": round(max(samples), 3), "n": len(samples)}


def run(repeat: int) -> dict:
    sources = ensure_sources()
    work = Path(tempfile.mkdtemp(prefix="drift-bench-gate-"))
    try:
        cold, warm, cpu_cold, cpu_warm, reports = [], [], [], [], []
        for i in range(repeat):  # interleaved, so load from other processes falls on both alike
            cache = fresh_cache(work, sources, f"round-{i}")
            seconds, used, reports = timed(gate_argv(), cache)
            cold.append(seconds)
            cpu_cold.append(used)
            print(f"  round {i + 1}: cold {seconds:.2f} s ({used:.2f} s CPU)", file=sys.stderr)
            seconds, used, _ = timed(gate_argv(), cache)
            warm.append(seconds)
            cpu_warm.append(used)
            print(f"  round {i + 1}: warm {seconds:.2f} s ({used:.2f} s CPU)", file=sys.stderr)
        stages = stage_breakdown(work / f"round-{repeat - 1}")
        in_process = gc_effect(work / f"round-{repeat - 1}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results = {
        "inputs": {"consumer": CONSUMER, "releases": list(RELEASES), "cpus": os.cpu_count(), "repeat": repeat},
        "cold": stats(cold),
        "warm": stats(warm),
        "cpu_median_s": {"cold": round(statistics.median(cpu_cold), 3), "warm": round(statistics.median(cpu_warm), 3)},
        "verdicts": {r["target"]["version"]: r["verdict"] for r in reports},
        "uses_checked": reports[0]["summary"]["uses_checked"],
        "warm_stages_s": [(name, round(s, 3)) for name, s in stages],
        "warm_in_process_s": in_process,
        "load_average": os.getloadavg(),
    }
    results["target_met"] = results["warm"]["median_s"] <= TARGET_WARM_S
    return results


def table(r: dict) -> str:
    n = len(r["inputs"]["releases"])
    out = [
        f"drift gate {r['inputs']['consumer']} x {n} vLLM releases ({', '.join(r['inputs']['releases'])}), "
        f"{r['inputs']['cpus']} CPUs, median of {r['inputs']['repeat']} runs, {r['uses_checked']} uses checked",
        "",
        f"{'run':<44} {'median s':>9} {'min s':>7} {'max s':>7} {'CPU s':>7}",
    ]
    for key, name in (("cold", "cold (empty facts cache, sources fetched)"), ("warm", "warm (facts cached)")):
        s = r[key]
        out.append(f"{name:<44} {s['median_s']:>9.2f} {s['min_s']:>7.2f} {s['max_s']:>7.2f} {r['cpu_median_s'][key]:>7.2f}")
    out += ["", "verdicts: " + "; ".join(f"{v}: {verdict}" for v, verdict in r["verdicts"].items()), "",
            "where a warm in-process gate spends its time:"]
    out += [f"  {s:6.2f} s  {name}" for name, s in r["warm_stages_s"]]
    g = r["warm_in_process_s"]
    out += ["", f"warm in-process run_gate: {g['gc_on']:.2f} s with the cyclic GC on, "
            f"{g['gc_paused']:.2f} s with it paused (gc.disable())"]
    out += [
        "",
        f"load average at the end: {', '.join(f'{x:.2f}' for x in r['load_average'])} "
        "(wall-clock grows when other processes share the cores)",
        f"target warm <= {TARGET_WARM_S:.0f} s: {'met' if r['target_met'] else 'NOT met'} ({r['warm']['median_s']:.2f} s)",
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
