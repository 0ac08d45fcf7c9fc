"""DRIFT091: a module-level assert on the target package's version that the target fails.

A plugin that backports a fix often pins the backport with `assert VLLM_VERSION < (0, 25)` at
the top of the patch module ("fails loudly on the upgrade that makes this redundant"). On the
release that ships the fix the module no longer imports, and with it whatever imports the module
(a plugin's whole patch package). The probe records each module-level `assert <version test>` as
the same guard data the version branches use (probes/reach.py `version_asserts`); here it is
evaluated on both sides, like a branch (drift/consumer/guards.py).
"""

from __future__ import annotations

from typing import Any, Iterator

from packaging.version import InvalidVersion, Version

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.consumer.guards import holds
from drift.findings import Finding, Fix, Location, RuleKind, Severity


def _version(text: str | None) -> Version | None:
    try:
        return Version(text) if text and text != "?" else None
    except InvalidVersion:
        return None


def _shown(guard: dict[str, Any]) -> str:
    test = f"{guard.get('call') or 'version'} {guard.get('op') or ''} {guard.get('version') or ''}".replace("  ", " ")
    return f"not ({test.strip()})" if guard.get("negated") else test.strip()


@rule("DRIFT091", RuleKind.VERSION_ASSERT_FAILS)
def version_assert_fails(ctx: CheckContext) -> Iterator[Finding]:
    """A module-level `assert` on the running version that holds on the baseline and fails on
    the target: the module raises AssertionError when it is imported."""
    tv = _version(ctx.target.versions.get(ctx.target_package))
    bv = _version(ctx.baseline.versions.get(ctx.target_package)) if ctx.baseline else None
    if tv is None or bv is None:
        return
    predicates: dict[str, dict[str, Any]] = {}
    for mod in ctx.usage:
        predicates.update(mod.get("version_predicates") or {})
    for mod in ctx.usage:
        for guard in mod.get("version_asserts") or []:
            if holds(guard, bv, predicates) is not True or holds(guard, tv, predicates) is not False:
                continue
            yield Finding(
                rule_id="DRIFT091", kind=RuleKind.VERSION_ASSERT_FAILS, severity=Severity.BREAKING,
                title=f"the module asserts `{_shown(guard)}`, which held on {ctx.target_package} {bv} "
                      f"and fails on {tv}",
                consumer_site=Location(mod["path"], guard["line"], col=(guard.get("col") or 0) + 1),
                predicted_failure=f"AssertionError when `{mod.get('module') or mod['path']}` is imported",
                details="a module-level assert runs at import: every importer of the module fails with it",
                fix=Fix("drop what the assertion pins to older releases (or guard it with a version branch)",
                        manual_reason="the assertion says the code under it is now redundant or wrong: only the "
                                      "author knows which"),
                symbol=mod.get("module"),
            )


RULES = [version_assert_fails]
