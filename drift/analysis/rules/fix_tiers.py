"""How safe a rule's fix is, decided from the evidence the rule already holds.

Why a separate module: every rule that offers `drop_keyword` must judge it the same way. A
dropped keyword is safe only when the value the consumer passed is the value the baseline used
anyway (its default), or a value that carries no data (`None`, an empty literal), or a keyword the
baseline's callable took and never read (`noop_in_baseline`: vLLM 0.11's `from_vllm_config` kept
`disable_log_requests` for its deprecation warning only): then the drop loses nothing. Otherwise the consumer chose something the
target no longer lets it say (`SamplingParams(guided_decoding=...)` dropped silently loses the
constraint), so the drop is unsafe: `drift patch` applies it only with `--unsafe-fixes`.

A range consumer's patch is different (`gated_tier`): there the edit sits in a vLLM-version
branch whose other arm is the consumer's statement verbatim, so no run on the baseline changes,
and on the target the original call raised. What is left to fear is a value the target still
wants under another name (`guided_decoding=` -> `structured_outputs=`, `uniform_decode=` ->
`uniform=`). When the target's callable takes no parameter the baseline's did not (a pure
removal: nothing in the target's signature can be the dropped value's successor), the branch's
drop loses nothing the target could still say, so it is safe there (`removal_gated_tier`). Unless
the baseline typed the dropped parameter with a class of its own that the target no longer defines
(`gone_value_types`): then the value was a vLLM object whose meaning moved elsewhere, not into the
same signature (vLLM 0.10's `LLM.generate(guided_options_request: GuidedDecodingRequest)` went in
0.11 with its class, and the constraint lives on as `SamplingParams(structured_outputs=...)`);
dropping it would silently lose the constraint, so the drop stays unsafe in the branch too.
"""

from __future__ import annotations

import ast
from typing import Iterable, Sequence

from drift.findings import SAFE, UNSAFE, Fix
from drift.model.facts import Param


def same_value(a: str | None, b: str | None) -> bool:
    """Two source texts of the same Python expression (spacing, quotes and parentheses aside)."""
    if a is None or b is None:
        return False
    try:
        return ast.dump(ast.parse(a.strip(), mode="eval")) == ast.dump(ast.parse(b.strip(), mode="eval"))
    except (SyntaxError, ValueError):
        return a.strip() == b.strip()


def passes_nothing(value: str | None) -> bool:
    """`None` or an empty literal (`{}`, `[]`, `()`, `""`, `set()`, `dict()`): a value that carries
    no data, so dropping it loses none (`grammar_bitmask=None`). `False` and `0` are choices."""
    if value is None:
        return False
    try:
        node = ast.parse(value.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return False
    if isinstance(node, ast.Constant):
        return node.value is None or node.value in ("", b"")
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (node.keys if isinstance(node, ast.Dict) else node.elts)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords
            and node.func.id in ("dict", "list", "tuple", "set"))


def removal_gated_tier(target_params, baseline_params, *, breaks: bool = True,  # type: ignore[no-untyped-def]
                       gone_types: Sequence[str] = ()) -> str | None:
    """SAFE when a drop is a pure removal: the target's callable has no parameter the baseline's
    lacked (so none can be the dropped value's successor), the original call raises on the
    target (`breaks`) and the dropped value is not of a baseline class the target lost
    (`gone_types`, from `gone_value_types`); else None. Its tier inside a vLLM-version branch (see
    the module's text)."""
    if not breaks or gone_types or target_params is None or baseline_params is None:
        return None
    before = {p.name for p in baseline_params}
    if any(p.name not in before for p in target_params):
        return None
    return SAFE


