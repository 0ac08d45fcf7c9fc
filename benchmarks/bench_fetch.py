"""Fetching vllm==0.16.0 from an empty cache: drift's range fetch of the .py files vs plain pip.

One script, one run, side by side, alternating which goes first: each drift run is a fresh
interpreter calling `drift.sources.fetch.fetch_sources` into an empty cache (imports, pip settings,
index lookup, range reads, extraction all counted); each pip run is
`pip download --no-deps vllm==0.16.0` with a fresh pip cache directory (so pip cannot serve
the wheel from its HTTP cache of a previous run). Both use the machine's pip configuration.
Prints medians, the ratio and the bytes each moved.

    python benchmarks/bench_fetch.py [--runs 3] [--spec vllm==0.16.0] [--no-keep-wheel] [--tree] [--json out.json]
    python benchmarks/bench_fetch.py --timeline [--runs 3]   # a check from nothing, phase by phase

drift's run is what a check pays: the members land in the release's pack
(`drift.sources.pack`, `fetch_sources(..., tree=False)`); `--tree` adds the same fetch written
out as files, the layout before the pack.

Target: drift <= 0.2x the plain download. One downloaded wheel is kept in
`<drift cache>/bench/` (unless --no-keep-wheel) so the corpus test
`tests/test_fetch_range.py::test_real_vllm_wheel_served_locally_with_and_without_ranges` can
serve a real vLLM wheel from a local server.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, %(repo)r)
from pathlib import Path
from drift.sources.fetch import fetch_sources
from drift.sources.progress import Step, Transfer
marks = {}
def say(msg):
    now = time.perf_counter()
    if isinstance(msg, Step):
        marks.setdefault("step", now)
    elif isinstance(msg, Transfer):
        marks["bytes"] = now
t1 = time.perf_counter()
src = fetch_sources(%(spec)r, cache=Path(%(cache)r), progress=say, tree=%(tree)r)
t2 = time.perf_counter()
from drift.sources.pack import Pack, pack_path
pack = Pack.open(pack_path(src.root))
files = sum(1 for p in src.root.rglob("*") if p.is_file())
packed = len(pack.index) if pack is not None else 0
step, last = marks.get("step", t2), marks.get("bytes", t2)
print(json.dumps({"import": t1 - t0, "fetch": t2 - t1, "how": src.how, "bytes": src.transferred,
                  "resolve": step - t1, "transfer": last - step, "extract": t2 - last,
                  "detail": src.detail, "files": files, "packed": packed}))
"""


# `--timeline`: a whole check from nothing (speculators 0.3.0 against vLLM 0.16.0, the baseline
# from its metadata), each step of each fetch thread stamped as it begins and ends, with the CPU
# each step spent summed over threads; "analysis" is the rules' run after every release is open.
_TIMELINE = r"""
import collections, json, os, sys, threading, time
T0 = time.perf_counter()
sys.path.insert(0, %(repo)r)
import drift.pipeline.run as P
import drift.sources.index as I
import drift.sources.rangezip as R
import drift.model.targets as TG
from drift.sources import fetchers as F
events, cpu, here = [], collections.Counter(), threading.local()
def stamp(mod, name, label, arg=None):
    f = getattr(mod, name)
    def timed(*a, **k):
        if getattr(here, "busy", False):
            return f(*a, **k)
        what = label + ("" if arg is None else " " + str(arg(a))[:40])
        here.busy, c = True, time.thread_time()
        events.append((time.perf_counter() - T0, threading.current_thread().name, "> " + what))
        try:
            return f(*a, **k)
        finally:
            events.append((time.perf_counter() - T0, threading.current_thread().name, "< " + what))
            cpu[label] += time.thread_time() - c
            here.busy = False
    setattr(mod, name, timed)
stamp(I, "open_index", "pip settings + index client")
stamp(I.Index, "resolve", "index lookup", lambda a: a[1])
stamp(R, "open_remote_zip", "zip directory", lambda a: a[0].url.rsplit("/", 1)[-1].split("-cp")[0])
stamp(R, "fetch_members", "member ranges", lambda a: len(a[3]))
stamp(F, "extract_archive", "pack / files written", lambda a: a[1].name)
stamp(CR, "collect_usage", "consumer usage")
stamp(TG, "_on_demand", "release opened", lambda a: a[0].name)
stamp(P, "analyse", "analysis")
def cpu_of(f, label):  # what the range threads spend, inside the steps above
    def timed(*a, **k):
        c = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            cpu[label] += time.thread_time() - c
    return timed
R._decode = cpu_of(R._decode, "  inflate + crc + sha256 (range threads)")
R.RangeReader._get = cpu_of(R.RangeReader._get, "  TLS + HTTP of range requests (all threads)")
t1 = time.perf_counter()
consumer, outcomes = P.run(consumer_spec="speculators==0.3.0", target_specs=["vllm==0.16.0"])
assert outcomes[-1].report is not None, outcomes[-1].error
print(json.dumps({"imports": t1 - T0, "events": events, "cpu": cpu, "process_cpu": time.process_time(),
                  "total": time.perf_counter() - T0}))
"""


