"""A removed setting whose value the baseline had already pinned (`envs.VLLM_USE_V1`: vLLM 0.11's
own engines raise `if not envs.VLLM_USE_V1:`, and 0.13 drops the setting).

Why: a setting read from a settings module (`"NAME": lambda: <expr of os.getenv(...)>`) that the
target removed cannot be read any more, but when the baseline's own code refuses every run where
it is false (a `raise` whose guard is `not <settings>.NAME`), the only value any working run of the
baseline saw is true, and the target, which no longer has the switch, behaves as that value did.
The consumer's read is then that constant: `if not NAME: raise ...` goes, `if NAME:` keeps its
body, `assert NAME` goes. The evidence is the probe's record of the settings module (its
`env_defaults`) and of the raises in the baseline's functions with their guards (`raises`), read
only in modules whose text names the setting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, word

_GUARD = re.compile(r"^(not\s+)?((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)$")


@dataclass(frozen=True)
class Pin:
    value: bool  # what every run of the baseline that got past the raise had
    path: str  # where the baseline raises otherwise
    line: int


def _build_guards(index: PackageIndex, modules: Iterable[str] | None = None) -> dict[str, list[list]]:
    """setting name -> [[settings module, value the raise leaves, path, line]] for every raise
    guarded by a bare read of a module's attribute (`if not envs.X: raise`), the module resolved
    through the raising module's imports (plain lists: the answer is stored)."""
    out: dict[str, list[list]] = {}
    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        for fn in mod.every_function():
            for r in fn.behaviour.raises:
                m = _GUARD.match((r.guard or "").strip())
                if not m or not m.group(2):
                    continue
                head = m.group(2).rstrip(".")
                imp = mod.imports.get(head.split(".", 1)[0])
                if imp is None:
                    continue
                settings = imp.target + head[len(head.split(".", 1)[0]):]
                out.setdefault(m.group(3), []).append([settings, bool(m.group(1)), mod.path, r.line])
    return out


def pinned_value(baseline: PackageIndex | None, settings: str, name: str) -> Pin | None:
    """The value the baseline pinned setting `name` of settings module `settings` to, when the
    module declares it as a setting and the baseline's own code raises whenever it is otherwise
    (and never the other way round); None when nothing pins it."""
    if baseline is None:
        return None
    raw = baseline.modules.get(settings)
    if raw is None or name not in ModuleFacts(raw).env_defaults:
        return None
    hits = [h for h in baseline.query("setting_guards", name, needle=word(name), build=_build_guards, default=[])
            if h[0] == settings]
    values = {h[1] for h in hits}
    if len(values) != 1:
        return None  # no raise pins it, or raises on both values: nothing is known
    settings_, value, path, line = sorted(hits, key=lambda h: (h[2], h[3]))[0]
    return Pin(value=value, path=path, line=line)
