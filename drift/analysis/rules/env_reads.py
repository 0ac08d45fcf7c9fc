"""A removed setting of a settings module read again from the environment, as the baseline read it.

Why: vLLM's `envs.py` maps each setting to `lambda: <expr of os.getenv("NAME", ...)>`. When the
target drops a setting (`VLLM_TPU_BUCKET_PADDING_GAP`), a consumer's `envs.NAME` raises
AttributeError; but what the baseline handed the consumer was that expression's value, evaluated
from the process environment. Writing the expression in place of the read gives the consumer the
very value it got on the baseline, for every environment (the user's setting keeps working), so
the edit changes nothing the consumer computes: a safe fix. The maintainers who meet this move
the variable into their own settings module; the value is the same.

Only an expression that needs nothing of the settings module: it reads `os` and builtins alone
(a helper of `envs.py`, `get_default_cache_root()`, would not resolve in the consumer's module),
and the probe did not cut it. The probe records each setting's whole expression (`env_exprs`,
probes/choices.py), whatever form its read takes. A setting the baseline had pinned is settled instead
(pinned_settings.py); one whose successor the baseline's deprecation code names is renamed.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex

_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class EnvRead:
    expr: str  # the baseline's expression for the setting
    path: str  # the settings module in the baseline
    line: int


def env_read(baseline: PackageIndex | None, settings: str, name: str) -> EnvRead | None:
    """The baseline's expression for setting `name` of settings module `settings`, when it reads
    only the environment (`os`) and builtins; None otherwise."""
    if baseline is None:
        return None
    raw = baseline.modules.get(settings)
    if raw is None:
        return None
    mod = ModuleFacts(raw)
    env = mod.env_exprs.get(name)
    if env is None or not env.expr or env.expr.endswith("…"):
        return None
    try:
        tree = ast.parse(env.expr.strip(), mode="eval")
    except SyntaxError:
        return None
    if any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(tree)):
        return None
    bound = {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
             if isinstance(n, ast.Name)}
    free = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - bound
    if "os" not in free or not free <= _BUILTINS | {"os"}:
        return None
    flat = re.sub(r"\s*\n\s*", " ", env.expr.strip())  # the baseline's own words, on one line
    try:
        same = ast.dump(ast.parse(flat, mode="eval")) == ast.dump(tree)
    except SyntaxError:
        same = False
    return EnvRead(expr=flat if same else ast.unparse(tree), path=mod.path, line=env.line)
