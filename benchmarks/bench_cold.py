"""The cold path of issue 12, side by side in one run: demand-driven facts against whole-package
facts, mypy and plain `pip download`.

Rows (medians over --runs, each a fresh interpreter; peak RSS of that interpreter):
- the command `drift check speculators==0.3.0 -t vllm==0.16.0 -b vllm==0.11.0`, releases on disk,
  no facts cache: the figure set against mypy's command (drift's bytecode compiled first, as an
  installed drift has it);
- check, releases on disk, no facts cache: speculators 0.3.0 vs vLLM 0.16.0 (baseline 0.11.0),
  demand-driven (today) and whole-package (every module parsed, as before issue 12);
- the same check warm (second run, same cache);
- mypy on the same consumer files with the same vLLM sources on its path;
- check from nothing (empty drift cache: the range fetch of three releases, then the check), the
  command `drift check speculators==0.3.0 -t vllm==0.16.0` (baseline from its metadata) and the
  same in a script, beside `pip download --no-deps` of the same three wheels (empty pip cache);
- gate over five vLLM releases, sources on disk, no facts cache, demand-driven vs whole.

    python benchmarks/bench_cold.py [--runs 3] [--nothing-runs 1] [--no-download] [--only nothing] [--json out.json]

Targets: cold check <= 0.12x mypy; check from nothing <= 0.2x the plain download; cold gate
over five releases <= 10 s; warm no worse than whole-package facts warm.
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
sys.path.insert(0, str(REPO))

CONSUMER, TARGET, BASELINE = "speculators==0.3.0", "vllm==0.16.0", "vllm==0.11.0"
GATE = ["vllm==0.12.0", "vllm==0.13.0", "vllm==0.14.0", "vllm==0.16.0", "vllm==0.11.1"]
SOURCES = ["speculators-0.3.0", "vllm-0.16.0", "vllm-0.11.0", "vllm-0.12.0", "vllm-0.13.0", "vllm-0.14.0",
           "vllm-0.11.1"]

_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, %(repo)r)
t0 = time.perf_counter()
import drift.pipeline.run as P
if os.environ.get("BENCH_WHOLE"):  # every module parsed up front: the path before issue 12
    _load = P.load_facts
    P.load_facts = lambda *a, **k: _load(*a, **dict(k, demand=False))
targets = json.loads(os.environ["BENCH_TARGETS"])
t1 = time.perf_counter()
consumer, outcomes = P.run(consumer_spec=%(consumer)r, target_specs=targets, baseline_spec=os.environ.get("BENCH_BASELINE") or None)
t2 = time.perf_counter()
o = outcomes[-1]
assert o.report is not None, o.error
print(json.dumps({"import": t1 - t0, "run": t2 - t1, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "findings": sorted([f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title]
                                     for o in outcomes for f in o.report.findings)}))
"""


def child(cache: str, targets: list[str], *, whole: bool = False, baseline: str = "") -> dict:
    env = dict(os.environ, DRIFT_CACHE=cache, BENCH_TARGETS=json.dumps(targets), BENCH_BASELINE=baseline)
    env.pop("BENCH_WHOLE", None)
    if whole:
        env["BENCH_WHOLE"] = "1"
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD % {"repo": str(REPO), "consumer": CONSUMER}], env=env,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["wall"] = wall
    return row


def cli_once(cache: str, *, baseline: bool = True) -> dict:
    """The command a user types (`drift check ...`, the console script's entry), as mypy is
    timed as its command: report rendered and written, interpreter start and exit included.
    `baseline=False`: no `-b`, the baseline read from the consumer's metadata (from nothing, it
    is then known only once the consumer's wheel is read)."""
    env = dict(os.environ, DRIFT_CACHE=cache)
    given = ["-b", BASELINE] if baseline else []
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'drift'; from drift.cli import entry; entry()",
                            "check", CONSUMER, "-t", TARGET, *given, "--format", "json", "-o", out.name],
                           env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode not in (0, 1):
            raise SystemExit(p.stderr[-3000:])
    return {"wall": wall}


