"""`drift gate`: the CI gate before a vLLM upgrade lands. Exit 0 compatible, 1 drift, 2 bad input, 3 unreachable."""

from __future__ import annotations

import os
import sys

from drift import reports
from drift import exitcodes
from drift.commands.common import (
    consumer_selection,
    add_consumer_options, add_pre_option, add_silencing_options, default_target, fail, pinned_target, progress,
    add_statistics_option, settings_checked, silence, silencing, statistics_document, target_caveat, with_caveats,
    write_document,
)
from drift.findings import Report
from drift.pipeline.gate import run_gate


def add_parser(sub) -> None:
    p = sub.add_parser("gate", help="CI gate: consumer vs one or more vLLM targets; SARIF, JUnit, Markdown, HTML",
                       description="Check a consumer against each --target and fail the job on drift. Under "
                                   "GitHub Actions (GITHUB_ACTIONS=true) it also prints annotations on the "
                                   "consumer's lines and appends the Markdown verdict to the step summary.",
                       epilog="exit codes: 0 clean, 1 drift at or above --fail-on on some target, 2 bad input, "
                              "3 index unreachable")
    add_consumer_options(p, default_help="default: . (this repository)", selection=True)
    p.add_argument("-t", "--target", action="append", default=None, metavar="SPEC",
                   help="PyPI spec, wheel, source tree, snapshot file or python:PATH (repeatable; default: "
                        "target in drift.toml, else the newest release); NAME==nightly for the newest dev build")
    add_pre_option(p)
    p.add_argument("--require-target", action="store_true",
                   help="refuse to run without a pinned target (-t, or target in drift.toml): never gate on "
                        "whatever release is newest today (the pre-commit hook passes it)")
    p.add_argument("-b", "--baseline", default=None, help="default: from the consumer's metadata / pyproject")
    p.add_argument("--package", default="vllm", help="target import name (default: vllm)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE", help="extra rule pack file")
    p.add_argument("--format", action="append", default=None, choices=reports.FORMAT_NAMES,
                   help="report format (repeatable, pairs with --output in order; default terminal)")
    p.add_argument("-o", "--output", action="append", default=None,
                   help="file for the matching --format ('-' = stdout)")
    p.add_argument("--title", default=None, help="title of the HTML/Markdown report")
    p.add_argument("--json", action="store_true", help="shorthand for --format json")
    p.add_argument("-v", "--verbose", action="store_true", help="terminal: show every evidence line")
    add_silencing_options(p)
    add_statistics_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from drift.sources.errors import FetchError
    from drift.suppress import SuppressError, local_source

    formats = list(args.format or (["json"] if args.json else ["terminal"]))
    outputs = list(args.output or [])
    if len(outputs) > len(formats):
        return fail("more --output than --format", exitcodes.USAGE, hint="give one --format per --output, in order")
    outputs += ["-"] * (len(formats) - len(outputs))
    config, code = settings_checked(args)
    if config is None:
        return code
    consumer = args.consumer or "."
    if args.require_target and not (args.target or config.target):
        return fail("no target: give the vLLM release to gate on", exitcodes.USAGE,
                    hint="args: [--target, vllm==X.Y.Z] in .pre-commit-config.yaml, or target = \"vllm==X.Y.Z\" "
                         "in [tool.drift]; a gate on the newest release changes its verdict the day vLLM releases")
    with progress(verbose=args.verbose) as say:
        try:
            targets = ([pinned_target(t, pre=args.pre, say=say) for t in args.target] if args.target
                       else [default_target(config, args.package, say, pre=args.pre)])
        except FetchError as exc:
            return fail(f"cannot find the newest {args.package}: {exc}", getattr(exc, "exit_code", exitcodes.USAGE),
                        hint="pass the targets yourself: -t vllm==X.Y.Z (repeatable)")
        result = run_gate(consumer_spec=consumer, targets=targets, baseline_spec=args.baseline or config.baseline,
                          target_package=args.package, rule_paths=args.rules, progress=say,
                          consumer_packages=args.consumer_package, selection=consumer_selection(args, config))
    if result.error:
        return fail(result.error, result.exit_code or exitcodes.USAGE)
    options = dict(title=args.title or f"drift gate: {consumer}", repo_root=os.getcwd(), verbose=args.verbose,
                   consumer_root=str(result.consumer_root) if result.consumer_root else None)
    if result.nothing_to_check:
        message = f"{consumer} does not use {args.package}: nothing to check"
        print(f"drift: {message}", file=sys.stderr)
        # still write every requested report, empty: code scanning then closes stale alerts
        empty = [Report(consumer={"name": consumer, "version": None, "spec": consumer},
                        target={"name": args.package, "version": None, "spec": t, "commit": None},
                        baseline=None, findings=(), notes=(message,)) for t in targets]
        for fmt, out in zip(formats, outputs):
            if out != "-":
                reports.write(empty, fmt, out, options=reports.Options(**options))
        return exitcodes.CLEAN
    try:
        policy, fail_on = silencing(args, config, consumer_root=result.consumer_root)
        source = local_source(result.consumer_root)
        given = list(args.target or [config.target] if (args.target or config.target) else [None])
        found = list(result.reports)
        for i, (g, t) in enumerate(zip(given * len(targets) if len(given) == 1 else given, targets)):
            found[i:i + 1] = with_caveats(found[i:i + 1], target_caveat(g, t))
        found = silence(found, args, policy, fail_on, [source] * len(result.reports))
    except SuppressError as exc:
        return fail(str(exc), exitcodes.USAGE)
    for fmt, out in zip(formats, outputs):
        try:
            if args.statistics:
                write_document(statistics_document(found, fmt), out)
            else:
                reports.write(found, fmt, out, options=reports.Options(**options))
        except OSError as exc:
            return fail(f"cannot write the {fmt} report to {out}: {exc.strerror or exc}", exitcodes.USAGE)
    if os.environ.get("GITHUB_ACTIONS") == "true" and not any(f == "github" and o == "-" for f, o in zip(formats, outputs)):
        # annotations on the pull request's lines, beside the step summary (workflow commands on stdout)
        sys.stdout.write(reports.render(found, "github", options=reports.Options(**options)))
        sys.stdout.flush()
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write("\n" + reports.render(found, "markdown", options=reports.Options(title=options["title"])) + "\n")
    return exitcodes.DRIFT if any(r.exit_code for r in found) else exitcodes.CLEAN
