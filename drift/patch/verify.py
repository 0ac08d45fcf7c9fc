"""Byte-compile patched files with the target's own interpreter: a syntax slip shows up now."""

from __future__ import annotations

from dataclasses import dataclass

from drift.connectors.base import Connector, ConnectorError
from drift.patch.paths import join_under


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
            res = await connector.run([python, "-m", "py_compile", path])
        except ConnectorError as exc:
            errors.append((path, str(exc)))
            continue
        if not res.ok:
            text = (res.stderr or res.stdout).decode("utf-8", "replace").strip()
            errors.append((path, text or f"exit status {res.exit_status}"))
    return CompileResult(ok=not errors, errors=tuple(errors))
