"""`drift explain RULE`: a rule's page (what it finds, why it breaks, how to silence it)."""

from __future__ import annotations

import sys

from drift import exitcodes
from drift.commands.common import fail


def add_parser(sub) -> None:
    p = sub.add_parser("explain", help="print a rule's page (drift explain DRIFT020); no RULE lists them",
                       description="Print the page of a rule: the same text as docs/rules/RULE.md and the help "
                                   "SARIF viewers show, generated from the rule's docstring.")
    p.add_argument("rule", nargs="?", metavar="RULE", help="a rule id, e.g. DRIFT020 (case does not matter)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE", help="also rules from this pack file")
    p.set_defaults(func=run)


def run(args) -> int:
    from drift.analysis.ruledocs import index_page, page, registry
    from drift.analysis.rules.loader import RuleLoadError

    try:
        docs = registry(args.rules)
    except RuleLoadError as exc:
        return fail(str(exc), exitcodes.USAGE)
    if not args.rule:
        sys.stdout.write(index_page(docs.values()))
        return exitcodes.CLEAN
    doc = docs.get(args.rule.strip().upper())
    if doc is None:
        return fail(f"no rule {args.rule!r}", exitcodes.USAGE, hint=f"known rules: {', '.join(docs)}")
    sys.stdout.write(page(doc))
    return exitcodes.CLEAN