def gone_value_types(baseline, target, params_at, params, names: Iterable[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """The classes the baseline's annotations of parameters `names` (of `params`, the baseline's
    parameters of callable `params_at`, resolved in its module) name that the target no longer
    defines at the same dotted name, sorted. Builtins and other packages' types do not resolve in
    the baseline's index and never count."""
    if baseline is None or target is None or params_at is None or not params:
        return []
    wanted = set(names)
    gone: set[str] = set()
    for p in params:
        if p.name not in wanted or not p.annotation:
            continue
        for text in _annotation_names(p.annotation):
            sym = baseline.resolve_in(params_at.module, text)
            if sym is not None and sym.kind == "class" and target.lookup(sym.dotted) is None:
                gone.add(sym.dotted)
    return sorted(gone)


def _annotation_names(annotation: str) -> list[str]:
    """The dotted names an annotation's text reads (`Optional[Union[a.B, C]]` -> Optional, Union,
    a.B, C); quoted forward references are read too; [] when it does not parse."""
    try:
        tree = ast.parse(annotation.strip().strip("'\""), mode="eval")
    except SyntaxError:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.extend(_annotation_names(node.value))
        elif isinstance(node, (ast.Name, ast.Attribute)):
            parts: list[str] = []
            cur: ast.AST = node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name):
                out.append(".".join([cur.id, *reversed(parts)]))
    return out


# decorators that hand a call on unchanged (a deprecation decorator only warns): under any other,
# a parameter the body never reads may still be read by the wrapper
_PASS_THROUGH = ("classmethod", "staticmethod", "override", "abstractmethod", "wraps")


def noop_in_baseline(sym, keyword: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether the baseline's callable `sym` (a function or method Symbol) takes `keyword` and its
    body never mentions it (facts +ur, `unread_params`), under decorators that pass calls on
    unchanged: whatever the consumer passed there, the baseline did nothing with it."""
    if sym is None or sym.kind not in ("function", "method"):
        return False
    fn = sym.as_function
    for d in fn.decorators:
        last = d.rsplit(".", 1)[-1]
        if last not in _PASS_THROUGH and "deprecat" not in last.lower():
            return False
    return keyword in fn.behaviour.unread_params


def drop_keyword_fix(*, callee: str, keyword: str, value: str | None, base_param: Param | None,
                     gated_tier: str | None = None, noop: str | None = None, gone_types: Sequence[str] = ()) -> Fix:
    """`drop_keyword`, safe when the value passed equals the baseline's default or the baseline's
    callable never read the keyword (`noop`: where, for the text), else unsafe; `gated_tier` (from
    `removal_gated_tier`): its tier inside a vLLM-version branch; `gone_types` (from
    `gone_value_types`): the baseline classes the value was typed with that the target lost, named
    in the text as the reason the drop is unsafe even there."""
    args = {"callee": callee, "keyword": keyword}
    if noop is not None:
        shown = f"{keyword}={value}" if value else f"{keyword}="
        return Fix(f"drop `{shown}` from the call (the baseline's `{callee}` took it and never read it, {noop}: "
                   f"dropping it changes nothing the baseline did)", codemod="drop_keyword",
                   args={**args, "unread_in": noop}, tier=SAFE)
    if base_param is not None and same_value(value, base_param.default):
        return Fix(f"drop `{keyword}={value}` from the call (the baseline's default: dropping it loses nothing)",
                   codemod="drop_keyword", args=args, tier=SAFE)
    if passes_nothing(value):
        return Fix(f"drop `{keyword}={value}` from the call (it passes no data: dropping it loses nothing)",
                   codemod="drop_keyword", args=args, tier=SAFE)
    shown = f"{keyword}={value}" if value else f"{keyword}="
    if gated_tier == SAFE:
        return Fix(f"drop `{shown}` from the call (the value the consumer chose is lost on the target, whose "
                   f"`{callee}` takes no new parameter that could hold it; safe in a vLLM-version branch that "
                   f"keeps the call for the baseline)", codemod="drop_keyword", args=args, tier=UNSAFE,
                   gated_tier=SAFE)
    if gone_types:
        named = ", ".join(f"`{t.rsplit('.', 1)[-1]}`" for t in gone_types)
        return Fix(f"drop `{shown}` from the call (the value the consumer chose is lost: the baseline typed it "
                   f"{named}, which the target no longer defines, so what it said may now be said elsewhere; "
                   f"check what replaced it)", codemod="drop_keyword", args=args, tier=UNSAFE)
    return Fix(f"drop `{shown}` from the call (the value the consumer chose is lost: check what replaced it)",
               codemod="drop_keyword", args=args, tier=UNSAFE)
