"""Probe timing on a full vLLM tree: cold (no cache), cold writing the cache, warm.

Each sample runs in a fresh interpreter (one snapshot per process, as on a host), timing
`probes.main.collect_tree` inside it; the bundle row times the whole `python3 -` round trip
including interpreter start, JSON and zlib. Medians are printed.

    python benchmarks/bench_probe.py [--src DIR] [--runs 3] [--workers N] [--json]

Targets (2 cores): cold <= 1.5 s, warm <= 0.2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SRC = Path("/root/.cache/drift-dev/src/vllm-0.16.0")

_CHILD = r"""
import json, sys, time
sys.path.insert(0, %(repo)r)
from drift.probes.main import collect_tree
import os
c0 = os.times()
t = time.perf_counter()
doc = collect_tree(%(src)r, ["vllm"], cache_dir=%(cache)r, workers=%(workers)r)
el = time.perf_counter() - t
c1 = os.times()
cpu = sum(c1[:4]) - sum(c0[:4])
print(json.dumps({"s": el, "cpu": cpu, "parsed": doc["probe"]["parsed"], "cached": doc["probe"]["cached"],
                  "modules": len(doc["packages"]["vllm"]["modules"])}))
"""


def _child(src: Path, cache, workers) -> dict:
    code = _CHILD % {"repo": str(REPO), "src": str(src), "cache": cache, "workers": workers}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _bundle_wall(src: Path, cache: str) -> float:
    sys.path.insert(0, str(REPO))
    from drift.probes.bundle import build_script, decode_output

    script = build_script({"packages": ["vllm"], "env_packages": ["vllm", "torch"], "cache_dir": cache})
    env = dict(os.environ, PYTHONPATH=str(src))
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-"], input=script, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - t
    doc = decode_output(res.stdout)
    assert doc["probe"]["parsed"] == 0, doc["probe"]
    return wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="directory holding vllm/")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=None, help="parse workers (default: CPUs)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not (args.src / "vllm").is_dir():
        print(f"no vllm/ under {args.src}; fetch it first (drift.sources.fetch.fetch_sources('vllm==0.16.0'))",
              file=sys.stderr)
        return 2
    rows: dict[str, list[float]] = {"cold_no_cache": [], "cold_write_cache": [], "warm": [], "serial_cold": [],
                                    "cold_cpu_total": []}
    with tempfile.TemporaryDirectory(prefix="drift-bench-") as tmp:
        for i in range(args.runs):
            cold = _child(args.src, None, args.workers)
            rows["cold_no_cache"].append(cold["s"])
            rows["cold_cpu_total"].append(cold["cpu"])  # user+sys of probe and workers: load-independent
            cache = os.path.join(tmp, "c%d" % i)
            first = _child(args.src, cache, args.workers)
            rows["cold_write_cache"].append(first["s"])
            modules = first["modules"]
        rows["serial_cold"].append(_child(args.src, None, 1)["s"])
        for _ in range(max(args.runs, 5)):
            warm = _child(args.src, cache, args.workers)
            assert warm["parsed"] == 0, warm
            rows["warm"].append(warm["s"])
        bundle = [_bundle_wall(args.src, cache) for _ in range(args.runs)]
        rows["warm_bundle_wall"] = bundle
    result = {k: round(statistics.median(v), 3) for k, v in rows.items()}
    result.update(modules=modules, cpus=len(os.sched_getaffinity(0)), load1=round(os.getloadavg()[0], 2))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"vllm tree: {args.src} ({modules} modules), {result['cpus']} CPUs, load {result['load1']}")
        for key in ("cold_no_cache", "cold_write_cache", "serial_cold", "cold_cpu_total", "warm",
                    "warm_bundle_wall"):
            print(f"  {key:18s} median {result[key]:6.3f} s   runs: {', '.join('%.3f' % x for x in rows[key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
