"""Consumer files this interpreter refuses but a newer Python accepts.

drift reads a local consumer with the `ast` of the Python it runs on. A plugin written for
Python 3.12 (`def f[T](...)`, `type X = ...`) is refused by a 3.11 `ast`, yet it imports fine
on the interpreter the plugin really runs on: reporting it as a breaking DRIFT004 would fail the
gate on code that works. libcst's parser (a dependency already, for the fixes) knows the newer
grammars, so it tells the two apart: a file libcst accepts is valid Python, only newer than
drift's own. Such a file is not a break; it is a blind spot, said as a caveat ("could not be
read", with the reason) so nobody takes the silence for a clean bill.

A host scan needs none of this: there the probe parses with the host's own interpreter, which
is the one that imports the plugin.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

_PARSE_ERRORS = ("SyntaxError", "IndentationError", "TabError")
NEWER_SYNTAX = "NewerSyntax"


def _accepted_by_libcst(source: str) -> bool:
    import libcst

    try:
        libcst.parse_module(source)
    except Exception:  # noqa: BLE001 -- libcst's own ParserSyntaxError, or a grammar it lacks
        return False
    return True


def mark_newer_syntax(modules: list[dict[str, Any]], root: Path) -> list[dict[str, Any]]:
    """Re-label the parse errors of files that are valid Python for a newer interpreter.

    The record's `error` then starts with `NewerSyntax`, so DRIFT004 (which reports what no
    Python parses) leaves it alone and the run lists it among the files it could not read."""
    here = "%d.%d" % sys.version_info[:2]
    out = []
    for module in modules:
        error = str(module.get("error") or "")
        path = module.get("path")
        if error.startswith(_PARSE_ERRORS) and path:
            try:
                source = (root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                source = None
            if source is not None and _accepted_by_libcst(source):
                module = dict(module, error=(
                    f"{NEWER_SYNTAX}: {error} under drift's Python {here}, but the file is valid Python for a newer "
                    f"interpreter; its uses of the target were not checked (run drift on a newer Python, or "
                    f"`drift scan` on the host)"))
        out.append(module)
    return out
