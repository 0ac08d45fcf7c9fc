"""The whole `drift scan` path, one host and a fleet, over real sshds on 127.0.0.1.

Each measured scan runs in a fresh interpreter (so nothing decoded in memory carries over) and
times `drift.pipeline.scan.scan_connector` with its SSH connect: probe of the host's vLLM 0.16.0, the
speculators 0.3.0 usage, the baseline vLLM 0.11.0 facts and the check. Host = the cached test
venv of tests/sshd_fixtures.py; sources come from drift's cache (linked, never re-downloaded).

    python benchmarks/bench_scan.py [--runs 3] [--hosts 32] [--login-shell clean|as-is] [--json out.json]

Rows (medians of --runs): one host cold (host probe cache and drift's facts store empty), the
same with the whole-package host probe (`ScanSettings(demand=False)`, the path before issue 12)
alternating with it, one
host warm (both filled: the host answers "unchanged"), what one follow-up exchange costs on an
open connection (a new channel, a new `python -`, the re-sent bundle, the probe's `more`), the
`drift scan` CLI warm in a
subprocess, 32 hosts first seen by drift (same vLLM), 32 hosts warm with forks 8 and 32, and
peak memory (RSS, tracemalloc) for 1, 8 and 32 hosts. Stage times come from timers wrapped
around drift.pipeline.scan's collaborators in the child. The bench sshds run with root's ~/.bashrc
masked (a private mount namespace) because sshd runs each command through the login shell and
this machine's pyenv init costs ~0.2 s per command; the as-is cost is measured and printed.
The 32 "hosts" share this machine's CPUs with drift, so the drift process's own CPU time is
printed too: it bounds the fleet time whatever the hosts are.

Targets: one host <= 1.5 s cold, <= 0.5 s warm; 32 hosts <= 3 s; memory flat in the hosts.
Needs root, /usr/sbin/sshd, ssh-keygen and unshare; starts --hosts + 1 sshds, stops them all.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BASELINE = "vllm-0.11.0"  # speculators 0.3.0 pins vllm==0.11.0; its sources must be cached


# ------------------------------------------------------------------ child: one fresh drift process

def _child(cfg: dict) -> dict:
    """Run `scans` single-host scans or one fleet scan; report times, stages and memory."""
    import asyncio
    import gc
    import resource
    import tracemalloc

    t0 = time.perf_counter()
    import drift.pipeline.scan as scan_mod
    from drift.remote.connectors.ssh import connect
    from drift.remote.fleet import run_fleet
    from drift.probes import bundle

    import_s = time.perf_counter() - t0
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    rss_import_mb, cpu0 = usage0.ru_maxrss / 1024, usage0.ru_utime + usage0.ru_stime
    stages: dict[str, float] = {}
    seen: dict[str, object] = {"unchanged": [], "wire_bytes": []}

    def timed(name, fn, is_async=False):  # stage timers around drift.pipeline.scan's collaborators
        if is_async:
            async def wrapper(*a, **kw):
                t = time.perf_counter()
                try:
                    return await fn(*a, **kw)
                finally:
                    stages[name] = stages.get(name, 0.0) + time.perf_counter() - t
        else:
            def wrapper(*a, **kw):
                t = time.perf_counter()
                try:
                    return fn(*a, **kw)
                finally:
                    stages[name] = stages.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    real_probe, real_decode = scan_mod.probe, bundle.decode_output

    async def probe_spy(*a, **kw):
        res = await real_probe(*a, **kw)
        pkg = ((res.facts or {}).get("packages") or {}).get("vllm") or {}
        seen["unchanged"].append(bool(pkg.get("unchanged")))
        return res

    def decode_spy(data, **kw):
        seen["wire_bytes"].append(len(data))
        return real_decode(data, **kw)

    bundle.decode_output = decode_spy
    if hasattr(bundle, "decode_reply"):  # what drift.remote.probe reads replies with
        real_reply = bundle.decode_reply

        def reply_spy(data, **kw):
            seen["wire_bytes"].append(len(data))
            return real_reply(data, **kw)

        bundle.decode_reply = reply_spy
    scan_mod.probe = timed("probe", probe_spy, is_async=True)
    for name in ("load_facts", "check", "_load_cached", "_store", "_check", "_keep_merged"):
        if hasattr(scan_mod, name):  # the stages scan.py has today
            setattr(scan_mod, name, timed(name, getattr(scan_mod, name)))
    # the baseline speculators pins, given: drift reads it while the host probes (issue 12)
    extra = {"ahead": cfg["ahead"]} if "ahead" in cfg else {}  # ScanSettings.ahead: on unless told
    settings = scan_mod.ScanSettings(python=cfg["python"], host_cache_dir=cfg["host_cache_dir"],
                                     baseline="vllm==0.11.0", demand=cfg.get("demand", True), **extra)
    ssh = cfg["ssh"]

    async def one(spec: str):
        t = time.perf_counter()
        conn = await connect(spec, identity=[ssh["identity"]], known_hosts=ssh["known_hosts"],
                             config_file=ssh["config"], connect_timeout=10, keepalive=15)
        stages["connect"] = stages.get("connect", 0.0) + time.perf_counter() - t
        try:
            return await scan_mod.scan_connector(conn, host=spec, settings=settings)
        finally:
            await conn.close()

    def check_ok(result) -> None:
        if result.status not in ("ok", "drift"):
            raise SystemExit(f"scan failed: {result.reason}")

    if cfg.get("trace"):
        tracemalloc.start()
    out: dict = {"import_s": import_s, "rss_import_mb": rss_import_mb}
    if cfg["mode"] == "single":
        times, breaking, host_s = [], None, []
        for _ in range(cfg.get("scans", 1)):
            t = time.perf_counter()
            res = asyncio.run(one(cfg["hosts"][0]))
            times.append(time.perf_counter() - t)
            check_ok(res)
            breaking = len(res.outcome.report.breaking)
            host_s.append((res.probe_stats or {}).get("elapsed_s"))
            findings = sorted([f.rule_id, f.consumer_site.path, f.consumer_site.line, f.title]
                              for f in res.outcome.report.findings)
        out.update(times=times, breaking=breaking, stages=stages, host_probe_s=host_s, findings=findings,
                   exchanges=(res.probe_stats or {}).get("exchanges", 1),
                   check_runs=(res.probe_stats or {}).get("check_runs"),
                   parsed_on_host=(res.probe_stats or {}).get("parsed_on_host"))
        kept = [res]
    else:
        t = time.perf_counter()
        outcomes = asyncio.run(run_fleet(cfg["hosts"], one, forks=cfg["forks"], classify=lambda s: s.status))
        out["fleet_s"] = time.perf_counter() - t
        for o in outcomes:
            if o.value is None:
                raise SystemExit(f"{o.name}: {o.status}: {o.reason}")
            check_ok(o.value)
        out["statuses"] = sorted({o.status for o in outcomes})
        kept = outcomes
    gc.collect()
    if cfg.get("trace"):
        current, peak = tracemalloc.get_traced_memory()
        out.update(traced_retained_mb=current / 2**20, traced_peak_mb=peak / 2**20)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.update(rss_peak_mb=usage.ru_maxrss / 1024, kept=len(kept), cpu_s=usage.ru_utime + usage.ru_stime - cpu0,
               unchanged=seen["unchanged"], wire_bytes=seen["wire_bytes"])
    return out


def drift_env(drift_cache: Path) -> dict:
    """The environment of a drift process: its facts cache, and bytecode cached as after an install
    (kept in a prefix dir under the cache so the checkout is not written to)."""
    env = dict(os.environ, DRIFT_CACHE=str(drift_cache), PYTHONPYCACHEPREFIX=str(drift_cache.parent / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_child(cfg: dict, *, drift_cache: Path, script: str = __file__) -> dict:
    env = drift_env(drift_cache)
    proc = subprocess.run([sys.executable, script, "--child", json.dumps(cfg)], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {proc.stderr[-3000:]}{proc.stdout[-1000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ parent: servers, caches, rows

def fresh_drift_cache(parent: Path, real_cache: Path) -> Path:
    """An empty facts store whose sources/ links to the fetched baseline (nothing re-downloaded)."""
    root = Path(tempfile.mkdtemp(prefix="dc-", dir=parent))
    (root / "sources").mkdir()
    os.symlink(real_cache / "sources" / BASELINE, root / "sources" / BASELINE)
    return root


def clean_shell_sshd(work: Path, sshd: str) -> Path:
    """A wrapper that runs sshd in a private mount namespace where root's ~/.bashrc is empty.

    sshd runs every command through the user's shell, and bash sources ~/.bashrc for it; on
    this machine that is `pyenv init` (~0.2 s per command), which is not drift's cost.
    """
    wrapper = work / "sshd-clean-shell"
    bashrc = Path("~/.bashrc").expanduser()
    if not bashrc.is_file():
        return Path(sshd)
    wrapper.write_text("#!/bin/sh\nexec unshare -m sh -c 'mount --bind /dev/null \"$0\" && exec "
                       f"{sshd} \"$@\"' {bashrc} \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper


async def _exec_overhead(server, *, runs: int) -> float:
    from drift.remote.connectors.ssh import connect

    conn = await connect(server.spec, **server.connect_kwargs())
    try:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            await conn.run(["true"])
            times.append(time.perf_counter() - t)
        return statistics.median(times)
    finally:
        await conn.close()


def exec_overhead(server, *, runs: int) -> float:
    """Median wall time of running `true` on an open connection (one SSH exec channel)."""
    import asyncio

    return asyncio.run(_exec_overhead(server, runs=runs))


async def _exchange_cost(server, *, python: str, host_cache: str, runs: int) -> dict:
    from drift.remote.connectors.script import run_script
    from drift.probes.bundle import build_script
    from drift.remote.probe import probe

    def more(needles):
        return {"packages": ["vllm"], "env_packages": [], "cache_dir": host_cache, "known": {},
                "more": {"modules": [], "needles": needles, "have": []}}

    rare = [["block_hashes_xyz", r"(?<![A-Za-z0-9_])block_hashes_xyz(?![A-Za-z0-9_])"]]
    script = build_script(more([]))
    conn = await connect_server(server)
    try:
        rows = {}
        for label, job in (
                ("channel (`true`)", lambda: conn.run(["true"])),
                ("`python -`, empty script", lambda: run_script(conn, python, "pass")),
                ("`python -`, the probe bundle sent, not run", lambda: run_script(conn, python, script.decode().replace(
                    'if __name__ == "__main__":\n    _main()', "pass"))),
                ("follow-up asking nothing", lambda: probe(conn, more([]), python=python, validate=lambda d, r: None)),
                ("follow-up asking one rare search", lambda: probe(conn, more(rare), python=python,
                                                                  validate=lambda d, r: None))):
            await job()
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                await job()
                times.append(time.perf_counter() - t)
            rows[label] = statistics.median(times)
        rows["bundle bytes"] = len(script)
        return rows
    finally:
        await conn.close()


async def connect_server(server):
    from drift.remote.connectors.ssh import connect

    return await connect(server.spec, **server.connect_kwargs())


def exchange_cost(server, *, python: str, host_cache: str, runs: int) -> dict:
    """What one follow-up exchange of a demand scan costs on an open connection, split: a new
    exec channel, a new `python -`, the probe bundle (re-sent every time), and the probe's
    `more` over the host's vLLM with its cache filled by a cold scan."""
    import asyncio

    return asyncio.run(_exchange_cost(server, python=python, host_cache=host_cache, runs=runs))


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def cli_scan(server_spec: str, *, python: str, ssh: dict, drift_cache: Path) -> tuple[float, int]:
    script = Path(sys.executable).parent / "drift"
    argv = [str(script)] if script.exists() else [sys.executable, "-c", "import sys; from drift.cli import main; "
                                                  "sys.exit(main())"]
    argv += ["scan", server_spec, "--python", python, "-i", ssh["identity"], "--known-hosts", ssh["known_hosts"],
             "-F", ssh["config"]]
    t = time.perf_counter()
    proc = subprocess.run(argv, env=drift_env(drift_cache), capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"drift scan exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed, proc.returncode


def measure(args, *, python: str, servers: list, ssh: dict, work: Path, real_cache: Path) -> dict:
    specs = [s.spec for s in servers]
    base = {"python": python, "ssh": ssh}
    res: dict = {"python": python, "hosts": len(servers), "runs": args.runs, "cpus": os.cpu_count(),
                 "loadavg_before": os.getloadavg()[0]}

    cold, whole, against = [], [], []
    for i in range(args.runs):  # demand-driven host probe and the whole-package one, alternating
        if args.against:  # the same cold scan by another drift tree (its own probe on the host), first
            adc, ahc = fresh_drift_cache(work, real_cache), str(work / f"hostcache-against-{i}")
            against.append(run_child({**base, "mode": "single", "hosts": specs[:1], "host_cache_dir": ahc},
                                     drift_cache=adc, script=str(Path(args.against) / "benchmarks" / "bench_scan.py")))
        dc, hc = fresh_drift_cache(work, real_cache), str(work / f"hostcache-cold-{i}")
        cold.append(run_child({**base, "mode": "single", "hosts": specs[:1], "host_cache_dir": hc}, drift_cache=dc))
        if args.cold_only:
            continue
        wdc, whc = fresh_drift_cache(work, real_cache), str(work / f"hostcache-whole-{i}")
        whole.append(run_child({**base, "mode": "single", "hosts": specs[:1], "host_cache_dir": whc, "demand": False,
                                "scans": 2}, drift_cache=wdc))
    res["cold"] = {"median_s": med([c["times"][0] for c in cold]), "samples": [c["times"][0] for c in cold],
                   "stages": cold[-1]["stages"], "wire_bytes": cold[-1]["wire_bytes"],
                   "breaking": cold[-1]["breaking"], "import_s": med([c["import_s"] for c in cold]),
                   "host_probe_s": med([c["host_probe_s"][0] for c in cold]),
                   "exchanges": cold[-1]["exchanges"], "parsed_on_host": cold[-1]["parsed_on_host"],
                   "check_runs": cold[-1].get("check_runs"),
                   "rss_peak_mb": med([c["rss_peak_mb"] for c in cold])}
    if against:
        res["against"] = {"tree": args.against, "median_s": med([a["times"][0] for a in against]),
                          "samples": [a["times"][0] for a in against],
                          "host_probe_s": med([a["host_probe_s"][0] for a in against]),
                          "exchanges": against[-1]["exchanges"], "parsed_on_host": against[-1]["parsed_on_host"],
                          "wire_bytes": against[-1]["wire_bytes"],
                          "same_findings": all(a["findings"] == cold[0]["findings"] for a in against + cold)}
    if args.cold_only:
        res["loadavg_after"] = os.getloadavg()[0]
        return res
    res["whole_cold"] = {"median_s": med([w["times"][0] for w in whole]), "samples": [w["times"][0] for w in whole],
                         "stages": whole[-1]["stages"], "wire_bytes": whole[-1]["wire_bytes"],
                         "host_probe_s": med([w["host_probe_s"][0] for w in whole]),
                         "rss_peak_mb": med([w["rss_peak_mb"] for w in whole]),
                         "warm_second_s": med([w["times"][1] for w in whole])}
    res["same_findings"] = all(c["findings"] == whole[0]["findings"] for c in cold + whole)

    res["exchange_cost"] = exchange_cost(servers[0], python=python, host_cache=hc, runs=max(5, args.runs))
    # the last cold run filled both caches: from here on everything is warm
    warm_dc, warm_hc = dc, hc
    warm_base = {**base, "host_cache_dir": warm_hc}
    warm = [run_child({**warm_base, "mode": "single", "hosts": specs[:1], "scans": 2}, drift_cache=warm_dc)
            for _ in range(args.runs)]
    res["warm"] = {"median_s": med([w["times"][0] for w in warm]), "samples": [w["times"][0] for w in warm],
                   "exchanges": warm[-1]["exchanges"],
                   "second_in_process_s": med([w["times"][1] for w in warm]), "stages_two_scans": warm[-1]["stages"],
                   "unchanged": warm[-1]["unchanged"], "wire_bytes": warm[-1]["wire_bytes"],
                   "import_s": med([w["import_s"] for w in warm]), "rss_peak_mb": warm[-1]["rss_peak_mb"],
                   "host_probe_s": med([w["host_probe_s"][0] for w in warm])}

    # the CLI warms the host's default cache (~/.cache/drift/probe) once, then is timed
    cli_scan(specs[0], python=python, ssh=ssh, drift_cache=warm_dc)
    cli = [cli_scan(specs[0], python=python, ssh=ssh, drift_cache=warm_dc) for _ in range(args.runs)]
    res["cli_warm"] = {"median_s": med([c[0] for c in cli]), "samples": [c[0] for c in cli], "exit": cli[-1][1]}

    # first contact: every other host is new to drift (no <host>.latest), same vLLM digest
    first = run_child({**warm_base, "mode": "fleet", "hosts": specs, "forks": 8}, drift_cache=warm_dc)
    res["fleet_first_contact_f8"] = {"s": first["fleet_s"], "unchanged": sum(first["unchanged"]), "cpu_s": first["cpu_s"],
                                     "wire_mb": sum(first["wire_bytes"]) / 2**20, "rss_peak_mb": first["rss_peak_mb"]}
    for forks in (8, 32):
        runs = [run_child({**warm_base, "mode": "fleet", "hosts": specs, "forks": forks}, drift_cache=warm_dc)
                for _ in range(args.runs)]
        res[f"fleet_warm_f{forks}"] = {"median_s": med([r["fleet_s"] for r in runs]),
                                       "samples": [r["fleet_s"] for r in runs],
                                       "unchanged": sum(runs[-1]["unchanged"]), "statuses": runs[-1]["statuses"],
                                       "rss_peak_mb": med([r["rss_peak_mb"] for r in runs]),
                                       "cpu_s": med([r["cpu_s"] for r in runs])}

    memory = []
    for n, forks in ((1, 8), (8, 8), (len(specs), 8), (8, 32), (len(specs), 32)):
        if n > len(specs) or (forks == 32 and n == 1):
            continue
        r = run_child({**warm_base, "mode": "fleet", "hosts": specs[:n], "forks": forks, "trace": True},
                      drift_cache=warm_dc)
        memory.append({"hosts": n, "forks": forks, "rss_peak_mb": r["rss_peak_mb"], "rss_import_mb": r["rss_import_mb"],
                       "traced_peak_mb": r["traced_peak_mb"], "traced_retained_mb": r["traced_retained_mb"]})
    res["memory"] = memory
    res["loadavg_after"] = os.getloadavg()[0]
    return res


def verdicts(res: dict) -> list[tuple[str, str, bool]]:
    mem = {(m["hosts"], m["forks"]): m for m in res["memory"]}
    n = res["hosts"]
    flat_rows = [mem[k] for k in ((1, 8), (8, 8), (n, 8)) if k in mem]
    growth = max(m["rss_peak_mb"] for m in flat_rows) - min(m["rss_peak_mb"] for m in flat_rows)
    per_host = [(mem[(n, 32)]["rss_peak_mb"] - mem[(1, 8)]["rss_peak_mb"]) / (n - 1)] if (n, 32) in mem else []
    fleet = max(res["fleet_warm_f8"]["median_s"], res["fleet_warm_f32"]["median_s"])
    best_fleet = min(res["fleet_warm_f8"]["median_s"], res["fleet_warm_f32"]["median_s"])
    return [
        ("one host cold <= 1.5 s", f"{res['cold']['median_s']:.2f} s", res["cold"]["median_s"] <= 1.5),
        ("one host warm <= 0.5 s", f"{res['warm']['median_s']:.2f} s", res["warm"]["median_s"] <= 0.5),
        (f"{n} hosts <= 3 s (best forks)", f"{best_fleet:.2f} s (worst {fleet:.2f} s)", best_fleet <= 3.0),
        ("memory flat in hosts (forks 8: 1/8/n, < 50 MB spread)", f"spread {growth:.0f} MB"
         + (f"; forks 32: {per_host[0]:.1f} MB/host" if per_host else ""), growth < 50),
    ]


def print_cold(res: dict) -> None:
    """The one-host cold rows (`--cold-only`) and, with `--against`, the other tree's beside them."""
    c = res["cold"]
    print(f"{res['cpus']} CPUs, load average {res['loadavg_before']:.1f} before, {res['loadavg_after']:.1f} after")
    rows = [("one host cold (this tree)", c)] + ([(f"one host cold ({res['against']['tree']})", res["against"])]
                                                  if "against" in res else [])
    for name, r in rows:
        print(f"{name:<48} {r['median_s']:>6.2f}s  {' '.join(f'{s:.2f}' for s in r['samples'])}; host probe "
              f"{r['host_probe_s']:.2f} s, {r['parsed_on_host']} modules parsed there, {r['exchanges']} exchanges, "
              f"wire {r['wire_bytes']} B")
    print(f"cold stages (s): {_fmt(c['stages'])}; {c['breaking']} breaking findings; {c['check_runs']} runs of the rules")
    if "against" in res:
        print(f"findings identical, this tree vs the other: {res['against']['same_findings']}")


def print_table(res: dict) -> None:
    rows = [
        ("one host cold (scan_connector)", res["cold"]["median_s"], res["cold"]["samples"]),
        ("  whole-package host probe, cold", res["whole_cold"]["median_s"], res["whole_cold"]["samples"]),
        ("one host warm (scan_connector)", res["warm"]["median_s"], res["warm"]["samples"]),
        ("  same process, second scan", res["warm"]["second_in_process_s"], []),
        ("CLI `drift scan HOST` warm", res["cli_warm"]["median_s"], res["cli_warm"]["samples"]),
        (f"{res['hosts']} hosts first contact, forks 8", res["fleet_first_contact_f8"]["s"], []),
        (f"{res['hosts']} hosts warm, forks 8", res["fleet_warm_f8"]["median_s"], res["fleet_warm_f8"]["samples"]),
        (f"{res['hosts']} hosts warm, forks 32", res["fleet_warm_f32"]["median_s"], res["fleet_warm_f32"]["samples"]),
    ]
    print(f"{res['cpus']} CPUs, load average {res['loadavg_before']:.1f} before, {res['loadavg_after']:.1f} after")
    print(f"login shell of the bench sshds: {res['login_shell']}; one SSH exec of `true`: "
          + ", ".join(f"{k} {v:.3f} s" for k, v in res["exec_true_s"].items()))
    print(f"{'row':<40} {'median':>8}  samples")
    for name, m, samples in rows:
        print(f"{name:<40} {m:>7.2f}s  {' '.join(f'{s:.2f}' for s in samples)}")
    print(f"\ncold stages (s): {_fmt(res['cold']['stages'])}; wire {res['cold']['wire_bytes']} B; "
          f"probe on the host {res['cold']['host_probe_s']:.2f} s; {res['cold']['breaking']} breaking findings; "
          f"{res['cold']['parsed_on_host']} modules parsed on the host; {res['cold']['exchanges']} exchanges, "
          f"{res['cold']['check_runs']} runs of the rules; "
          f"peak RSS {res['cold']['rss_peak_mb']:.0f} MB")
    w = res["whole_cold"]
    print(f"whole-package cold stages (s): {_fmt(w['stages'])}; wire {w['wire_bytes']} B; probe on the host "
          f"{w['host_probe_s']:.2f} s; peak RSS {w['rss_peak_mb']:.0f} MB; its warm rescan in-process "
          f"{w['warm_second_s']:.2f} s")
    print(f"findings identical, demand vs whole-package: {res['same_findings']}")
    print("one follow-up exchange on an open connection: " + ", ".join(
        f"{k} {v * 1000:.0f} ms" if not k.endswith("bytes") else f"{k} {v}" for k, v in res["exchange_cost"].items()))
    print(f"warm stages, two scans (s): {_fmt(res['warm']['stages_two_scans'])}; "
          f"unchanged={res['warm']['unchanged']} wire {res['warm']['wire_bytes']} B; "
          f"exchanges {res['warm']['exchanges']}; "
          f"probe on the host {res['warm']['host_probe_s']:.2f} s; imports {res['warm']['import_s']:.2f} s (not timed)")
    f = res["fleet_first_contact_f8"]
    print(f"first contact: {f['unchanged']} of {res['hosts']} hosts answered unchanged, {f['wire_mb']:.1f} MB "
          f"of facts crossed the wire; drift process CPU {f['cpu_s']:.2f} s")
    for forks in (8, 32):
        r = res[f"fleet_warm_f{forks}"]
        print(f"{res['hosts']} hosts warm, forks {forks}: drift process CPU {r['cpu_s']:.2f} s "
              f"({r['cpu_s'] / res['hosts'] * 1000:.0f} ms/host), statuses {r['statuses']}")
    print(f"\n{'hosts':>5} {'forks':>5} {'peak RSS MB':>12} {'RSS after import':>17} {'traced peak MB':>15} "
          f"{'traced retained MB':>19}")
    for m in res["memory"]:
        print(f"{m['hosts']:>5} {m['forks']:>5} {m['rss_peak_mb']:>12.0f} {m['rss_import_mb']:>17.0f} "
              f"{m['traced_peak_mb']:>15.0f} {m['traced_retained_mb']:>19.1f}")
    print()
    for name, value, ok in verdicts(res):
        print(f"target {name}: {'met' if ok else 'MISSED'} ({value})")


def _fmt(stages: dict) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="samples per row (median)")
    parser.add_argument("--hosts", type=int, default=32, help="sshds for the fleet rows")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--login-shell", choices=("clean", "as-is"), default="clean",
                        help="clean: root's ~/.bashrc is empty for the bench sshds (default); as-is: sourced")
    parser.add_argument("--cold-only", action="store_true", help="only the one-host cold rows (demand-driven)")
    parser.add_argument("--against", metavar="TREE",
                        help="another drift checkout (say, the tree before a change): its cold scan alternates with "
                             "this one's in the same window")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return 0

    from drift.sources.cache import cache_root
    from drift.sources.fetch import fetch_sources
    import tests.sshd_fixtures as fixtures
    from tests.sshd_fixtures import HOST_SPECS, build_host_venv, keygen, sshd_skip_reason, start_sshd

    reason = sshd_skip_reason()
    if reason:
        print(f"bench_scan: skipped: {reason}", file=sys.stderr)
        return 0
    python = str(build_host_venv(HOST_SPECS))
    fetch_sources("vllm==0.11.0")
    real_cache = cache_root()
    work = Path(tempfile.mkdtemp(prefix="drift-bench-scan-"))
    user_key, host_key = keygen(work / "id_ed25519"), keygen(work / "host_ed25519", "drift-bench-host")
    servers, plain = [], None
    real_sshd = fixtures.SSHD
    try:
        plain = start_sshd(work / "plain", user_key=user_key, host_key=host_key)
        shell_cost = {"as-is": exec_overhead(plain, runs=5)}
        if args.login_shell == "clean":
            fixtures.SSHD = str(clean_shell_sshd(work, real_sshd))
        for i in range(args.hosts):  # one key pair for all, so one known_hosts serves the CLI too
            servers.append(start_sshd(work / f"h{i}", user_key=user_key, host_key=host_key))
        known = work / "known_hosts"
        known.write_text("".join(s.host_public_line() for s in servers))
        config = work / "ssh_config"
        config.write_text("")
        ssh = {"identity": str(user_key), "known_hosts": str(known), "config": str(config)}
        shell_cost[args.login_shell] = exec_overhead(servers[0], runs=5)
        res = measure(args, python=python, servers=servers, ssh=ssh, work=work, real_cache=real_cache)
        res["login_shell"], res["exec_true_s"] = args.login_shell, shell_cost
    finally:
        fixtures.SSHD = real_sshd
        for s in [plain, *servers]:
            if s is not None:
                s.stop()
        shutil.rmtree(work, ignore_errors=True)
    if args.cold_only:
        print_cold(res)
    else:
        print_table(res)
        if "against" in res:
            print_cold(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