def compile_drift() -> None:
    """Bytecode for drift's own modules, as `pip install` writes it for a user. Why: an
    environment with PYTHONDONTWRITEBYTECODE (this machine's) would otherwise compile drift
    from source in every timed child (~0.2 s of import), a cost no installed drift pays."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "drift"), str(REPO / "probes")], check=True)


def linked_cache(tmp: str, real: Path) -> str:
    """A drift cache holding the fetched sources (links) and nothing parsed."""
    os.makedirs(os.path.join(tmp, "sources"))
    for name in SOURCES:
        os.symlink(real / "sources" / name, os.path.join(tmp, "sources", name))
    if (real / "pip-settings.json").exists():
        os.symlink(real / "pip-settings.json", os.path.join(tmp, "pip-settings.json"))
    return tmp


def mypy_once(spec_src: Path, vllm_src: Path) -> float:
    files = [str(spec_src / "speculators/data_generation/vllm_hidden_states_generator.py"),
             str(spec_src / "speculators/data_generation/custom_worker.py")]
    with tempfile.TemporaryDirectory() as cache_dir:
        t = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent",
                              "--no-error-summary", "--cache-dir", cache_dir, "--python-version", "3.11", *files],
                             env=dict(os.environ, MYPYPATH=f"{vllm_src}:{spec_src}"), capture_output=True, text=True)
        took = time.perf_counter() - t
    # mypy exits 1 for type errors (a real run); anything else means it did not check the files, and a
    # 0.03 s "No module named mypy" must not pass as the peer.
    if run.returncode not in (0, 1):
        raise SystemExit(f"bench_cold: mypy did not run (exit {run.returncode}): "
                         f"{(run.stderr or run.stdout).strip()[:300]}; pip install -e '.[bench]'")
    return took


def pip_download_once() -> float:
    """The three wheels, one `pip download` each (pip resolves one version per project a run)."""
    with tempfile.TemporaryDirectory() as dest, tempfile.TemporaryDirectory() as pipcache:
        t = time.perf_counter()
        for spec in (CONSUMER, TARGET, BASELINE):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                            "--cache-dir", pipcache, "-d", dest, spec], check=True, capture_output=True)
        return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nothing-runs", type=int, default=1)
    ap.add_argument("--no-download", action="store_true", help="skip the from-nothing rows (no network)")
    ap.add_argument("--only", choices=["nothing"], help="only the from-nothing row beside pip download (while iterating)")
    ap.add_argument("--json")
    args = ap.parse_args()
    from drift.sources.cache import cache_root
    from drift.sources.fetch import fetch_sources

    for spec in [CONSUMER, TARGET, BASELINE, *GATE] if not args.only else []:
        fetch_sources(spec)
    real = cache_root()
    compile_drift()
    rows: dict[str, list] = {k: [] for k in ("cli_cold", "demand_cold", "demand_warm", "whole_cold", "whole_warm", "mypy",
                                             "gate_demand", "gate_whole", "nothing", "nothing_script", "pip")}
    same = True
    for _ in range(args.runs if not args.only else 0):  # alternate, so load on the shared machine hits every column alike
        with tempfile.TemporaryDirectory() as tmp:
            c = linked_cache(tmp, real)
            rows["demand_cold"].append(child(c, [TARGET]))
            rows["demand_warm"].append(child(c, [TARGET]))
        with tempfile.TemporaryDirectory() as tmp:
            rows["cli_cold"].append(cli_once(linked_cache(tmp, real)))
        with tempfile.TemporaryDirectory() as tmp:
            c = linked_cache(tmp, real)
            rows["whole_cold"].append(child(c, [TARGET], whole=True))
            rows["whole_warm"].append(child(c, [TARGET], whole=True))
        same &= rows["demand_cold"][-1]["findings"] == rows["whole_cold"][-1]["findings"]
        rows["mypy"].append({"wall": mypy_once(real / "sources" / "speculators-0.3.0", real / "sources" / "vllm-0.16.0")})
        with tempfile.TemporaryDirectory() as tmp:
            rows["gate_demand"].append(child(linked_cache(tmp, real), GATE, baseline=BASELINE))
        with tempfile.TemporaryDirectory() as tmp:
            rows["gate_whole"].append(child(linked_cache(tmp, real), GATE, whole=True, baseline=BASELINE))
        same &= rows["gate_demand"][-1]["findings"] == rows["gate_whole"][-1]["findings"]
    print("local rows:", json.dumps({k: statistics.median(r["wall"] for r in v) for k, v in rows.items() if v}),
          flush=True)
    if not args.no_download:
        for _ in range(args.nothing_runs):
            with tempfile.TemporaryDirectory() as tmp:
                rows["nothing"].append(cli_once(tmp, baseline=False))  # the command, as the pip downloads are
            with tempfile.TemporaryDirectory() as tmp:
                rows["nothing_script"].append(child(tmp, [TARGET]))  # the same in a script: its analysis time
            rows["pip"].append({"wall": pip_download_once()})

    med = {k: {m: statistics.median(r[m] for r in v) for m in v[0] if m != "findings"} for k, v in rows.items() if v}
    print(f"{'row':<34}{'wall s':>9}{'analysis s':>12}{'peak RSS MB':>13}")
    for k, v in med.items():
        print(f"{k:<34}{v['wall']:>9.2f}{v.get('run', float('nan')):>12.2f}{v.get('rss_mb', float('nan')):>13.0f}")
    if args.only == "nothing":
        n, p = med["nothing"]["wall"], med["pip"]["wall"]
        print(f"check from nothing (the command) {n:.2f} s vs pip download of the three wheels {p:.2f} s = {n / p:.2f}x "
              f"(target <= 0.2x): {'met' if n <= 0.2 * p else 'MISSED'}; in a script {med['nothing_script']['wall']:.2f} s")
        return 0
    print(f"same findings demand vs whole (check and gate): {same}")
    mypy = med["mypy"]["wall"]
    cold = med["cli_cold"]["wall"]
    print(f"cold check (the command) {cold:.2f} s vs mypy {mypy:.2f} s = {cold / mypy:.2f}x (target <= 0.12x): "
          f"{'met' if cold <= 0.12 * mypy else 'MISSED'}; in a script {med['demand_cold']['wall']:.2f} s; "
          f"whole-package cold {med['whole_cold']['wall']:.2f} s")
    print(f"warm check demand {med['demand_warm']['wall']:.2f} s vs whole {med['whole_warm']['wall']:.2f} s: "
          f"{'met' if med['demand_warm']['wall'] <= med['whole_warm']['wall'] * 1.05 else 'MISSED'}")
    print(f"cold gate over five releases {med['gate_demand']['wall']:.2f} s (whole {med['gate_whole']['wall']:.2f} s; "
          f"target <= 10 s): {'met' if med['gate_demand']['wall'] <= 10 else 'MISSED'}")
    if "nothing" in med:
        n, p = med["nothing"]["wall"], med["pip"]["wall"]
        print(f"check from nothing (the command) {n:.2f} s vs pip download of the three wheels {p:.2f} s = {n / p:.2f}x "
              f"(target <= 0.2x): {'met' if n <= 0.2 * p else 'MISSED'}; in a script {med['nothing_script']['wall']:.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"medians": med, "same_findings": same}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
