"""Successors the baseline's own deprecation code names for a name the target dropped.

Why: vLLM usually deprecates before it deletes, and the deprecation code says what replaces the
name (`guided_decoding` -> `structured_outputs`, `GuidedDecodingParams` ->
`StructuredOutputsParams`, `PassConfig.enable_sequence_parallelism` -> `enable_sp`). The probe
records those renames per module (`deprecations`, probes/deprecations.py); this module answers,
for one dropped name of one baseline class or function, the successor and the conversion the
shim applied, and only when the target still has the successor where the old name was. The
tier follows the shim: one-to-one without converting the value is safe (the code the consumer
ran already did exactly this), a conversion is unsafe (it is the shim's, not checked here).
"""

from __future__ import annotations

from dataclasses import dataclass

from drift.findings import SAFE, UNSAFE, Fix, Location
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, Symbol


@dataclass(frozen=True)
class Rename:
    old: str
    new: str
    convert: str | None  # None: as is; "not"; a call's text with `{}` where the value goes
    evidence: Location  # the baseline's deprecation code

    @property
    def tier(self) -> str:
        return SAFE if self.convert is None else UNSAFE

    def value(self, text: str) -> str:
        """The value the successor takes, written from the old value's source `text`."""
        if self.convert is None:
            return text
        if self.convert == "not":
            return f"not {text}" if text.replace(".", "").replace("_", "").isalnum() else f"not ({text})"
        return self.convert.replace("{}", text)

    @property
    def how(self) -> str:
        """The conversion said in words, for the fix text."""
        if self.convert is None:
            return "the baseline's deprecation shim hands the value on unchanged"
        if self.convert == "not":
            return "the baseline's shim inverts the value (`not`)"
        return f"the baseline's shim converts the value as `{self.convert.replace('{}', '…')}`"


def _records(index: PackageIndex, module: str) -> list[dict]:
    raw = index.modules.get(module)
    return list(ModuleFacts(raw).deprecations or ()) if raw is not None else []


def _find(index: PackageIndex, module: str, path: str, *, owner: str, old: str, via: str,
          func: str = "") -> Rename | None:
    hits = [r for r in _records(index, module)
            if r.get("owner") == owner and r.get("old") == old and r.get("via") == via and r.get("func", "") == func]
    news = {(r["new"], r.get("convert")) for r in hits}
    if len(news) != 1:
        return None  # none, or two shims that disagree: nothing to follow
    (new, convert), = news
    return Rename(old=old, new=new, convert=convert, evidence=Location(path, hits[0].get("line") or 1, symbol=f"{module}.{owner or old}"))


def _classes(index: PackageIndex, cls: Symbol) -> list[Symbol]:
    return index.mro(cls) or [cls]


def keyword_rename(baseline: PackageIndex, params_at: Symbol | None, keyword: str) -> Rename | None:
    """The successor of constructor/function keyword `keyword`, from the baseline's shim in the
    callable whose parameters took it (`params_at`: a class, its `__init__`, or a function)."""
    if params_at is None:
        return None
    if params_at.kind == "class":
        owners, func = _classes(baseline, params_at), ""
    elif params_at.kind == "method" and params_at.owner is not None:
        name = params_at.dotted.rsplit(".", 1)[-1]
        owners, func = [params_at.owner], ("" if name == "__init__" else name)
        if func == "":
            owners = _classes(baseline, params_at.owner)
    elif params_at.kind == "function":
        return _find(baseline, params_at.module, params_at.path, owner="", old=keyword, via="keyword",
                     func=params_at.dotted.rsplit(".", 1)[-1])
    else:
        return None
    for cls in owners:
        hit = _find(baseline, cls.module, cls.path, owner=cls.dotted.rsplit(".", 1)[-1], old=keyword,
                    via="keyword", func=func)
        if hit:
            return hit
    return None


def attribute_rename(baseline: PackageIndex, cls: Symbol | None, name: str) -> Rename | None:
    """The successor of attribute `name` read on an instance of baseline class `cls`."""
    if cls is None:
        return None
    for owner in _classes(baseline, cls):
        hit = _find(baseline, owner.module, owner.path, owner=owner.dotted.rsplit(".", 1)[-1], old=name,
                    via="attribute")
        if hit:
            return hit
    return None


def name_rename(baseline: PackageIndex, module: str, name: str) -> Rename | None:
    """The successor of a deprecated alias `module.name` (a class whose shim names its base)."""
    sym = baseline.lookup(f"{module}.{name}")
    if sym is None or sym.kind != "class":
        return None
    return _find(baseline, sym.module, sym.path, owner="", old=sym.dotted.rsplit(".", 1)[-1], via="name")


def keyword_fix(rename: Rename, *, callee: str, value: str | None) -> Fix:
    """`rename_keyword`, said as the edit it makes (`guided_decoding=g` -> `structured_outputs=g`)."""
    shown = value if value else "…"
    return Fix(f"pass `{rename.new}={rename.value(shown)}` instead of `{rename.old}={shown}` "
               f"({rename.how}, {rename.evidence})",
               codemod="rename_keyword", tier=rename.tier,
               args={"callee": callee, "old": rename.old, "new": rename.new, "convert": rename.convert})


def successor_fix(baseline: PackageIndex | None, params_at: Symbol | None, keyword: str, *, accepted: set[str],
                  passed: set[str] | frozenset[str] = frozenset(), callee: str, value: str | None) -> Fix | None:
    """`rename_keyword` when the baseline's shim in `params_at` named a successor of `keyword`
    that the target's callable accepts (`accepted`) and the call does not pass already (`passed`)."""
    if baseline is None:
        return None
    rename = keyword_rename(baseline, params_at, keyword)
    if rename is None or rename.new not in accepted or rename.new in passed:
        return None
    return keyword_fix(rename, callee=callee, value=value)


def attribute_fix(rename: Rename, *, owner: str) -> Fix:
    """`rename_attribute`, said as the edit (`x.enable_sequence_parallelism` -> `x.enable_sp`)."""
    return Fix(f"read `{rename.value(owner + '.' + rename.new)}` instead of `{owner}.{rename.old}` "
               f"({rename.how}, {rename.evidence})",
               codemod="rename_attribute", tier=rename.tier,
               args={"old": rename.old, "new": rename.new, "convert": rename.convert})


def import_fix(rename: Rename, *, module: str) -> Fix:
    """`rename_import`: the successor in the import and every use of the alias in the file."""
    return Fix(f"import `{rename.new}` from `{module}` instead of `{rename.old}` and use it wherever the file "
               f"uses `{rename.old}` (the baseline deprecated the alias in favour of its base, {rename.evidence})",
               codemod="rename_import", tier=rename.tier, args={"old": rename.old, "new": rename.new})
