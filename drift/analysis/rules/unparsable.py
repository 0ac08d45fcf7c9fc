"""Consumer files Python itself refuses: a SyntaxError is a finding, not a note."""

from __future__ import annotations

import re
from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity

_PARSE_ERRORS = ("SyntaxError", "IndentationError", "TabError")
_LINE = re.compile(r"\((?:<unknown>|[^,()]*), line (\d+)\)")


@rule("DRIFT004", RuleKind.CONSUMER_UNPARSABLE)
def consumer_unparsable(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer file that does not parse: importing it raises, and none of its uses of the
    target could be checked.

    Why a finding and not a note: a gate that judged the other files would stay green while the
    file's own breaks went unseen, and the import of that file fails at run time anyway.

    A file only a newer Python parses (PEP 695 generics read by drift on 3.11) is not this
    finding: the plugin's own interpreter imports it. It is listed among the files drift could
    not read, with the reason (drift/consumer/newer_syntax.py).
    """
    for mod in ctx.usage:
        error = mod.get("error") or ""
        if not error.startswith(_PARSE_ERRORS):
            continue
        path = mod.get("path") or "?"
        match = _LINE.search(error)
        line = int(match.group(1)) if match else 1
        failure = _LINE.sub(f"({path.rsplit('/', 1)[-1]}, line {line})", error, count=1)  # as str(SyntaxError)
        yield Finding(
            rule_id="DRIFT004", kind=RuleKind.CONSUMER_UNPARSABLE, severity=Severity.BREAKING,
            title=f"`{path}` does not parse: {failure.split(': ', 1)[-1]}",
            consumer_site=Location(path, line, symbol=mod.get("module")),
            predicted_failure=failure,
            details="drift reads the consumer with Python's own parser; until it parses, no use in it is checked",
            fix=Fix(f"make `{path}` parse (line {line})", manual_reason="a syntax error is fixed by hand"),
            symbol=mod.get("module"),
        )
