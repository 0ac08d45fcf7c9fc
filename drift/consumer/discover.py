"""Which files of a consumer checkout are read: every `.py` under its root, as ruff finds them.

Why: the code that reaches into vLLM's internals is not only in the distribution's packages.
`tests/` patch vLLM classes, `scripts/` and `examples/` drive the engine, and many plugins are
script-only repositories with no package at all; reading the packages alone let those breaks
through without a word. A wheel or a PyPI release holds only its packages, so only a source
tree is discovered this way (`drift.consumer.load`).

Selection is gitignore-style (the `pathspec` library's `gitwildmatch`, where `*` stops at `/`):
ruff's default excludes (virtualenvs, build output, VCS and tool caches), the root `.gitignore`,
then the user's `exclude`; with `include`, only files matching it. The walk itself is the
probe's (probes/locate.walk_tree, stdlib, the same code a host runs); this module only chooses
the top-level entries to walk and the predicate each file path must pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pathspec

_SKIP_LOOK = 2000  # entries looked at to tell whether an excluded folder holds Python (to say it was skipped)

# ruff's default `exclude`, as directories at any depth
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "__pycache__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)


@dataclass(frozen=True)
class Selection:
    """`include`/`exclude` globs from the CLI and `[tool.drift]`, relative to the consumer root."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def merged(self, other: "Selection") -> "Selection":
        return Selection(include=(*self.include, *other.include), exclude=(*self.exclude, *other.exclude))


@dataclass(frozen=True)
class Discovered:
    """The consumer root (report paths are relative to it), what to walk, and the file filter.

    `units`: (directory to walk from, top-level name) pairs; a src-layout package is walked
    from `src/` so its modules keep their import names, its paths get `prefix` (`src/`)."""

    root: Path
    units: list[tuple[Path, str]] = field(default_factory=list)
    keep: Callable[[str], bool] = lambda _rel: True
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (top-level entry holding Python, why not read)

    def prefix(self, read_root: Path) -> str:
        rel = os.path.relpath(read_root, self.root)
        return "" if rel == "." else rel.replace(os.sep, "/") + "/"

    @property
    def packages(self) -> list[str]:
        return [name for _, name in self.units]


def file_filter(root: Path, selection: Selection) -> Callable[[str], bool]:
    """The predicate a root-relative posix path (`scripts/run.py`) must pass to be read; a
    folder (`scripts/`, with its slash) is only ever excluded, `include` chooses files."""
    exclude = pathspec.PathSpec.from_lines("gitwildmatch", [f"{d}/" for d in DEFAULT_EXCLUDE] + list(selection.exclude))
    ignored = _gitignore(root)
    include = pathspec.PathSpec.from_lines("gitwildmatch", selection.include) if selection.include else None

    def keep(rel: str) -> bool:
        if exclude.match_file(rel) or (ignored is not None and ignored.match_file(rel)):
            return False
        return include is None or rel.endswith("/") or include.match_file(rel)

    return keep


def _gitignore(root: Path):
    try:
        lines = (root / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def discover(path: Path, selection: Selection = Selection()) -> Discovered:
    """Every top-level code entry of a checkout: packages, plain folders holding `.py` files
    (tests/, scripts/, examples/), top-level modules, and the packages under `src/`.

    A folder or file whose name is no identifier (`llama3.1-8b-instruct/`, `my-app/`,
    `run-server.py`) is read too: a checkout of services and scripts laid out that way cannot be
    imported by that name, but drift reads files, not imports (probes/locate.consumer_module gives
    them module names that resolve their relative imports within the folder). A top-level entry
    holding Python that the selection leaves out is listed in `skipped` with the reason, for the
    report. Raises ValueError when nothing under `path` is Python at all."""
    root = path.resolve()
    keep = file_filter(root, selection)
    units: list[tuple[Path, str]] = []
    src = root / "src"
    src_packages = sorted(p.name for p in _entries(src) if (p / "__init__.py").is_file()) if src.is_dir() else []
    skipped: list[tuple[str, str]] = []
    for entry in _entries(root):
        name = entry.name
        if entry.is_dir():
            if entry == src and src_packages:
                units += [(src, pkg) for pkg in src_packages if keep(f"src/{pkg}/")]
                continue
            if not keep(name + "/"):
                if _has_python(entry, lambda _rel: True, name, budget=_SKIP_LOOK):
                    skipped.append((name + "/", _why_excluded(root, name + "/", selection)))
                continue
            if _has_python(entry, keep, name):  # any folder name: a script folder is read as files
                units.append((root, name))
        elif name.endswith(".py") and not (root / name[:-3]).is_dir():  # a folder of that name is the module
            if keep(name):
                units.append((root, name[:-3]))
            else:
                skipped.append((name, _why_excluded(root, name, selection)))
    if not units:
        raise ValueError(f"{path} holds no Python file drift may read"
                         + (" (include/exclude leave none)" if selection.include or selection.exclude else ""))
    return Discovered(root=root, units=units, keep=keep, skipped=skipped)


def _why_excluded(root: Path, rel: str, selection: Selection) -> str:
    """Which selection leaves `rel` (a top-level folder with its slash, or a file) unread."""
    if pathspec.PathSpec.from_lines("gitwildmatch", [f"{d}/" for d in DEFAULT_EXCLUDE]).match_file(rel):
        return "a tool, build or environment folder (ruff's default excludes)"
    ignored = _gitignore(root)
    if ignored is not None and ignored.match_file(rel):
        return "listed in .gitignore"
    if selection.exclude and pathspec.PathSpec.from_lines("gitwildmatch", selection.exclude).match_file(rel):
        return "excluded by the user's `exclude`"
    return "not matched by the user's `include`"


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return []


def _has_python(folder: Path, keep: Callable[[str], bool], rel: str, budget: int | None = None) -> bool:
    """Whether a `.py` file that `keep` admits lies under `folder` (pruned where keep refuses);
    with `budget`, False once that many directory entries were looked at (a `node_modules`)."""
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        here = rel + dirpath[len(str(folder)):].replace(os.sep, "/")
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and keep(f"{here}/{d}/")]
        if any(f.endswith(".py") and keep(f"{here}/{f}") for f in filenames):
            return True
        seen += len(dirnames) + len(filenames)
        if budget is not None and seen > budget:
            return False
    return False
