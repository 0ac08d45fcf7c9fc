"""The host probe's cold read of a consumer, this tree against an older one, in the same run.

Issue 22's probe target: `probes.consumer_scan.consumer_usage` of the largest corpus consumer
(vllm-omni 0.22.0, from its PyPI wheel) with a fresh cache each run costs no more than 1.5x the
tree's from before the inference (`44a9d87`). bench_probe.py times a whole vLLM release's probe
and bench_cold.py drift's check; neither times this read, so both trees are timed here, in
alternating rounds (the machine's load moves; a pair shares a window).

Each sample is a fresh interpreter with one tree first on sys.path, timing only the call: CPU of
the parent and of the forked readers it reaps (`getrusage` SELF + CHILDREN). The older tree is
checked out once with `git worktree add --detach /tmp/wt-<sha> <sha>`.

`--identity REF` checks that a speed change kept the facts: each consumer (vllm-omni 0.22.0,
vllm-ascend 0.18.0, speculators 0.3.0 by default) is read by REF's probe and by this tree's,
each into a fresh cache under one PYTHONHASHSEED, and the two outputs' marshal bytes must be equal.

Wheels are fetched with `pip download --no-deps` into --cache (outside the repository) and their
`.py` files and dist-info unzipped beside them.

    python benchmarks/bench_probe_cold.py [--runs 3] [--old 44a9d87] [--consumer vllm-omni==0.22.0]
    python benchmarks/bench_probe_cold.py --runs 0 --identity c74d912 [--identity-consumers A==1 B==2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("DRIFT_BENCH_CACHE", Path.home() / ".cache" / "drift-bench" / "probe-cold"))
TARGET = 1.5
IDENTITY_CONSUMERS = ["vllm-omni==0.22.0", "vllm-ascend==0.18.0", "speculators==0.3.0"]

_CHILD = r"""
import hashlib, inspect, json, marshal, resource, sys, time
sys.path.insert(0, %(tree)r)
from probes.consumer_scan import consumer_usage
assert consumer_usage.__code__.co_filename.startswith(%(tree)r), consumer_usage.__code__.co_filename

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

c0, t0 = cpu(), time.perf_counter()
out = consumer_usage(%(root)r, %(package)r, ["vllm"], use_importlib=False, cache_dir=%(cache)r)
c1, t1 = cpu(), time.perf_counter()
doc = {"cpu": c1 - c0, "wall": t1 - t0, "modules": len(out["modules"])}
if %(digest)r:
    doc["sha256"] = hashlib.sha256(marshal.dumps(out, 2)).hexdigest()
    doc["bytes"] = len(marshal.dumps(out, 2))
print(json.dumps(doc))
"""


def _dist(spec: str) -> tuple[str, str]:
    name, _, version = spec.partition("==")
    return name, version


def consumer_root(spec: str) -> tuple[Path, str]:
    """(folder holding the unzipped wheel's files, its import package) of `name==version`."""
    name, version = _dist(spec)
    norm = name.replace("-", "_").lower()
    root = CACHE / "src" / f"{norm}-{version}"
    if not root.is_dir():
        wheels = CACHE / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        found = sorted(wheels.glob(f"{norm}-{version}-*.whl"))
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                            "-d", str(wheels), spec], check=True, stdout=subprocess.DEVNULL)
            found = sorted(wheels.glob(f"{norm}-{version}-*.whl"))
        (CACHE / "src").mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=CACHE / "src"))
        with zipfile.ZipFile(found[0]) as zf:
            for member in zf.namelist():
                if member.endswith(".py") or ".dist-info/" in member:
                    zf.extract(member, tmp)
        os.replace(tmp, root)
    return root, norm


def worktree(ref: str) -> Path:
    """`ref`'s tree, checked out once beside this one (`git worktree add --detach`)."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", ref], capture_output=True, text=True,
                         check=True).stdout.strip()
    path = Path(f"/tmp/wt-{sha}")
    if not (path / "probes" / "consumer_scan.py").is_file():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), sha], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def sample(tree: Path, root: Path, package: str, *, digest: bool = False) -> dict:
    """One cold read in a fresh interpreter, with a fresh cache dir."""
    with tempfile.TemporaryDirectory(prefix="drift-probe-cold-") as cache:
        code = _CHILD % {"tree": str(tree), "root": str(root), "package": package, "cache": cache,
                         "digest": digest}
        env = dict(os.environ, PYTHONHASHSEED="0")
        env.pop("PYTHONPATH", None)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cache)
        if out.returncode:
            raise SystemExit(f"the read in {tree} failed:\n{out.stderr[-3000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def _load() -> str:
    return "%.1f" % os.getloadavg()[0]


def timed(old: Path, new: Path, root: Path, package: str, runs: int) -> dict:
    rows: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(runs):
        order = [("old", old), ("new", new)] if i % 2 == 0 else [("new", new), ("old", old)]
        for label, tree in order:
            got = sample(tree, root, package)
            got["load"] = _load()
            rows[label].append(got)
            print(f"  round {i + 1} {label:3} cpu {got['cpu']:6.2f} s  wall {got['wall']:6.2f} s  "
                  f"modules {got['modules']}  load {got['load']}  {time.strftime('%H:%M:%S', time.gmtime())}Z",
                  flush=True)
    return rows


def identity(ref: Path, new: Path, specs: list[str]) -> bool:
    same = True
    for spec in specs:
        root, package = consumer_root(spec)
        a, b = sample(ref, root, package, digest=True), sample(new, root, package, digest=True)
        ok = a["sha256"] == b["sha256"]
        same &= ok
        print(f"  {spec:24} {'IDENTICAL' if ok else 'DIFFERENT'}  {b['bytes']:,} bytes, {b['modules']} modules  "
              f"(cpu {a['cpu']:.2f} s -> {b['cpu']:.2f} s)", flush=True)
    return same


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="alternating rounds (0: none)")
    ap.add_argument("--old", default="44a9d87", help="the tree to compare with (default: before the inference)")
    ap.add_argument("--consumer", default="vllm-omni==0.22.0")
    ap.add_argument("--identity", metavar="REF", help="check that REF's probe and this tree's read the same facts")
    ap.add_argument("--identity-consumers", nargs="+", default=IDENTITY_CONSUMERS)
    ap.add_argument("--json", type=Path, help="write the samples here")
    args = ap.parse_args(argv)
    doc: dict = {}
    ok = True
    if args.runs:
        root, package = consumer_root(args.consumer)
        old = worktree(args.old)
        print(f"cold read of {args.consumer} ({root}): {args.old} ({old}) vs this tree ({REPO}), "
              f"{args.runs} alternating rounds, load {_load()}", flush=True)
        rows = timed(old, REPO, root, package, args.runs)
        med = {k: statistics.median(r["cpu"] for r in v) for k, v in rows.items()}
        ratio = med["new"] / med["old"]
        print(f"median CPU: {args.old} {med['old']:.2f} s, this tree {med['new']:.2f} s: "
              f"{ratio:.2f}x (target <= {TARGET}x: {'met' if ratio <= TARGET else 'MISSED'})")
        doc.update(rows=rows, median=med, ratio=ratio)
    if args.identity:
        print(f"facts of {args.identity}'s probe vs this tree's (marshal bytes, fresh caches):", flush=True)
        same = identity(worktree(args.identity), REPO, args.identity_consumers)
        doc["identical"] = same
        ok &= same
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
