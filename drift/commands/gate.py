"""`drift gate`: the CI gate before a vLLM upgrade lands. Exit 0 compatible, 1 breaking, 2 bad input."""

from __future__ import annotations

import os
import sys

import reports
from drift import exitcodes
from drift.commands.common import fail, progress
from drift.findings import Report
from drift.gate import run_gate


def add_parser(sub) -> None:
    p = sub.add_parser("gate", help="CI gate: consumer vs one or more vLLM targets; SARIF, JUnit, Markdown, HTML",
                       description="Check a consumer against each --target and fail the job on breaking drift.")
    p.add_argument("--consumer", default=".", help="path in the repo, PyPI spec or wheel (default: .)")
    p.add_argument("--target", action="append", default=None, metavar="SPEC",
                   help="PyPI spec, wheel, source tree or python:PATH (repeatable; default vllm==0.16.0)")
    p.add_argument("-b", "--baseline", default=None, help="default: from the consumer's metadata / pyproject")
    p.add_argument("--package", default="vllm", help="target import name (default: vllm)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE", help="extra rule pack file")
    p.add_argument("--format", action="append", default=None, choices=reports.FORMAT_NAMES,
                   help="report format (repeatable, pairs with --output in order; default terminal)")
    p.add_argument("-o", "--output", action="append", default=None,
                   help="file for the matching --format ('-' = stdout)")
    p.add_argument("--title", default=None, help="title of the HTML/Markdown report")
    p.add_argument("--json", action="store_true", help="shorthand for --format json")
    p.set_defaults(func=run)


def run(args) -> int:
    formats = list(args.format or (["json"] if args.json else ["terminal"]))
    outputs = list(args.output or [])
    if len(outputs) > len(formats):
        return fail("more --output than --format; give one --format per --output", exitcodes.USAGE)
    outputs += ["-"] * (len(formats) - len(outputs))
    targets = args.target or ["vllm==0.16.0"]
    with progress() as say:
        result = run_gate(consumer_spec=args.consumer, targets=targets, baseline_spec=args.baseline,
                          target_package=args.package, rule_paths=args.rules, progress=say)
    if result.error:
        return fail(result.error, result.exit_code or exitcodes.USAGE)
    if result.nothing_to_check:
        message = f"{args.consumer} does not use {args.package}: nothing to check"
        print(f"drift gate: {message}", file=sys.stderr)
        # still write every requested report, empty: code scanning then closes stale alerts
        empty = [Report(consumer={"name": args.consumer, "version": None, "spec": args.consumer},
                        target={"name": args.package, "version": None, "spec": t, "commit": None},
                        baseline=None, findings=(), notes=(message,)) for t in targets]
        for fmt, out in zip(formats, outputs):
            if out != "-":
                reports.write(empty, fmt, out, options=reports.Options(title=args.title, repo_root=os.getcwd()))
        return exitcodes.CLEAN
    title = args.title or f"drift gate: {args.consumer}"
    for fmt, out in zip(formats, outputs):
        reports.write(list(result.reports), fmt, out, options=reports.Options(title=title, repo_root=os.getcwd()))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write("\n" + reports.render(list(result.reports), "markdown", options=reports.Options(title=title)) + "\n")
    return result.exit_code
