"""Fetching vllm==0.16.0 from an empty cache: drift's range fetch of the .py files vs plain pip.

One script, one run, side by side, alternating which goes first: each drift run is a fresh
interpreter calling `drift.fetch.fetch_sources` into an empty cache (imports, pip settings,
index lookup, range reads, extraction all counted); each pip run is
`pip download --no-deps vllm==0.16.0` with a fresh pip cache directory (so pip cannot serve
the wheel from its HTTP cache of a previous run). Both use the machine's pip configuration.
Prints medians, the ratio and the bytes each moved.

    python benchmarks/bench_fetch.py [--runs 3] [--spec vllm==0.16.0] [--no-keep-wheel] [--tree] [--json out.json]

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
from drift.fetch import fetch_sources
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
    args = ap.parse_args()
    from drift.fetch import cache_root

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