def timeline_run() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-fetch-tl-") as cache:
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _TIMELINE % {"repo": str(REPO)}], capture_output=True, text=True,
                             check=True, env=dict(os.environ, DRIFT_CACHE=cache))
        wall = time.perf_counter() - start
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["wall"] = wall
    return got


def print_timeline(runs: list[dict]) -> None:
    runs = sorted(runs, key=lambda r: r["wall"])
    mid = runs[len(runs) // 2]
    print(f"\ncheck from nothing, phase timeline of the median of {len(runs)} runs "
          f"(wall {mid['wall']:.2f} s; imports {mid['imports']:.2f} s; load {os.getloadavg()[0]:.1f})")
    for at, thread, what in mid["events"]:
        print(f"  {at:7.3f}  {thread[:14]:<14} {what}")
    print("\n  CPU per step, summed over threads (median run)")
    for name, secs in sorted(mid["cpu"].items()):
        print(f"    {name:<46} {secs:6.3f} s")
    print(f"    {'process CPU in all':<46} {mid['process_cpu']:6.3f} s")


def drift_run(spec: str, near: Path, *, tree: bool = False) -> dict:
    near.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-fetch-", dir=near) as cache:  # the user cache's filesystem
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _CHILD % {"repo": str(REPO), "spec": spec, "cache": cache, "tree": tree}],
                             capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["wall"] = wall
    return got


def pip_run(spec: str, keep: Path | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-pip-") as tmp:
        dest, pipcache = Path(tmp) / "dl", Path(tmp) / "pipcache"
        env = dict(os.environ, PIP_CACHE_DIR=str(pipcache))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", spec, "-d", str(dest)],
                       capture_output=True, text=True, check=True, env=env)
        wall = time.perf_counter() - start
        wheel = next(dest.iterdir())
        size = wheel.stat().st_size
        if keep is not None and not (keep / wheel.name).exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.move(str(wheel), keep / wheel.name)
    return {"wall": wall, "bytes": size, "file": wheel.name}


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spec", default="vllm==0.16.0")
    ap.add_argument("--no-keep-wheel", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--tree", action="store_true", help="also time the fetch written out as files (the layout "
                                                         "before the pack, and what a whole-package probe asks for)")
    ap.add_argument("--timeline", action="store_true", help="only a check from nothing, its phases stamped "
                                                             "(speculators 0.3.0 against vLLM 0.16.0)")
    args = ap.parse_args()
    from drift.sources.cache import cache_root

    if args.timeline:
        print_timeline([timeline_run() for _ in range(args.runs)])
        return 0

    keep = None if args.no_keep_wheel else cache_root() / "bench"
    drift_runs, pip_runs, tree_runs = [], [], []
    for i in range(args.runs):
        order = (("drift", "pip") if i % 2 == 0 else ("pip", "drift"))
        for who in order:
            if who == "drift":
                drift_runs.append(drift_run(args.spec, cache_root()))
                if args.tree:
                    tree_runs.append(drift_run(args.spec, cache_root(), tree=True))
            else:
                pip_runs.append(pip_run(args.spec, keep))
            print(f"  run {i + 1} {who}: {(drift_runs if who == 'drift' else pip_runs)[-1]['wall']:.2f} s",
                  file=sys.stderr)

    d = statistics.median(r["wall"] for r in drift_runs)
    p = statistics.median(r["wall"] for r in pip_runs)
    ratio = d / p
    last = drift_runs[-1]
    rows = [
        ("drift range fetch (fresh process, empty cache)", f"{d:.2f} s", mb(statistics.median(r["bytes"] for r in drift_runs))),
        ("  of which imports", f"{statistics.median(r['import'] for r in drift_runs):.2f} s", ""),
        ("  of which fetch_sources", f"{statistics.median(r['fetch'] for r in drift_runs):.2f} s", ""),
        ("    settings + index lookup + zip directory", f"{statistics.median(r['resolve'] for r in drift_runs):.2f} s", ""),
        ("    range reads of the members", f"{statistics.median(r['transfer'] for r in drift_runs):.2f} s", ""),
        ("    writing the pack (and the .dist-info files)", f"{statistics.median(r['extract'] for r in drift_runs):.2f} s", ""),
        *([("drift range fetch written out as a tree (--tree)", f"{statistics.median(r['wall'] for r in tree_runs):.2f} s",
            "")] if tree_runs else []),
        (f"plain pip download --no-deps {args.spec}", f"{p:.2f} s", mb(statistics.median(r["bytes"] for r in pip_runs))),
    ]
    print(f"\nfetch {args.spec} from nothing, {args.runs} runs each, medians")
    for name, t, b in rows:
        print(f"  {name:<50} {t:>8} {b:>10}")
    print(f"  path taken: {last['how']} — {last['detail']}")
    print(f"  members in the pack: {last['packed']}; files written: {last['files']}")
    verdict = "met" if ratio <= 0.2 else "MISSED"
    print(f"\n  ratio drift/pip: {ratio:.3f}x (target <= 0.2x): {verdict}")
    if args.json:
        Path(args.json).write_text(json.dumps({"drift": drift_runs, "pip": pip_runs, "tree": tree_runs, "ratio": ratio},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
