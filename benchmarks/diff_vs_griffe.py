"""Compare what `drift diff` and griffe report on vLLM 0.11.0 -> 0.16.0, category by category.

    python benchmarks/diff_vs_griffe.py [--json out.json] [--samples 10]

Runs `drift diff --json` and griffe's `find_breaking_changes` (public API, as griffe checks it)
on the same two trees, maps both vocabularies onto shared categories, and prints a Markdown
table: counts per side, and for the categories both name by path, how many of griffe's items
drift also reports. griffe lists an inherited member once per subclass; drift reports it once at
the class that defined it, so a griffe item counts as covered when drift reports the same name
on a class in the old MRO. `--samples N` also prints N random changes of each new drift kind
(for reading in the vLLM source; benchmarks/diff_vs_griffe.md records the verdicts).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_diff import drift_argv, trees  # noqa: E402

GRIFFE_DUMP = """
import json, logging, sys
logging.disable(logging.CRITICAL)
import griffe
old = griffe.load("vllm", search_paths=[sys.argv[1]], resolve_aliases=False)
new = griffe.load("vllm", search_paths=[sys.argv[2]], resolve_aliases=False)
def safe(f):
    try:
        return f()
    except Exception:
        return None
out = []
for b in griffe.find_breaking_changes(old, new):
    out.append({"kind": b.kind.name, "path": b.obj.path, "okind": safe(lambda: b.obj.kind.value),
                "labels": safe(lambda: sorted(b.obj.labels)) or [], "parent": safe(lambda: b.obj.parent.kind.value)})
print(json.dumps(out))
"""

NEW_KINDS = ("ATTRIBUTE_REMOVED", "ATTRIBUTE_TYPE_CHANGED", "CLASS_ATTRIBUTE_REMOVED", "PARAM_MOVED")

# category -> (drift kinds, griffe kind or (kind, object kind, parent kind, label))
CATEGORIES = [
    ("module removed", ("MODULE_REMOVED",), ("OBJECT_REMOVED", "module")),
    ("class/function removed or moved (module level)", ("SYMBOL_REMOVED@module", "SYMBOL_MOVED"),
     ("OBJECT_REMOVED", "class|function|alias|attribute:module")),
    ("method / nested class removed", ("SYMBOL_REMOVED@class",), ("OBJECT_REMOVED", "function|class:class")),
    ("instance attribute removed", ("ATTRIBUTE_REMOVED",), ("OBJECT_REMOVED", "instance")),
    ("class attribute / ClassVar removed", ("CLASS_ATTRIBUTE_REMOVED",), ("OBJECT_REMOVED", "class-attribute")),
    ("dataclass field removed", ("FIELD_REMOVED",), None),
    ("parameter removed", ("PARAM_REMOVED",), ("PARAMETER_REMOVED",)),
    ("parameter renamed", ("PARAM_RENAMED",), None),
    ("new required parameter / field", ("PARAM_REQUIRED_ADDED", "FIELD_REQUIRED_ADDED"), ("PARAMETER_ADDED_REQUIRED",)),
    ("default removed (now required)", ("PARAM_DEFAULT_REMOVED",), ("PARAMETER_CHANGED_REQUIRED",)),
    ("positional parameters moved (functions)", ("PARAM_MOVED", "PARAM_REORDERED"), ("PARAMETER_MOVED",)),
    ("parameter kind changed", ("PARAM_KIND_CHANGED",), ("PARAMETER_CHANGED_KIND",)),
    ("default changed", ("PARAM_DEFAULT_CHANGED", "FIELD_DEFAULT_CHANGED"), ("PARAMETER_CHANGED_DEFAULT",)),
    ("return annotation changed", ("RETURN_CHANGED",), ("RETURN_CHANGED_TYPE",)),
    ("base class changed / removed", ("BASE_CHANGED",), ("CLASS_REMOVED_BASE",)),
    ("object kind changed", ("CLASS_KIND_CHANGED",), ("OBJECT_CHANGED_KIND",)),
    ("instance attribute value kind changed", ("ATTRIBUTE_TYPE_CHANGED",), None),
    ("behaviour (two-phase, returns None, shape, state raise, arg assert)",
     ("TWO_PHASE_PROTOCOL", "RETURNS_NONE", "RETURN_SHAPE_DEPENDS", "STATE_RAISE_ADDED", "ARG_ASSERT_ADDED"), None),
]


def griffe_category(b: dict) -> str | None:
    kind, okind, parent, labels = b["kind"], b["okind"], b["parent"], set(b["labels"])
    if kind != "OBJECT_REMOVED":
        return next((name for name, _, g in CATEGORIES if g and g[0] == kind and len(g) == 1), None)
    if okind == "module":
        return "module removed"
    if okind == "attribute" and parent == "class":
        if "instance-attribute" in labels:
            return "instance attribute removed"
        return "class attribute / ClassVar removed"
    if parent == "class":
        return "method / nested class removed"
    return "class/function removed or moved (module level)"


def drift_category(c: dict, class_symbols: set[str]) -> str | None:
    kind = c["kind"]
    if kind == "SYMBOL_REMOVED":
        owner = c["dotted"].rsplit(".", 1)[0]
        kind += "@class" if owner in class_symbols else "@module"
    return next((name for name, kinds, _ in CATEGORIES if kind in kinds), None)


def run_tools(old: Path, new: Path) -> tuple[dict, list[dict]]:
    with tempfile.TemporaryDirectory(prefix="drift-vs-griffe-") as cache:
        out = subprocess.run(drift_argv(old, new, Path(cache)), capture_output=True, check=True, cwd=str(REPO),
                             env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    drift_doc = json.loads(out.stdout)
    g = subprocess.run([sys.executable, "-c", GRIFFE_DUMP, str(old), str(new)], capture_output=True, check=True)
    return drift_doc, json.loads(g.stdout)


def old_mros(old: Path) -> dict[str, list[str]]:
    """dotted class -> dotted classes of its old MRO, from drift's own resolver."""
    from drift.model.index import PackageIndex
    from drift.model.targets import load_facts

    facts = load_facts(str(old), packages=["vllm"]).facts
    index = PackageIndex(facts)
    return {cls.dotted: [s.dotted for s in index.mro_of(cls)] for cls in index.iter_classes()}


