"""The consumer's own command-line option, now registered by the target's builder on the same parser.

Why: a consumer that builds a parser, adds its own `--enable-reasoning`, and hands the parser to
`AsyncEngineArgs.add_cli_args(parser)` worked while vLLM's builder did not register that flag.
Once the target's builder registers it too, argparse (whose default `conflict_handler` is
"error") raises at start-up, whichever of the two adds it second. The probe records the long
flags the consumer adds unconditionally to a parser it also hands to target builders
(probes/cli_args.py `own_options`, skipped where the parser resolves conflicts); the builders'
options on each side are DRIFT009's (`_options_of`).
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.cli_options import _builders_via, _options_of
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _registered(flag: str, dests: set[str]) -> bool:
    """Whether a builder registering `dests` registers the long flag `flag` itself (its dest's
    dashed spelling; an option spelled otherwise is not the same string to argparse)."""
    dest = flag[2:].replace("-", "_")
    return dest in dests and "--" + dest.replace("_", "-") == flag


@rule("DRIFT131", RuleKind.OPTION_CONFLICT)
def cli_option_conflict(ctx: CheckContext) -> Iterator[Finding]:
    """A long option the consumer adds to a parser it hands to the target's builders (itself, or
    through a helper of another of its modules that hands the parser on: KServe's
    `maybe_add_vllm_cli_parser(parser)`), which the target's builders now register too and the
    baseline's did not: argparse raises `ArgumentError: conflicting option string` when the
    parser is built."""
    if ctx.baseline is None:
        return
    by_module = {m.get("module"): m for m in ctx.usage if m.get("module")}
    for mod in ctx.usage:
        for rec in mod.get("cli_own_options") or []:
            if not isinstance(rec, dict):
                continue
            builders = [b for b in rec.get("builders") or [] if isinstance(b, str)]
            builders += [b for b in _builders_via(by_module, rec) if b not in builders]  # through a helper
            before, _base_opaque = _options_of(ctx.baseline, builders)
            after, _opaque = _options_of(ctx.target, builders)
            if not builders or before is None or after is None:
                continue  # a builder unread on a side
            # a builder drift could not read (a platform hook) that registered the flag on the
            # baseline would have failed there already: the known builders decide
            for row in rec.get("options") or []:
                if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)):
                    continue
                flag, line, col = row
                if not _registered(flag, after) or _registered(flag, before) or flag[2:].replace("-", "_") in before:
                    continue
                yield Finding(
                    rule_id="DRIFT131", kind=RuleKind.OPTION_CONFLICT,
                    severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
                    title=f"option `{flag}` the consumer adds is now registered by "
                          f"`{builders[0].rsplit('.', 1)[-1]}` on the same parser",
                    consumer_site=Location(mod["path"], line, col=col + 1, symbol=flag),
                    details="the parser is handed to " + ", ".join(f"`{b}`" for b in builders),
                    target_evidence=tuple(e for e in (ctx.evidence(ctx.target.lookup(b)) for b in builders) if e),
                    baseline_evidence=(),
                    predicted_failure=f"argparse.ArgumentError: argument {flag}: conflicting option string: {flag}",
                    fix=Fix(f"stop adding `{flag}` (the target's builder registers it now) or add it only when the "
                            "builder does not", manual_reason="whether the target's option replaces the consumer's "
                            "is the consumer's to judge"),
                    symbol=flag,
                )


RULES = [cli_option_conflict]
