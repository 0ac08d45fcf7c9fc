"""`drift check CONSUMER --target SPEC`: what in the target breaks the consumer."""

from __future__ import annotations

from drift import exitcodes
from drift.check.run import run_check
from drift.commands.common import add_output_options, emit, fail, progress


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="what breaks a consumer against a vLLM release, wheel, tree or environment",
        description="Read the consumer (PyPI spec, wheel or source tree) and the target without importing "
                    "either; report each use the target breaks, with evidence, the predicted failure and the fix.",
    )
    p.add_argument("consumer", help="the code that uses vLLM: e.g. speculators==0.3.0, a wheel, a source tree, "
                                    "or python:PATH (an environment it is installed in)")
    p.add_argument("--consumer-package", action="append", default=None, metavar="NAME",
                   help="consumer's top-level import name(s) (default: what the distribution provides; "
                        "speculators for python:PATH)")
    p.add_argument("-t", "--target", default="vllm==0.16.0",
                   help="the vLLM to check against: spec, wheel, source tree or python:PATH (default: vllm==0.16.0)")
    p.add_argument("-b", "--baseline", default=None,
                   help="the vLLM the consumer was written for (default: from the consumer's metadata)")
    p.add_argument("--package", default="vllm", help="top-level import name of the target (default: vllm)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="extra rule pack: a Python file defining RULES = [...] (repeatable)")
    add_output_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    with progress(verbose=getattr(args, "verbose", False)) as say:
        outcome = run_check(consumer_spec=args.consumer, target_spec=args.target, baseline_spec=args.baseline,
                            target_package=args.package, rule_paths=args.rules, progress=say,
                            consumer_packages=args.consumer_package)
    if outcome.report is None:
        return fail(outcome.error or "check failed", outcome.exit_code or exitcodes.USAGE)
    emit(outcome.report, args)
    return outcome.exit_code
