"""Corpus: the demand-driven host probe against the whole-package one, per corpus consumer.

Each consumer of tests/corpus/ is scanned twice through the local connector (the "host" is a
wrapper python whose path holds the consumer's and the target's cached sources): once with the
whole-package host probe, once demand-driven. Prints, per consumer, whether the findings are
identical, the exchanges the demand scan needed and, with --late, every follow-up exchange:
the rule that asked (the innermost drift/rules frame) and what it asked.

    python benchmarks/corpus_demand.py [--late] [--only NAME] [--json out.json]

Why: the number of exchanges is the demand path's cost over a real network (a round trip plus
a new remote process each); this is the figure issue 12's follow-up drives down.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = Path(os.environ.get("DRIFT_SOURCES", Path.home() / ".cache/drift/sources"))

_CHILD = r"""
import sys, asyncio, json, traceback; sys.path.insert(0, %(repo)r)
from drift.remote.connectors.local import LocalConnector
from drift.pipeline.scan import ScanSettings, scan_connector
import drift.model.host_modules as hm
late, asked = [], {}
def _rule():
    for fr in traceback.extract_stack()[::-1]:
        if "/drift/rules/" in fr.filename:
            return fr.filename.rsplit("/", 1)[1] + ":" + fr.name
    return "?"
real_ask, real_mentioning = hm.HostModules._ask, hm.HostModules.mentioning
def ask(self, modules, needles):
    late.append({"rule": _rule(), "modules": len(modules),
                 "needles": [asked.get(n[1], "") + " " + n[0] + " " + n[1][-24:] for n in needles]})
    return real_ask(self, modules, needles)
def mentioning(self, needle):
    key = needle.pattern.pattern.decode("utf-8", "surrogateescape")
    if key not in self.answers:
        asked.setdefault(key, _rule())
    return real_mentioning(self, needle)
hm.HostModules._ask, hm.HostModules.mentioning = ask, mentioning
st = ScanSettings(python=%(py)r, consumer=%(pkg)r, baseline=%(base)r, host_cache_dir=%(hc)r, demand=%(demand)r)
import time
t0 = time.perf_counter()
r = asyncio.run(scan_connector(LocalConnector(), host='local', settings=st))
elapsed = time.perf_counter() - t0
f = sorted([x.rule_id, x.consumer_site.path, x.consumer_site.line, x.title] for x in r.outcome.report.findings) if r.outcome and r.outcome.report else None
print(json.dumps({"status": r.status, "reason": r.reason, "findings": f, "stats": r.probe_stats, "late": late, "elapsed_s": elapsed}))
"""


def run_case(toml: Path, work: Path) -> dict:
    doc = tomllib.loads(toml.read_text())
    cons, base, tgt = doc["consumer"], doc["baseline"], doc["target"]
    cdir, tdir, bdir = (SOURCES / s.replace("==", "-") for s in (cons, tgt, base))
    if not (cdir.is_dir() and tdir.is_dir() and bdir.is_dir()):
        return {"case": toml.stem, "skipped": "sources missing"}
    pkg = sorted(p.name for p in cdir.iterdir() if (p / "__init__.py").exists())[0]
    case = Path(tempfile.mkdtemp(prefix=toml.stem + "-", dir=work))
    py = case / "py"
    py.write_text(f"#!/bin/sh\nPYTHONPATH='{cdir}:{tdir}' exec '{sys.executable}' \"$@\"\n")
    py.chmod(0o755)
    out = {"case": toml.stem, "consumer": pkg}
    for mode in ("whole", "demand"):
        env = dict(os.environ, DRIFT_CACHE=str(case / f"c-{mode}"))
        code = _CHILD % {"repo": str(REPO), "py": str(py), "pkg": pkg, "base": str(bdir),
                         "hc": str(case / f"h-{mode}"), "demand": mode == "demand"}
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        out[mode] = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"err": p.stderr[-800:]}
    d, w = out["demand"], out["whole"]
    out["same"] = d.get("findings") is not None and d.get("findings") == w.get("findings")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--late", action="store_true", help="print every follow-up exchange and who asked")
    ap.add_argument("--only", action="append", help="corpus case name (repeatable)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="corpus-demand-"))
    rows = []
    for toml in sorted((REPO / "tests/corpus").glob("*.toml")):
        if args.only and toml.stem not in args.only:
            continue
        r = run_case(toml, work)
        rows.append(r)
        if "skipped" in r:
            print(f"{r['case']:<16} skipped: {r['skipped']}", flush=True)
            continue
        st = r["demand"].get("stats") or {}
        print(f"{r['case']:<16} {'same' if r['same'] else 'DIFFERENT'} {len(r['whole'].get('findings') or [])} findings; "
              f"exchanges {st.get('exchanges')} fetched {st.get('fetched')} asked_needles {st.get('asked_needles')} "
              f"parsed_on_host {st.get('parsed_on_host')} runs {st.get('check_runs')}; cold scan {r['demand'].get('elapsed_s', 0):.1f} s "
              f"(whole-package {r['whole'].get('elapsed_s', 0):.1f} s) {r['demand'].get('reason') or r['demand'].get('err', '')[:400]}",
              flush=True)
        if args.late:
            for ex in r["demand"].get("late") or []:
                print(f"    exchange from {ex['rule']}: {ex['modules']} modules, {len(ex['needles'])} searches")
                for n in ex["needles"]:
                    print(f"        {n}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r.get("same", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
