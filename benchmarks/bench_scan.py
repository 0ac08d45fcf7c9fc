"""Time the remote half of `drift scan`: SSH connect + probe of a real vLLM install, one host
and a fleet, against real sshds on loopback and the cached "GPU host" venv of the tests.

    python benchmarks/bench_scan.py [--hosts 4] [--forks 8] [--repeat 3] [--json out.json]

Cold = empty probe cache on the host (every vLLM module parsed); warm = cache filled by the
previous run; unchanged = the request carries the digest drift already holds, so the host
answers from its index without loading facts. Needs root, /usr/sbin/sshd and ssh-keygen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drift.connectors.ssh import connect  # noqa: E402
from drift.fleet import run_fleet  # noqa: E402
from drift.remote_probe import probe  # noqa: E402
from tests.sshd_fixtures import HOST_SPECS, build_host_venv, sshd_skip_reason, start_sshd  # noqa: E402


async def _once(server, request, python):
    start = time.perf_counter()
    conn = await connect(server.spec, **server.connect_kwargs())
    connected = time.perf_counter()
    try:
        res = await probe(conn, request, python=python, timeout=600)
    finally:
        await conn.close()
    end = time.perf_counter()
    if not res.ok:
        raise SystemExit(f"probe failed: {res.reason}")
    return {"connect_s": connected - start, "probe_s": end - connected, "total_s": end - start,
            "bytes_facts": len(json.dumps(res.facts)), "facts": res.facts}


def _stats(samples: list[float]) -> dict:
    return {"median_s": round(statistics.median(samples), 3), "min_s": round(min(samples), 3),
            "max_s": round(max(samples), 3), "n": len(samples)}


async def main_async(args) -> dict:
    python = str(build_host_venv(HOST_SPECS))
    work = Path(tempfile.mkdtemp(prefix="drift-bench-"))
    servers = [start_sshd(work / f"h{i}") for i in range(args.hosts)]
    try:
        first = servers[0]
        results: dict = {"python": python, "hosts": args.hosts, "forks": args.forks}
        cold = []
        for i in range(args.repeat):
            cache = str(work / f"cold-cache-{i}")
            cold.append((await _once(first, {"packages": ["vllm"], "cache_dir": cache}, python))["total_s"])
        results["single_cold"] = _stats(cold)

        warm_cache = str(work / "warm-cache")
        seed = await _once(first, {"packages": ["vllm"], "cache_dir": warm_cache}, python)
        digest = seed["facts"]["packages"]["vllm"]["digest"]
        results["facts_json_bytes"] = seed["bytes_facts"]
        warm, unchanged, connects = [], [], []
        for _ in range(args.repeat):
            r = await _once(first, {"packages": ["vllm"], "cache_dir": warm_cache}, python)
            warm.append(r["total_s"])
            connects.append(r["connect_s"])
            u = await _once(first, {"packages": ["vllm"], "cache_dir": warm_cache, "known": {"vllm": digest}}, python)
            unchanged.append(u["total_s"])
        results["single_warm"] = _stats(warm)
        results["single_unchanged"] = _stats(unchanged)
        results["connect_only"] = _stats(connects)

        async def job(server):
            return await _once(server, {"packages": ["vllm"], "cache_dir": warm_cache}, python)

        fleet = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            outcomes = await run_fleet(servers, job, forks=args.forks)
            fleet.append(time.perf_counter() - start)
            bad = [o for o in outcomes if o.status != "ok"]
            if bad:
                raise SystemExit(f"fleet host failed: {bad[0].reason}")
        results["fleet_warm"] = _stats(fleet)
        return results
    finally:
        for s in servers:
            s.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--forks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    reason = sshd_skip_reason()
    if reason:
        print(f"bench_scan: skipped: {reason}", file=sys.stderr)
        return 0
    results = asyncio.run(main_async(args))
    for key, value in results.items():
        print(f"{key:>18}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
