"""`drift check [CONSUMER] -t TARGET`: what in the target breaks the consumer."""

from __future__ import annotations

import os

from drift import exitcodes
from drift.pipeline.run import run_check
from drift.commands.common import (
    consumer_selection,
    OutputError, add_consumer_options, output_pairs, add_output_options, add_pre_option, add_silencing_options, default_target, emit, fail,
    pinned_target, settings_checked, progress, silence, silencing, target_caveat, with_caveats,
)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="what breaks a consumer against a vLLM release, wheel, tree, snapshot or environment",
        description="Read the consumer (PyPI spec, wheel or source tree) and the target without importing "
                    "either; report each use the target breaks, with evidence, the predicted failure and the fix.",
        epilog="exit codes: 0 clean, 1 drift at or above --fail-on, 2 bad input, 3 index or host unreachable",
    )
    add_consumer_options(p, positional=True, default_help="default: consumer in drift.toml", selection=True)
    p.add_argument("-t", "--target", default=None,
                   help="the vLLM to check against: spec, wheel, source tree, snapshot file (.json from drift "
                        "snapshot) or python:PATH; NAME==nightly for the newest dev build (default: target in "
                        "drift.toml, else the newest release)")
    add_pre_option(p)
    p.add_argument("-b", "--baseline", default=None,
                   help="the vLLM the consumer was written for (default: from the consumer's metadata)")
    p.add_argument("--package", default="vllm", help="top-level import name of the target (default: vllm)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="extra rule pack: a Python file defining RULES = [...] (repeatable)")
    add_output_options(p, repeatable=True)
    add_silencing_options(p)
    fix = p.add_argument_group("fixing a source checkout")
    fix.add_argument("--fix", action="store_true",
                     help="write the safe fixes into the consumer's source tree (a directory), then re-check")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="with --fix: also the fixes that may change behaviour")
    fix.add_argument("--add-todo", action="store_true",
                     help="with --fix: a `# TODO(drift): ...` comment above every site left to a person")
    fix.add_argument("--single-version", action="store_true",
                     help="with --fix: plain edits for the target only, even when the consumer supports a range "
                          "of vLLM releases (default there: each edit is a version branch keeping the baseline's code)")
    p.set_defaults(func=run)


def run(args) -> int:
    from drift.sources.errors import FetchError
    from drift.suppress import SuppressError, local_source

    try:
        output_pairs(args)  # a mismatch of --format and -o is told before any work
    except OutputError as exc:
        return fail(str(exc), exitcodes.USAGE)
    config, code = settings_checked(args)
    if config is None:
        return code
    if args.consumer_pos and args.consumer and args.consumer_pos != args.consumer:
        return fail(f"two consumers given ({args.consumer_pos} and --consumer {args.consumer})", exitcodes.USAGE,
                    hint="give one: drift check CONSUMER -t TARGET")
    consumer = args.consumer or args.consumer_pos or config.consumer
    if not consumer:
        return fail("no consumer given", exitcodes.USAGE,
                    hint="drift check speculators==0.3.0 -t vllm==0.16.0 (or consumer = ... in drift.toml)")
    if (args.unsafe_fixes or args.add_todo or args.single_version) and not args.fix:
        return fail("--unsafe-fixes, --add-todo and --single-version go with --fix", exitcodes.USAGE)
    if args.fix and not os.path.isdir(consumer):
        return fail(f"--fix edits a source checkout, and {consumer} is not a directory", exitcodes.USAGE,
                    hint="drift check ./my-plugin -t vllm==X --fix; for an installed environment: drift patch HOST")
    with progress(verbose=getattr(args, "verbose", False)) as say:
        try:
            target = (pinned_target(args.target, pre=args.pre, say=say) if args.target
                      else default_target(config, args.package, say, pre=args.pre))
        except FetchError as exc:
            return fail(f"cannot find the newest {args.package}: {exc}", getattr(exc, "exit_code", exitcodes.USAGE),
                        hint="pass the target yourself: -t vllm==X.Y.Z, a wheel, a tree or a snapshot file")
        outcome = run_check(consumer_spec=consumer, target_spec=target, baseline_spec=args.baseline or config.baseline,
                            target_package=args.package, rule_paths=args.rules, progress=say,
                            consumer_packages=args.consumer_package, selection=consumer_selection(args, config))
    if outcome.report is None:
        return fail(outcome.error or "check failed", outcome.exit_code or exitcodes.USAGE)
    try:
        policy, fail_on = silencing(args, config, consumer_root=outcome.extra.get("consumer_root"))
        given = args.target or config.target
        (report,) = silence(with_caveats([outcome.report], target_caveat(given, target)), args, policy, fail_on,
                            [local_source(outcome.extra.get("consumer_root"))])
    except SuppressError as exc:
        return fail(str(exc), exitcodes.USAGE)
    try:
        emit(report, args, consumer_root=outcome.extra.get("consumer_root"))
    except OutputError as exc:
        return fail(str(exc), exitcodes.USAGE)
    if args.fix:
        base = (report.baseline or {}).get("spec")
        return _fix(args, report, outcome.extra,
                    lambda: run_check(consumer_spec=consumer, target_spec=target,
                                      baseline_spec=args.baseline or config.baseline, target_package=args.package,
                                      rule_paths=args.rules, consumer_packages=args.consumer_package,
                                      selection=consumer_selection(args, config)),
                    # the same consumer read as if the baseline were the target: what the patched code
                    # does on the release the consumer supported before
                    (lambda spec=consumer: run_check(consumer_spec=spec, target_spec=base, baseline_spec=target,
                                       target_package=args.package, rule_paths=args.rules,
                                       consumer_packages=args.consumer_package,
                                       selection=consumer_selection(args, config))) if base else None,
                    declared=config.supports)
    return report.exit_code


