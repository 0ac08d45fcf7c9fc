"""The version test a range consumer's gated edits use: its own helper, else one drift adds once.

Why the consumer's own: a reviewer accepts `if vllm_version_is("0.11.0"):` in vllm-ascend
because every other branch there reads the same way. A helper is recognised the way drift's
guard reading evaluates one (probes/reach.py `version_predicates`): a function of one
parameter, "version" in its name, returning a comparison of that parameter with the running
vLLM's version; else a module constant holding the running version as a version object
(`_VLLM_VERSION = Version(vllm.__version__)`), compared by its `base_version`. Without one, drift adds `vllm_version_at_least` in a module of its own where
the project keeps its utilities (`<pkg>/utils/` when that is a package), comparing
`base_version`s so a dev or local build (0.12.0.dev3+g1a2b, 0.12.0+cu124) counts as its release.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Mapping

from drift.fixes.gate import VersionGate

HELPER_NAME = "vllm_version_at_least"

HELPER_TEXT = '''"""The running vLLM's version, for code that supports more than one vLLM release.

Added by drift: each version-gated edit calls `vllm_version_at_least`, and
`grep -rn "drift-gate:"` finds the branches to delete when an old vLLM is dropped.
"""

from packaging.version import Version


def vllm_version_at_least(version: str) -> bool:
    """Whether the installed vLLM is `version` or newer.

    base_version: a dev or local build (0.12.0.dev3+g1a2b, 0.12.0+cu124) counts as its release.
    """
    import vllm

    return Version(Version(vllm.__version__).base_version) >= Version(version)
'''

_OPS = {ast.GtE: ">=", ast.Lt: "<", ast.Eq: "=="}
_FLIP = {">=": "<=", "<": ">", "==": "=="}


def _module_of(path: str) -> str:
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _mentions_running_version(node: ast.AST) -> bool:
    """`vllm.__version__`, `version("vllm")`, a local named `vllm_version`: the installed release."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and "vllm" in n.id.lower():
            return True
        if isinstance(n, ast.Attribute) and n.attr == "__version__":
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Constant) and a.value == "vllm" for a in n.args):
            return True
    return False


def own_helpers(path: str, source: str) -> list[tuple[str, str]]:
    """(function name, op as `param <op> running`-flipped to `running <op> param`) defined at module level."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    out = []
    for fn in tree.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(fn, ast.AsyncFunctionDef):
            continue
        if len(fn.args.args) != 1 or fn.args.vararg or fn.args.kwonlyargs or "version" not in fn.name.lower():
            continue
        param = fn.args.args[0].arg
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Compare)
                    and len(node.value.ops) == 1 and type(node.value.ops[0]) in _OPS):
                continue
            op = _OPS[type(node.value.ops[0])]
            left, right = node.value.left, node.value.comparators[0]
            uses = lambda n: any(isinstance(x, ast.Name) and x.id == param for x in ast.walk(n))  # noqa: E731
            if uses(right) and not uses(left) and _mentions_running_version(left):
                out.append((fn.name, op))
            elif uses(left) and not uses(right) and _mentions_running_version(right):
                out.append((fn.name, _FLIP[op]))
            break
    return out


def own_constants(source: str) -> list[str]:
    """Module-level `NAME = Version(vllm.__version__)` (or `parse(...)`, `vs.parse(version("vllm"))`):
    the running vLLM's version as a version object, "vllm" and "version" in its name."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    out = []
    for st in tree.body:
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
            continue
        name, value = st.targets[0].id, st.value
        if "vllm" not in name.lower() or "version" not in name.lower() or not isinstance(value, ast.Call):
            continue
        func = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
        if func in ("Version", "parse") and len(value.args) == 1 and _mentions_running_version(value.args[0]):
            out.append(name)
    return out


def _package_texts(files: Mapping[str, bytes], top: str):
    """(path, text) of the package's Python files that decode as UTF-8, in path order."""
    for path in sorted(files):
        if path.startswith(f"{top}/") and path.endswith(".py"):
            try:
                yield path, files[path].decode("utf-8")
            except UnicodeDecodeError:
                continue


def choose_gate(files: Mapping[str, bytes], *, top: str, since: str, before: str,
                line_length: int = 88) -> VersionGate:
    """The gate for a consumer whose package is `top`, given the files drift could read.

    `files` holds the consumer's Python files (path relative to the directory that holds `top`);
    a utilities package is recognised by its `__init__.py` being among them.
    """
    for path, text in _package_texts(files, top):
        if "version" not in text:
            continue
        for name, op in own_helpers(path, text):
            module = _module_of(path)
            if op == ">=":
                return VersionGate(since, before, f'{name}("{since}")', import_from=module, name=name,
                                   line_length=line_length)
            if op == "<":
                return VersionGate(since, before, f'not {name}("{since}")', import_from=module, name=name,
                                   line_length=line_length)
            if op == "==":
                return VersionGate(since, before, f'{name}("{before}")', new_first=False, import_from=module,
                                   name=name, line_length=line_length)
    for path, text in _package_texts(files, top):
        if "version" not in text.lower():
            continue
        for name in own_constants(text):
            # base_version: a dev or local build counts as its release, as in drift's own helper
            return VersionGate(since, before, f'Version({name}.base_version) >= Version("{since}")',
                               import_from=_module_of(path), name=name, line_length=line_length,
                               extra_imports=(("packaging.version", "Version"),))
    folder = f"{top}/utils" if f"{top}/utils/__init__.py" in files else top
    path = f"{folder}/vllm_version.py"
    if path in files:
        path = f"{folder}/_drift_vllm_version.py"
    return VersionGate(since, before, f'{HELPER_NAME}("{since}")', import_from=_module_of(path), name=HELPER_NAME,
                       helper_path=path, helper_text=HELPER_TEXT, line_length=line_length)


def tree_files(root: str | Path, top: str, *, limit: int = 5000, max_bytes: int = 2 << 20) -> dict[str, bytes]:
    """The Python files of package `top` in a source checkout (relative paths), bounded: what
    `choose_gate` searches for the consumer's own version helper."""
    base = Path(root)
    out: dict[str, bytes] = {}
    for path in sorted((base / top).rglob("*.py")):
        if len(out) >= limit:
            break
        if path.is_symlink() or not path.is_file() or path.stat().st_size > max_bytes:
            continue
        out[path.relative_to(base).as_posix()] = path.read_bytes()
    return out


def top_package(paths: list[str], packages: list[str]) -> str:
    """The consumer package the fixes edit most (a wheel may ship `scripts/` beside `verl/`)."""
    counts = Counter(p.split("/")[0] for p in paths if "/" in p)
    for name, _ in counts.most_common():
        if not packages or name in packages:
            return name
    return packages[0] if packages else ""
