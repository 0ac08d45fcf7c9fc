"""Byte-compile patched files with the target's own interpreter: a syntax slip shows up now."""

from __future__ import annotations

from dataclasses import dataclass

from drift.remote.connectors.base import Connector, ConnectorError
from drift.remote.connectors.script import run_script
from drift.fixes.paths import join_under

# `python -m py_compile PATH`, sent on stdin with PATH as its argv (no shell ever parses it)
_PY_COMPILE = """import py_compile, sys
try:
    py_compile.compile(sys.argv[1], doraise=True)
except py_compile.PyCompileError as exc:
    sys.stderr.write(exc.msg.strip() + "\\n")
    sys.exit(1)
except OSError as exc:
    sys.stderr.write("%s: %s\\n" % (sys.argv[1], exc.strerror or exc))
    sys.exit(1)
"""


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    errors: tuple[tuple[str, str], ...] = ()  # (path, message)


async def verify_compile(
    connector: Connector, *, python: str, paths: list[str], root: str | None = None
) -> CompileResult:
    """`python -m py_compile <path>` per file (argv, no shell), so each error names its file.

    With `root`, `paths` are relative to it and validated like patched files.
    """
    errors: list[tuple[str, str]] = []
    for path in paths:
        if root is not None:
            try:
                path = join_under(root, path)
            except ValueError as exc:
                errors.append((path, str(exc)))
                continue
        if not path.startswith("/") or "/../" in f"{path}/":
            errors.append((path, "not an absolute path without '..'"))
            continue
        try:
            res = await run_script(connector, python, _PY_COMPILE, args=[path], name="<drift-compile>",
                                   timeout=120, limit=1 << 20)
        except ConnectorError as exc:
            errors.append((path, str(exc)))
            continue
        if not res.ok:
            text = (res.stderr or res.stdout).decode("utf-8", "replace").strip()
            errors.append((path, text or f"exit status {res.exit_status}"))
    return CompileResult(ok=not errors, errors=tuple(errors))
