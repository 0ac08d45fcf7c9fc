"""The house keeps its layout: a folder per stage, imports one way, no cycles (docs/architecture.md).

Read from the code's own imports with `ast`, deferred imports (inside functions) included: a
cycle broken only by a late import is still a cycle of design. `TYPE_CHECKING` imports count
too. A stage may import the core and the stages below it, never one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOPS = ("drift", "probes", "reports")

# lowest first; a module may import its own stage and those listed before it
STAGES = ["core", "remote", "sources", "model", "consumer", "analysis", "fixes", "jobs", "pipeline", "reports",
          "commands"]
CORE = {"exitcodes", "kinds", "findings", "output", "inputs", "config", "suppress"}  # loose modules at drift/'s top
MAX_LOOSE = 10


def _modules() -> dict[str, Path]:
    mods = {}
    for top in TOPS:
        for p in (REPO / top).rglob("*.py"):
            if "__pycache__" in p.parts:
                continue
            parts = list(p.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = p
    return mods


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    for alias, real in (("drift.probes", "probes"), ("drift.reports", "reports")):
        if name == alias or name.startswith(alias + "."):
            name = real + name[len(alias):]
    while name:
        if name in mods:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        is_pkg = p.name == "__init__.py"
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = m.split(".") if is_pkg else m.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                r = _resolve(t, mods)
                if r and r != m and not m.startswith(r + ".") and r != m.rpartition(".")[0]:
                    edges[m].add(r)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def stage_of(module: str) -> str:
    if module.startswith("probes"):
        return "core"  # stdlib code every stage may ship or reuse; it imports nothing of drift
    if module.startswith("reports"):
        return "reports"
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in CORE:
        return "core"
    if parts[1] == "cli":
        return "commands"
    return parts[1]


def test_no_import_cycle_among_drifts_own_modules():
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_belongs_to_a_known_stage():
    unknown = sorted(m for m in import_graph() if m.startswith("drift.") and stage_of(m) not in STAGES)
    assert unknown == [], f"modules outside every stage folder (add the folder to STAGES, in its place): {unknown}"


def test_imports_point_one_way():
    upward = []
    for src, dsts in import_graph().items():
        if src.startswith("probes"):
            continue
        for dst in dsts:
            if STAGES.index(stage_of(dst)) > STAGES.index(stage_of(src)):
                upward.append(f"{src} ({stage_of(src)}) imports {dst} ({stage_of(dst)})")
    assert upward == []


def test_probes_never_import_drift():
    assert [(m, d) for m, ds in import_graph().items() if m.startswith("probes")
            for d in ds if not d.startswith("probes")] == []


def test_few_modules_loose_at_the_top():
    loose = sorted(p.stem for p in (REPO / "drift").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= MAX_LOOSE, loose
    assert set(loose) <= CORE | {"cli"}, f"a new top-level module belongs in a stage folder: {set(loose) - CORE}"