def compare(drift_doc: dict, griffe: list[dict], mros: dict[str, list[str]]) -> list[dict]:
    classes = set(mros)
    public = [c for c in drift_doc["changes"] if not c["private"]]
    counts_d: dict[str, int] = collections.Counter()
    paths_d: dict[str, set[str]] = collections.defaultdict(set)
    moves = _moves(drift_doc)
    for c in public:
        cat = drift_category(c, classes)
        if cat is None:
            continue
        counts_d[cat] += 1
        paths_d[cat].update(_paths(c, classes, moves))
        if c["kind"] == "FIELD_REMOVED":  # a dataclass's generated __init__ lost that parameter
            paths_d["parameter removed"].add(c["dotted"] + ".__init__")
        elif c["kind"] == "FIELD_REQUIRED_ADDED":
            paths_d["new required parameter / field"].add(c["dotted"] + ".__init__")
        elif c["kind"] == "PARAM_RENAMED":  # griffe: the old name removed, the new one added
            paths_d["parameter removed"].update(_paths(c, classes, moves))
            paths_d["new required parameter / field"].update(_paths(c, classes, moves))
    members = paths_d["method / nested class removed"]  # a property is an attribute to griffe
    counts_g: dict[str, int] = collections.Counter()
    paths_g: dict[str, set[str]] = collections.defaultdict(set)
    for b in griffe:
        cat = griffe_category(b)
        if cat is None:
            continue
        paths_g[cat].add(b["path"])
    for cat, paths in paths_g.items():
        counts_g[cat] = len(paths) if cat.startswith("positional") else sum(1 for b in griffe if griffe_category(b) == cat)
    rows = []
    for name, _, g in CATEGORIES:
        covered = None
        if g is not None and paths_g[name]:
            mine = paths_d[name]
            if name in ("instance attribute removed", "class attribute / ClassVar removed"):
                mine = paths_d["instance attribute removed"] | paths_d["class attribute / ClassVar removed"] \
                    | paths_d["dataclass field removed"] | members
            if name == "class/function removed or moved (module level)":
                mine = mine | paths_d["module removed"]
            covered = sum(1 for p in paths_g[name] if _covered(p, mine, mros))
        rows.append({"category": name, "drift": counts_d[name], "griffe": counts_g[name] if g else None,
                     "griffe_paths": len(paths_g[name]) if g else None, "griffe_covered_by_drift": covered})
    return rows


def _drift_path(c: dict, classes: set[str]) -> str:
    """The dotted path griffe would name for a drift change: a field's own path (drift reports a
    removed field at its class, with the field's name as the detail), a class's `__init__` for
    moved constructor parameters."""
    path = c["dotted"]
    if c["kind"] == "FIELD_REMOVED":
        return f"{path}.{c['detail'].split(':', 1)[0].strip()}"
    if c["kind"] in ("PARAM_MOVED", "PARAM_REORDERED") and path in classes:
        return path + ".__init__"
    return path


