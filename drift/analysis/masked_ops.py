"""A custom op's use under a test that already fails on the target is risky (DRIFT120).

Why: `if self.calculate_kv_scales: torch.ops.vllm.maybe_calc_kv_scales(...)` where the target no
longer sets `calculate_kv_scales` raises at the test; the op call below it runs only once the test
is fixed, and the maintainers' fix of the test (a default of False) may never take that branch
again. As DRIFT060 reports a read under such a test, the finding is kept, risky, naming the
test. The probe records the `if` tests around each op use (`within`, probes/torch_ops.py); a test
line holding a breaking finding of another rule is one that already fails. Likewise a use below a
failing import of its file (DRIFT001/002, breaking): the file stops there first, as DRIFT005 treats
a removed name's uses.
"""

from __future__ import annotations

from dataclasses import replace

from drift.analysis.context import CheckContext
from drift.findings import Finding, Severity

OP_RULES = ("DRIFT120",)
IMPORT_RULES = ("DRIFT001", "DRIFT002")  # an import that fails above the use: the module stops there first


def downgrade_masked_ops(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking DRIFT120 finding under a failing test made risky."""
    failing = {(f.consumer_site.path, f.consumer_site.line) for f in findings
               if f.severity is Severity.BREAKING and f.rule_id not in OP_RULES}
    if not failing:
        return findings
    imports: dict[str, int] = {}  # path -> the first line of a breaking import finding
    for f in findings:
        if f.severity is Severity.BREAKING and f.rule_id in IMPORT_RULES:
            path = f.consumer_site.path
            imports[path] = min(imports.get(path, f.consumer_site.line), f.consumer_site.line)
    within: dict[tuple[str, int], list[int]] = {}
    for mod in ctx.usage:
        for use in mod.get("op_calls") or ():
            if use.get("within"):
                within[(mod.get("path"), use["line"])] = list(use["within"])
    out = []
    for f in findings:
        site = (f.consumer_site.path, f.consumer_site.line)
        if f.severity is Severity.BREAKING and f.rule_id in OP_RULES and site in within:
            test = next((line for line in reversed(within[site]) if (site[0], line) in failing), None)
            if test is not None:
                f = replace(f, severity=Severity.RISKY,
                            title=f"{f.title}; it sits under the test at line {test}, which already fails on the "
                                  f"target: this call runs only once that test is fixed")
        if f.severity is Severity.BREAKING and f.rule_id in OP_RULES and imports.get(site[0], site[1]) < site[1]:
            f = replace(f, severity=Severity.RISKY,
                        title=f"{f.title}; the import at line {imports[site[0]]} fails first on the target: this call "
                              f"runs only once that import is fixed")
        out.append(f)
    return out