def _fix(args, report, extra, recheck, recheck_baseline, *, declared=None) -> int:  # type: ignore[no-untyped-def]
    """Plan, write into the checkout, re-check against the target and (for a consumer that
    supports a range of releases) the baseline; undo if either shows a finding not seen before."""
    import sys
    from pathlib import Path

    from drift.consumer.support import support, valid_range
    from drift.fixes import plan
    from drift.fixes.local import restore, write_plan
    from drift.fixes.style import line_length
    from drift.fixes.version_helper import choose_gate, top_package, tree_files
    from drift.pipeline.recheck import baseline_breaks, new_findings

    root = extra.get("consumer_root")
    if not root:
        return fail("the consumer's source root is unknown: nothing to fix", exitcodes.USAGE)
    say = lambda text: print(f"drift: fix: {text}", file=sys.stderr)  # noqa: E731  (stdout holds the report)
    findings = [f for f in report.findings if f.severity.value in ("breaking", "risky")]
    files = {}
    for path in sorted({f.consumer_site.path for f in findings}):
        full = Path(root) / path
        if full.is_file():
            files[path] = full.read_bytes()
    if declared and not valid_range(declared):
        return fail(f"supports = {declared!r} in drift.toml is not a version range", exitcodes.USAGE,
                    hint='supports = ">=0.10.2" (the vLLM releases the consumer works with)')
    baseline_version = (report.baseline or {}).get("version")
    ranged = support(extra.get("consumer_requires") or [], baseline=baseline_version, declared=declared)
    gate = None
    if ranged.is_range and not args.single_version:
        top = top_package(list(files), list(extra.get("consumer_packages") or []))
        gate = choose_gate(tree_files(root, top) if top else files, top=top,
                           since=str(report.target.get("version")), before=str(baseline_version),
                           line_length=line_length(root))
        say(f"{ranged.why}: version-gated edits ({gate.test}); --single-version for plain ones")
    before_on_baseline = None
    if gate is not None and recheck_baseline is not None:
        before_on_baseline = recheck_baseline()
        if before_on_baseline.report is None:  # e.g. a target only a host has: every edit stays gated
            say(f"cannot check the consumer against its baseline ({before_on_baseline.error}): every edit is "
                "version-gated and not re-checked there")
            before_on_baseline = None
    gate_lines = None
    if before_on_baseline is not None:
        gate_lines = baseline_breaks(root, plan(files, findings, unsafe_fixes=args.unsafe_fixes),
                                     before_on_baseline.report, lambda copy: recheck_baseline(copy).report)
        if gate_lines is not None:
            say("plain edits keep the baseline working" if not gate_lines else
                "gated where a plain edit breaks the baseline: "
                + ", ".join(f"{p}:{','.join(map(str, sorted(ls)))}" for p, ls in sorted(gate_lines.items())))
    the_plan = plan(files, findings, unsafe_fixes=args.unsafe_fixes, add_todo=args.add_todo, gate=gate,
                    gate_lines=gate_lines, line_length=line_length(root))
    for f, why in the_plan.held:
        say(f"not applied (unsafe, --unsafe-fixes applies it): {f.consumer_site} {f.fix.description}")
    for key, why in the_plan.skipped:
        say(f"skipped {key}: {why}")
    if the_plan.empty:
        say("nothing to change")
        return report.exit_code
    done = write_plan(root, the_plan)
    if done.problems:
        return fail("nothing written: " + "; ".join(done.problems), exitcodes.USAGE)
    after = recheck()
    if after.report is None:
        restore(root, the_plan)
        return fail(f"the re-check failed, originals restored: {after.error}", after.exit_code or exitcodes.USAGE)
    new = new_findings(report, after.report)
    if new:
        restore(root, the_plan)
        return fail("the fixes would add findings, originals restored: "
                    + "; ".join(f"{f.consumer_site} {f.rule_id} {f.title}" for f in new), exitcodes.DRIFT)
    if before_on_baseline is not None:
        on_baseline = recheck_baseline()
        if on_baseline.report is None:
            restore(root, the_plan)
            return fail(f"the re-check against the baseline failed, originals restored: {on_baseline.error}",
                        on_baseline.exit_code or exitcodes.USAGE)
        new = new_findings(before_on_baseline.report, on_baseline.report)
        if new:
            restore(root, the_plan)
            return fail(f"the fixes would break the baseline {baseline_version} the consumer still supports, "
                        "originals restored: "
                        + "; ".join(f"{f.consumer_site} {f.rule_id} {f.title}" for f in new), exitcodes.DRIFT)
        say(f"re-checked against the baseline {baseline_version}: nothing new")
    left = len(after.report.breaking)
    say(f"wrote {len(done.written)} file(s): {', '.join(done.written)}; breaking {len(report.breaking)} -> {left}"
        + (f"; {len(the_plan.todos)} TODO(drift) comment(s)" if the_plan.todos else ""))
    return after.report.exit_code
