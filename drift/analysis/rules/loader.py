"""Find rule packs: the built-in ones, installed plugins, and files the user names.

A pack is a list of `Rule` objects. Plugins register one under the `drift.rules` entry point
group; a file passed with `--rules` exposes `RULES = [...]`.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import entry_points
from pathlib import Path

from drift.analysis.rules.base import Rule


class RuleLoadError(Exception):
    pass


def load_rules(paths: list[str] | None = None) -> tuple[list[Rule], frozenset[str]]:
    """(rules, extra dataclass decorators) from built-ins, entry points and files."""
    from drift.analysis.rules import GENERIC_RULES
    from drift.analysis.rules.vllm import DATACLASS_DECORATORS, VLLM_RULES

    rules: list[Rule] = list(GENERIC_RULES) + list(VLLM_RULES)
    decorators = set(DATACLASS_DECORATORS)
    seen = {r.id for r in rules}
    for ep in entry_points(group="drift.rules"):
        if ep.value.startswith("drift.analysis.rules"):
            continue  # the built-in packs, already loaded
        try:
            pack = ep.load()
        except Exception as exc:  # a broken plugin must not stop a check
            raise RuleLoadError(f"rule pack {ep.name!r} ({ep.value}) failed to load: {exc}") from None
        rules.extend(r for r in pack if isinstance(r, Rule) and r.id not in seen)
        seen |= {r.id for r in pack if isinstance(r, Rule)}
    for path in paths or []:
        file = Path(path)
        if not file.is_file():
            raise RuleLoadError(f"no such rules file: {path}")
        spec = importlib.util.spec_from_file_location(f"drift_user_rules_{file.stem}", file)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:
            raise RuleLoadError(f"rules file {path} failed to load: {type(exc).__name__}: {exc}") from None
        pack = getattr(module, "RULES", None)
        if not isinstance(pack, (list, tuple)) or not all(isinstance(r, Rule) for r in pack):
            raise RuleLoadError(f"rules file {path} must define RULES = [rule, ...] made with drift.analysis.rules.base.rule")
        rules.extend(r for r in pack if r.id not in seen)
        seen |= {r.id for r in pack}
        decorators |= set(getattr(module, "DATACLASS_DECORATORS", ()))
    return rules, frozenset(decorators)
