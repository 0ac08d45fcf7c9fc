"""Version checks that compare text: right for the baseline, wrong for the target."""

from __future__ import annotations

import operator
from typing import Iterator

from packaging.version import InvalidVersion, Version

from drift.analysis.context import CheckContext
from drift.findings import SAFE, Finding, Fix, Location, RuleKind, Severity
from drift.analysis.rules.base import rule

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}


def _disagree(op: str, version: str, literal: str) -> tuple[bool, bool] | None:
    """(as text, as a version) for `version <op> literal`, or None when they agree."""
    try:
        semantic = _OPS[op](Version(version), Version(literal))
    except InvalidVersion:
        return None
    textual = _OPS[op](version, literal)
    return (textual, semantic) if textual != semantic else None


@rule("DRIFT090", RuleKind.VERSION_TEXT_COMPARE)
def version_text_compare(ctx: CheckContext) -> Iterator[Finding]:
    """`vllm.__version__ >= "0.9.0"` compares strings: "0.10.0" sorts before "0.9.0", so the check
    that held for the baseline gives the wrong answer for the target (a branch not taken, an
    assertion that fails). Reported where the baseline's answer was right and the target's is not.

    The fix compares `Version(...)`s (`compare_versions`), safe: the baseline's answer is kept
    (that is when the finding is reported) and the target's becomes right.
    """
    tv = ctx.target.versions.get(ctx.target_package)
    bv = ctx.baseline.versions.get(ctx.target_package) if ctx.baseline else None
    if not tv or tv == "?":
        return
    for mod in ctx.usage:
        for cmp in mod.get("version_compares") or []:
            of = cmp["of"]
            if of.split(".")[0] != ctx.target_package and not of.startswith(ctx.target_package + "."):
                continue
            wrong = _disagree(cmp["op"], tv, cmp["version"])
            if wrong is None or (bv and bv != "?" and _disagree(cmp["op"], bv, cmp["version"])):
                continue
            textual, semantic = wrong
            expr = f"'{tv}' {cmp['op']} '{cmp['version']}'"
            yield Finding(
                rule_id="DRIFT090", kind=RuleKind.VERSION_TEXT_COMPARE, severity=Severity.BREAKING,
                title=f"`{of} {cmp['op']} \"{cmp['version']}\"` compares text: {expr} is {textual}, "
                      f"as versions it is {semantic}",
                consumer_site=Location(mod["path"], cmp["line"], col=cmp.get("col", 0) + 1),
                predicted_failure=(f"the check is {textual} on {ctx.target_package} {tv}: "
                                   f"an `assert` raises AssertionError, an `if` takes the other branch"),
                # safe: reported only where the text and the version comparison agree on the
                # baseline, so the rewrite keeps the baseline's answer and fixes the target's
                fix=Fix(f"compare versions: `Version({of}) {cmp['op']} Version(\"{cmp['version']}\")` "
                        "(with `from packaging.version import Version`)", codemod="compare_versions",
                        args={"op": cmp["op"], "version": cmp["version"]}, tier=SAFE),
                symbol=f"{of}",
            )
