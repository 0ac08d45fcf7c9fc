"""Are the reports byte-identical before and after a speed change?

A performance change must not move a single finding, so this keeps the evidence: it runs the real
command, `drift check CONSUMER -t TARGET -b BASELINE --format json`, for speculators and every
corpus consumer (tests/corpus/*.toml), with the user's cache as it is, and either records each
report's bytes (`--save DIR`) or compares them with a recorded set (`--cmp DIR`), naming every
consumer whose report differs and the first differing line. Run `--save` on the tree before the
change and `--cmp` after it (and after every rebase).

    python benchmarks/report_identity.py --save /tmp/reports-before [NAME ...]
    python benchmarks/report_identity.py --cmp /tmp/reports-before [NAME ...]

Exits 0 when every compared report is identical, 1 when one differs or is missing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def cases(wanted: list[str]) -> list[tuple[str, list[str]]]:
    """(name, the command's arguments) for speculators and each corpus consumer."""
    from tests.corpus_score import ground_truth, names

    out = [("speculators-readme", ["speculators==0.3.0", "-t", "vllm==0.16.0"])]  # the README command: no -b
    for name in names():
        gt = ground_truth(name)
        args = [gt.get("consumer_source", gt["consumer"]), "-t", gt["target"], "-b", gt["baseline"]]
        for pkg in gt.get("consumer_packages") or []:
            args += ["--consumer-package", pkg]
        out.append((name, args))
    return [c for c in out if not wanted or c[0] in wanted]


def report(args: list[str]) -> bytes:
    """The JSON report's bytes; the exit code only says whether something breaks."""
    done = subprocess.run([sys.executable, "-m", "drift.cli", "check", *args, "--format", "json"],
                          capture_output=True, cwd=REPO)
    if done.returncode not in (0, 1):
        raise SystemExit(f"drift check {' '.join(args)} exited {done.returncode}:\n"
                         f"{done.stderr.decode(errors='replace')}")
    return done.stdout


def first_difference(a: bytes, b: bytes) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {i}:\n  before {x[:200]!r}\n  after  {y[:200]!r}"
    return f"lengths {len(a)} vs {len(b)} bytes"


def main() -> int:
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=Path, help="record each report here")
    mode.add_argument("--cmp", type=Path, help="compare each report with the one recorded here")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    differ = 0
    for name, cmd in cases(args.names):
        got = report(cmd)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{name}.json").write_bytes(got)
            print(f"{name:<18} saved {len(got)} bytes")
            continue
        path = args.cmp / f"{name}.json"
        if not path.exists():
            print(f"{name:<18} MISSING {path}")
            differ += 1
            continue
        want = path.read_bytes()
        if want == got:
            print(f"{name:<18} identical ({len(got)} bytes)")
        else:
            differ += 1
            print(f"{name:<18} DIFFERS at {first_difference(want, got)}")
    if args.cmp:
        print("IDENTICAL" if not differ else f"{differ} report(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