def _moves(drift_doc: dict) -> dict[str, str]:
    """old dotted -> new dotted of every symbol drift reports as moved (the new dotted is the
    note of its new evidence)."""
    return {c["dotted"]: c["new"][0]["note"] for c in drift_doc["changes"]
            if c["kind"] == "SYMBOL_MOVED" and c["new"] and c["new"][0].get("note")}


def _paths(c: dict, classes: set[str], moves: dict[str, str]) -> set[str]:
    """The change's path, and the same path under the new home of a moved class: griffe names
    a changed member of a moved class by where the class lives now."""
    path = _drift_path(c, classes)
    out = {path}
    for ev in c["new"][:1]:  # compared where it is defined now (a re-exported class): griffe's name
        module = ev["path"][:-3].replace("/", ".").removesuffix(".__init__") if ev["path"].endswith(".py") else ""
        if module and module != c["module"] and c["symbol"]:
            out.add(f"{module}.{path[len(c['module']) + 1:]}")
    parts = path.split(".")
    for i in range(len(parts) - 1, 1, -1):
        new = moves.get(".".join(parts[:i]))
        if new:
            out.add(".".join([new] + parts[i:]))
            break
    return out


def uncovered(drift_doc: dict, griffe: list[dict], mros: dict[str, list[str]]) -> dict[str, list[str]]:
    """griffe's public items that drift does not report, by category (for reading in the source)."""
    classes = set(mros)
    moves = _moves(drift_doc)
    mine: set[str] = set()
    for c in drift_doc["changes"]:
        if not c["private"] and drift_category(c, classes) is not None:
            mine |= _paths(c, classes, moves)
            if c["kind"] in ("FIELD_REMOVED", "FIELD_REQUIRED_ADDED"):
                mine.add(c["dotted"] + ".__init__")
    out: dict[str, list[str]] = collections.defaultdict(list)
    for b in griffe:
        cat = griffe_category(b)
        if cat is not None and not _covered(b["path"], mine, mros):
            out[cat].append(b["path"])
    return out


def _covered(path: str, mine: set[str], mros: dict[str, list[str]]) -> bool:
    if path in mine:
        return True
    owner, _, name = path.rpartition(".")
    if owner in mros:  # inherited: drift reports it at a class of the old MRO
        return any(f"{base}.{name}" in mine for base in mros[owner])
    parts = path.split(".")  # a member of a removed module or class
    return any(".".join(parts[:i]) in mine for i in range(2, len(parts)))


def table(rows: list[dict]) -> str:
    out = ["| category | drift | griffe | griffe items drift also reports |", "|---|---:|---:|---:|"]
    for r in rows:
        g = "-" if r["griffe"] is None else str(r["griffe"])
        cov = "-" if r["griffe_covered_by_drift"] is None else \
            f"{r['griffe_covered_by_drift']} / {r['griffe_paths']}"
        out.append(f"| {r['category']} | {r['drift']} | {g} | {cov} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--uncovered", type=int, default=0, metavar="N",
                        help="list N random griffe items per category that drift does not report")
    args = parser.parse_args()
    old, new = trees()
    drift_doc, griffe = run_tools(old, new)
    mros = old_mros(old)
    rows = compare(drift_doc, griffe, mros)
    print("public API only (griffe skips private names; drift's private changes are left out)\n")
    print(table(rows))
    by_kind = drift_doc["summary"]["by_kind"]
    print("\ndrift, all changes by kind (private included): "
          + ", ".join(f"{k} {v}" for k, v in by_kind.items()))
    print("griffe by kind: " + ", ".join(f"{k} {v}" for k, v in collections.Counter(b['kind'] for b in griffe).items()))
    if args.samples:
        rng = random.Random(10)
        for kind in NEW_KINDS + ("RETURNS_NONE", "STATE_RAISE_ADDED", "ARG_ASSERT_ADDED"):
            pool = [c for c in drift_doc["changes"] if c["kind"] == kind and not c["private"]]
            print(f"\n## {kind}: {len(pool)} public")
            for c in rng.sample(pool, min(args.samples, len(pool))):
                ev = " ".join(f"{e['path']}:{e['line']}" for e in c["old"] + c["new"])
                print(f"- {c['dotted']}: {c['detail']}  [{ev}]")
    if args.uncovered:
        rng = random.Random(10)
        for cat, paths in sorted(uncovered(drift_doc, griffe, mros).items()):
            print(f"\n## griffe only, {cat}: {len(paths)}")
            for p in rng.sample(sorted(paths), min(args.uncovered, len(paths))):
                print(f"- {p}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "drift_by_kind": by_kind}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
