"""Rules over the consumer's typed reach: attributes, overrides, abstract methods, patches.

A plugin meets most of a vLLM release's breaks through objects, not imports: `self.<attr>` that
vLLM's `__init__` set, a method it overrides that vLLM now calls differently, an abstract method
added to the base it implements, a method it patches that no longer exists. Each rule evaluates
the consumer's paths (drift/analysis/paths.py) in the baseline and in the target and reports where
the baseline worked and the target does not.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import replace
from typing import Any, Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.paths import Value, builtin_type, is_soft, strip_annotation
from drift.analysis.nearest_bases import nearest_shared_ancestors
from drift.model.facts import FunctionFacts, ModuleFacts
from drift.findings import SAFE, UNSAFE, Finding, Fix, Location, RuleKind, Severity
from drift.model.index import Needle, PackageIndex, Symbol, call_of, def_of, reference_of, word
from drift.analysis.rules.base import plural, rule
from drift.analysis.moves import moved_to
from drift.analysis.rules.move_tiers import judge_move
from drift.analysis.rules.dispatch import dispatched_sites
from drift.analysis.rules.container_kinds import builtin_lacks, holder_text, stored_kind_clash
from drift.analysis.rules.callers import (RECEIVER, attribute_class, consumer_runs_name, gone_base, mro_names, reaches,
                                         receiver_of, runs_own, target_runs_on)
from drift.analysis.rules.family import _build_definers
from drift.analysis.rules.already_broken import caller_desc, failed_at_same_caller, lacked_on_baseline, receiver_named
from drift.analysis.rules.lazy_callers import lazy_call_sites
from drift.analysis.rules.override_params import new_parameters_fix
from drift.analysis.rules.own_field_renames import FieldRename, own_field_rename
from drift.analysis.rules.owner_moves import baseline_fills, owner_move
from drift.analysis.rules.packed_params import packed_fix
from drift.analysis.rules.renames import attribute_fix, attribute_rename
from drift.analysis.rules.pinned_settings import pinned_value
from drift.analysis.rules.env_reads import env_read
from drift.analysis.rules.own_checks import dropped_check
from drift.analysis.rules.own_rewrites import own_held_switch
from drift.analysis.rules.sibling_methods import sibling_delegation
from drift.analysis.rules.siblings import sibling_gains


def _typed_paths(ctx: CheckContext) -> list[tuple[dict, dict, list[str], str]]:
    """(module, record, path, what) for every attribute read and every called path (listed
    once per check: four rules walk them)."""
    out = ctx.memo.get("reach.typed_paths")
    if out is None:
        out = ctx.memo["reach.typed_paths"] = []
        for mod in ctx.usage:
            for rec in mod.get("uses") or []:
                if rec.get("kind") == "attr":
                    out.append((mod, rec, rec["path"], "attr"))
            for rec in mod.get("calls") or []:
                path = (rec.get("callee") or {}).get("path") or rec.get("path")
                if path and len(path) > 1:
                    out.append((mod, rec, path, "call"))
    return out


def _members(index: PackageIndex, cls: Symbol) -> set[str]:
    out: set[str] = set()
    for owner in index.mro(cls):
        node = owner.as_class
        out.update(node.methods)
        out.update(node.nested)
        out.update(fl.name for fl in node.fields)
        out.update(node.attrs)
        out.update(node.instance_attrs)
    return out


def _renamed_to(ctx: CheckContext, tprev: Value, bprev: Value, name: str) -> str | None:
    """A member the target class gained, close to the lost name (the likely rename)."""
    if tprev.kind not in ("instance", "class") or ctx.baseline is None:
        return None
    tcls = tprev.cls if tprev.kind == "instance" else tprev.sym
    bcls = bprev.cls if bprev.kind == "instance" else bprev.sym
    if tcls is None or bcls is None:
        return None
    new = _members(ctx.target, tcls) - _members(ctx.baseline, bcls)
    close = difflib.get_close_matches(name, sorted(new), n=1, cutoff=0.75)
    return close[0] if close else None


def _field_renamed(ctx: CheckContext, tprev: Value, bprev: Value, name: str) -> FieldRename | None:
    """The member the target's own constructions of the class pass the lost field's value as
    (rules/own_field_renames.py): a rename no spelling match finds (`shared_by` -> `layers`)."""
    if tprev.kind != "instance" or bprev.kind != "instance" or tprev.cls is None or bprev.cls is None:
        return None
    new = _members(ctx.target, tprev.cls) - _members(ctx.baseline, bprev.cls)
    return own_field_rename(ctx.baseline, ctx.target, tprev.cls.dotted.rsplit(".", 1)[-1], name, new)


def _field_rename_fix(owner: str, name: str, rename: FieldRename) -> Fix:
    """`rename_attribute`, safe: the target's maintainers moved the very value to the new field."""
    return Fix(f"read `{owner}.{rename.new}` instead of `{owner}.{name}` (the target's own construction passes "
               f"as `{rename.new}=` the value the baseline's passed as `{name}=`: {rename.was} -> {rename.evidence})",
               codemod="rename_attribute", tier=SAFE, args={"old": name, "new": rename.new, "convert": None})


def _failure(prev: Value, name: str) -> str:
    if prev.kind == "module":
        return f"AttributeError: module '{prev.sym.dotted}' has no attribute '{name}'"
    if prev.kind == "class":
        return f"AttributeError: type object '{prev.sym.dotted.rsplit('.', 1)[-1]}' has no attribute '{name}'"
    if prev.kind == "instance":
        return f"AttributeError: '{prev.cls.dotted.rsplit('.', 1)[-1]}' object has no attribute '{name}'"
    return f"AttributeError: no attribute '{name}'"


def _evidence(v: Value) -> Location | None:
    if v.evidence and v.evidence[0]:
        sym = v.sym.dotted if v.sym is not None else (f"{v.owner.dotted}" if v.owner is not None else None)
        return Location(v.evidence[0], v.evidence[1] or 1, symbol=sym)
    return None


def _site(mod: dict, rec: dict, last: bool) -> Location:
    site = site_of(mod, rec)
    if not last:  # the record's column is the outermost name's; the missing one is earlier
        return Location(site.path, site.line, snippet=site.snippet)
    return site


@rule("DRIFT060", RuleKind.ATTRIBUTE_MISSING)
def attribute_missing(ctx: CheckContext) -> Iterator[Finding]:
    """An attribute the consumer reads or calls on a target object that the target no longer has.

    The object is typed from the consumer's own code: `self` in a subclass of a target class,
    a parameter or variable annotated with a target type, what a target call returns, an
    attribute a target `__init__` set on `self`. The baseline must have had the attribute (set on
    `self`, declared, inherited or defined), and the target's class must be fully known (no
    `__getattr__`, no base drift cannot see), so a missing name really is missing. On a layer
    built on `torch.nn.Module` (which drift never reads) that the solver typed (what the target
    hands an override; a parameter typed from its callers, or `self` of a function bound onto
    the class with `Cls.m = fn`), a name the baseline's own classes defined is reported risky:
    on a bound `self` only a class-level one (a property, a method), which nn.Module does not
    register on instances. Attribute chains Python evaluates when a `def` or `class` runs (an
    annotation `-> mk.Experts`, a base `a.b.Base`) are reads too. A use written through a plain
    `import a.b` of a module the target removed, away from the import's line, is risky: the
    import fails first, and fixing it alone leaves the use. A read past an earlier step the target
    no longer has (`cap = Capturer.get_instance()`, then `cap.save(...)`) is typed as the
    baseline's value, on the class of the same name the target keeps: a member that class lost
    is reported too, risky (it fails once the first break is fixed). A
    `msgspec.Struct` base counts as seen (drift/analysis/struct_base.py): its instances hold only
    the fields their classes declare. A read in the body of `if <test>:` (or a branch of `a if
    <test> else b`) whose test already fails is risky: it runs only once that test is fixed, and
    then fails too (the maintainers' fix touches it as well).

    Fixes, besides a deprecation successor or a close new name: a removed zero-argument method
    the target's own class stopped calling in favour of a new attribute (`call_to_attribute`,
    unsafe: the attribute may be one shared object; safe where a function of the target made this
    very switch through the consumer's holder, `self.kv_cache_manager`), and a read that sits only in the value of
    a keyword the target's callable no longer accepts (the keyword's own drop, one edit for both),
    and a removed setting of a settings module the baseline had pinned (its own code raises
    unless `envs.VLLM_USE_V1` is true): `settle_setting`, safe, keeps only the code that runs
    with that value (`if not X: raise` goes, `if X:` keeps its body, `assert X` goes); a removed
    setting nothing pinned whose baseline expression reads only the environment and builtins:
    `read_env`, safe, writes that expression in place of the read (`int(os.getenv("X", "0"))`),
    so the consumer gets the value the baseline gave it; and a read
    in the test of a check the target deleted from its own identical function (`if
    lora.extra_vocab_size > ...: raise`, gone from vLLM 0.12's `_load_adapter`): `drop_check`,
    safe, deletes that `if` where the consumer's test is the same expression and only raises.
    Reads in a function the consumer installs only under names the target no longer has, and
    never calls itself, are risky and name the install: nothing runs them until the install
    (DRIFT080's finding) is fixed, and then they fail one after another, as the maintainers of
    nnsight found when vLLM 0.13 stopped reading `gpu_worker.GPUModelRunner`.
    A read in an assert's message or in a raised exception is risky: that path fails either way, but
    the AttributeError replaces the consumer's own exception, so what handles it no longer runs.
    """
    if ctx.baseline_paths is None:
        return
    for f, _function in _attribute_missing(ctx):  # every site: branches fail separately
        yield f


def _attribute_missing(ctx: CheckContext) -> Iterator[tuple[Finding, str]]:
    seen: set[tuple] = set()
    failing: set[tuple] = set()  # (path, line) where a missing attribute already raises
    dead = _installed_dead(ctx)
    for mod, rec, path, what in _typed_paths(ctx):
        guard = _failing_guard(mod, rec, failing)  # the test that raises first, if any: this line waits on it
        raising = bool(rec.get("on_failure"))  # an assert's message or a raised exception: risky, below
        # a function nothing runs on the target until its install (DRIFT080's) is fixed: the next break
        installed = _install_of(rec.get("function"), dead.get(mod.get("module") or "", {})) if dead else None
        tv = ctx.target_paths.steps(path)
        bv = None  # the baseline is walked only where the target misses a name
        behind = None  # the earlier step already missing on the target, where typing carried past it
        for k in range(_first_read_step(rec), len(path)):
            unseen = None  # the bases drift has no facts for, when only they could still provide it
            if not path[k].startswith("."):
                continue
            if tv[k].kind != "missing":
                unseen = _unseen_slot_miss(ctx, path, tv, k)
                if unseen is None:
                    carried = _carried_past_miss(ctx, path, tv, k)
                    if carried is None or carried[0][k].kind != "missing":
                        continue
                    tv, behind = carried
            if bv is None:
                bv = ctx.baseline_paths.steps(path)
            t, b = tv[k], bv[k]
            if _was_container(tv[k - 1], t, bv[k - 1], b):
                break  # a dict on the baseline, an object now: DRIFT061 names both types
            # code first run on the target (a branch its version test shuts on the baseline): held to the target alone
            fresh = bool(rec.get("first_live")) and b.kind == "missing" and unseen is None
            if (not b.known or b.kind == "consumer") and not fresh:
                continue
            if unseen is not None and not _set_by_package(ctx, bv[k - 1], b, unseen, path[0], path[k][1:]):
                continue
            if unseen is not None:
                t = Value("missing", cls=tv[k - 1].cls, name=path[k][1:])
            on_self = tv[k - 1].kind == "consumer" and tv[k - 1].ckind in ("instance", "super") and t.cls is not None
            if not on_self and (bv[k - 1].kind == "consumer" or tv[k - 1].kind not in ("instance", "class", "module")):
                break
            name = path[k][1:]
            masked = None  # the line of the consumer's import of the gone module, which fails first
            if tv[k - 1].kind == "module" and _imported(mod, f"{tv[k - 1].sym.dotted}.{name}"):
                masked = _import_line(mod, f"{tv[k - 1].sym.dotted}.{name}")
                if masked is None or masked == rec["line"]:
                    break  # `import a.b` then `a.b.f()` on its line: the import's own finding says it
            holder = t.cls or (tv[k - 1].sym if tv[k - 1].kind == "class" else None)
            if (tv[k - 1].kind != "class" or _in_function(ctx, mod, rec)) and \
                    _installed_by_consumer(ctx, holder, name) and not _saved_before_install(ctx, mod, rec, holder, name):
                break  # `Cls.name = fn` in the consumer: the class has it whatever the target removed
            if tv[k - 1].kind == "class" and _installed_above(ctx, mod, rec, tv[k - 1].sym, name):
                break  # `Cls.name = v` a few lines up, in the same scope: it is there when this line runs
            key = (mod.get("path"), rec["line"], tuple(path[:k + 1]))
            if key in seen:
                break
            seen.add(key)
            if unseen is None:  # a miss only the unseen bases could answer may not raise: what it guards still runs
                failing.add((mod.get("path"), rec["line"]))
            prev = tv[k - 1]
            if fresh:
                yield _first_live_miss(mod, rec, path, k, prev, t, on_self, k == len(path) - 1), rec.get("function") or ""
                break
            if on_self:  # self in the consumer's subclass: the name was the target base's
                self_cls = (tv[k - 1].cref or "").rsplit(".", 1)[-1]
                prev = Value("instance", cls=t.cls)
                bprev = Value("instance", cls=b.owner) if b.owner is not None else bv[k - 1]
            else:
                self_cls, bprev = None, bv[k - 1]
            renamed = _renamed_to(ctx, prev, bprev, name)
            field_rename = None if renamed or on_self or what != "attr" else _field_renamed(ctx, prev, bprev, name)
            if field_rename is not None:
                renamed = field_rename.new
            below = [] if on_self else _defined_below(ctx, prev.cls or prev.sym, name)
            owner = prev.describe()
            last = k == len(path) - 1
            deprecated = _deprecated_rename(ctx, prev, b.owner or (bprev.cls if bprev.kind == "instance" else None),
                                            name) if what == "attr" else None
            member_move = None if on_self or deprecated else _moved_member_fix(ctx, prev, name)
            failure = (f"AttributeError: '{self_cls}' object has no attribute '{name}'" if self_cls
                       else _failure(prev, name))
            if masked is not None:
                failure += f" (once the import at line {masked} no longer fails first)"
            if guard is not None:
                failure += f" (runs only once the test at line {guard} stops raising; then this read fails too)"
            if behind is not None:
                failure += f" (once `{behind}`, gone too, is replaced by something that returns the same class)"
            if installed is not None:
                failure += f" (once the install at {installed} takes effect on the target again)"
            if raising:
                failure += " in place of the exception the consumer raises there"
            yield Finding(
                rule_id="DRIFT060", kind=RuleKind.ATTRIBUTE_MISSING,
                severity=Severity.RISKY if ctx.dead_on_baseline(mod) or _slot_inferred(ctx, path) or unseen
                or masked is not None or guard is not None or behind is not None or below or installed is not None
                or raising
                else Severity.BREAKING,
                title=f"`{owner}.{name}` no longer exists" + (f"; `{renamed}` is new" if renamed else "") + (
                    f"; it lives in `{member_move.args['new_module']}`" if member_move and member_move.codemod else ""),
                consumer_site=_site(mod, rec, last),
                target_evidence=(_evidence(Value("class", sym=prev.cls or prev.sym,
                                                 evidence=((prev.cls or prev.sym).path, (prev.cls or prev.sym).line)))
                                 if (prev.cls or prev.sym) is not None else None,),
                baseline_evidence=(_evidence(b),),
                predicted_failure=failure,
                fix=(attribute_fix(deprecated, owner=_shown_owner(path[k - 1])) if deprecated else
                     member_move if member_move else
                     settled if (settled := _settled_fix(ctx, bv[k - 1], name)) else
                     from_env if (from_env := _env_fix(ctx, bv[k - 1], name)) else
                     _field_rename_fix(owner, name, field_rename) if field_rename is not None else
                     Fix(f"use `{renamed}` (new in the target)", codemod="rename_method" if what == "call" else None,
                         args={"old": name, "new": renamed} if what == "call" else {},
                         manual_reason=None if what == "call" else "check the new attribute means the same")
                     if renamed else
                     (_became_attribute(ctx, prev, bprev, name, _holder_text(path, k)) if what == "call" else None) or
                     _dropped_with(ctx, mod, rec, name) or
                     _check_dropped(ctx, mod, rec, name) or
                     Fix(f"stop reading `{name}`", manual_reason="what replaced it needs reading the target's code")),
                symbol=f"{(prev.cls or prev.sym).dotted}.{name}" if (prev.cls or prev.sym) else name,
                details=f"reached as {' '.join(_show(p) for p in path[:k + 1])}" + (
                    f"; no class of the target's sets it, but drift has no facts for {', '.join(unseen)}, which "
                    "could still provide it (a registered parameter, buffer or submodule)" if unseen else "") + (
                    f"; the import at line {masked} fails first, and fixing only it leaves this use written "
                    "through the old module" if masked is not None else "") + (
                    f"; it sits under the test at line {guard}, which already fails on the target: this read "
                    "runs, and fails, once that test is fixed" if guard is not None else "") + (
                    f"; `{behind}` before it is gone on the target too: typed as the baseline's value, whose "
                    "class the target keeps without this member" if behind is not None else "") + (
                    f"; the consumer's own classes {', '.join(f'`{n}`' for n in below[:4])}"
                    f"{f' and {len(below) - 4} more' if len(below) > 4 else ''} under `{(prev.cls or prev.sym).dotted.rsplit('.', 1)[-1]}` define "
                    f"`{name}` themselves: it fails only where the value is the target's class, not one of "
                    "them" if below else "") + (
                    "; it builds the exception (or assert message) the consumer raises on a path that fails "
                    "anyway: the AttributeError replaces it, so whatever handles that exception (an HTTP error "
                    "response, a caller's `except`) no longer runs" if raising else "") + (
                    f"; the consumer installs `{rec.get('function')}` into the target at {installed} under a name the "
                    "target no longer has, so nothing runs it there until that install is fixed: this read is the "
                    "next break, not the first" if installed is not None else ""),
            ), rec.get("function") or ""
            break


def _first_live_miss(mod: dict, rec: dict, path: list[str], k: int, prev: Value, t: Value, on_self: bool,
                     last: bool) -> Finding:
    """A read the target lacks on a branch that first runs on the target: the consumer wrote it for a
    newer vLLM (vLLM main) behind a version test that the baseline fails and the target passes. The
    baseline lacks the name too, so nothing ever ran it; risky, since the branch is the consumer's
    own bet on a release drift has not read."""
    name = path[k][1:]
    cls = t.cls if on_self else (prev.cls or prev.sym)
    owner = (prev.cref or "").rsplit(".", 1)[-1] if on_self else prev.describe()
    failure = (f"AttributeError: '{owner}' object has no attribute '{name}'" if on_self else _failure(prev, name))
    return Finding(
        rule_id="DRIFT060", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
        title=f"`{owner}.{name}` is not in the target, on a branch that first runs there",
        consumer_site=_site(mod, rec, last),
        target_evidence=(_evidence(Value("class", sym=cls, evidence=(cls.path, cls.line))),) if cls is not None else (),
        baseline_evidence=(),
        predicted_failure=failure,
        fix=Fix(f"keep this branch off the target until a vLLM that has `{name}`",
                manual_reason="the branch was written for a newer vLLM than the target"),
        symbol=f"{cls.dotted}.{name}" if cls is not None else name,
        details=f"reached as {' '.join(_show(p) for p in path[:k + 1])}; the line's version test is false on the "
                "baseline and true on the target, so this code never ran on the baseline (which lacks the name too) "
                "and first runs on the target, which does not have it",
    )


def _carried_past_miss(ctx: CheckContext, path: list[str], tv: list[Value], k: int
                       ) -> tuple[list[Value], str] | None:
    """`x = Gone.factory()` (or `obj.gone_accessor()`) then `x.also_gone()`: an earlier step of the
    path is missing on the target, so the target's walk knows nothing past it. Fixing that step
    with whatever now returns the same object still leaves this read: where the baseline's value
    before step `k` is an instance of a class the target keeps under the same name, the target's
    walk resumes from that class. Returns the target's steps with `k - 1` and `k` so typed, and
    the earlier missing step; None where no earlier step is missing, or the class is gone."""
    if tv[k].known or tv[k - 1].known or ctx.baseline_paths is None:
        return None
    gone = next((j for j in range(1, k - 1) if tv[j].kind == "missing"), None)
    if gone is None or any(tv[j].kind not in ("unknown", "missing") for j in range(gone + 1, k)):
        return None
    prev = ctx.baseline_paths.steps(path)[k - 1]
    if prev.kind != "instance" or prev.cls is None:
        return None
    tcls = ctx.target.lookup(prev.cls.dotted)
    if tcls is None or tcls.kind != "class":
        return None
    now = Value("instance", cls=tcls)
    out = list(tv)
    out[k - 1], out[k] = now, ctx.target_paths._step(now, path[k])
    return out, _show(path[gone])


def _failing_guard(mod: dict, rec: dict, failing: set[tuple]) -> int | None:
    """The line of the innermost `if <test>:` (or `a if <test> else b`) around `rec` whose test
    already raises on the target (`failing`), else None. The read runs only once that test is
    fixed, and then fails too: reported, risky (as DRIFT005 reports a gone name's uses its
    failing import masks), never dropped."""
    path = mod.get("path")
    return next((line for line in reversed(rec.get("within") or ()) if (path, line) in failing), None)


def _unseen_slot_miss(ctx: CheckContext, path: list[str], tv: list[Value], k: int) -> tuple[str, ...] | None:
    """A read on an object the solver typed as a target class's instance (what the target hands
    an override, `over:` roots; a parameter typed from its callers or from the class a function
    is bound onto, `arg:` roots: `self` in `FusedMoE.forward_oot = fn`) that no class of the
    target's MRO defines, unknown only because of bases drift has no facts for (a layer class
    extending `torch.nn.Module`): those bases; None otherwise."""
    if not path[0].startswith(("over:", "arg:")) or tv[k].kind != "unknown" or tv[k - 1].kind != "instance" \
            or tv[k - 1].cls is None or is_soft(path[k]):
        return None
    return ctx.target_paths.unseen_miss(tv[k - 1].cls, path[k][1:])


_CLASS_LEVEL = ("property", "method", "class")  # how a baseline class defines a member on the class itself


def _set_by_package(ctx: CheckContext, bprev: Value, b: Value, unseen: tuple[str, ...], root: str = "over:",
                    name: str = "") -> bool:
    """The baseline's class got the attribute from the package's own code (a class of its MRO
    defines it) and shares the bases drift cannot read: the unseen base was not what provided
    it there, so the target's class lost it. On a solver-typed parameter (`arg:`) the baseline
    must have defined it on the class itself (a property, a method, a class attribute): a
    class-level definition the target's class dropped is not one `nn.Module` registers on the
    instance at run time, whereas an attribute the baseline set in `__init__` may now be: unless
    the target's text never writes the name as a string (`register_buffer("kv_scale", ...)`,
    `setattr(self, "kv_scale", v)`) nor assigns it on any object (`layer.kv_scale = v` in a helper
    handed the layer), the ways left to set it unseen."""
    if bprev.kind != "instance" or bprev.cls is None or b.owner is None or ctx.baseline_paths is None:
        return False
    if root.startswith("arg:") and b.via not in _CLASS_LEVEL and \
            (not name or not ctx.target.text_known() or ctx.target.writes_quoted(name)
             or name in ctx.target.stored_attribute_names()):
        return False
    return set(unseen) <= set(ctx.baseline_paths.unresolved_bases(bprev.cls))


def _slot_inferred(ctx: CheckContext, path: list[str]) -> bool:
    """The path starts at an override's parameter that one side types only from the declaring
    class's other methods (drift/analysis/override_slots.py, SIBLING): likely, not declared, so
    at most risky."""
    if not path[0].startswith("over:"):
        return False
    ref = path[0][len("over:"):]
    return any(ev.slot_inferred(ref) for ev in (ctx.target_paths, ctx.baseline_paths) if ev is not None)


def _holder_text(path: list[str], k: int) -> str | None:
    """`self.x` when step k is read on `self.x` (`self.kv_cache_manager.create_empty_block_list()`)."""
    if k == 2 and path[0].startswith("self:") and path[1].startswith(".") and path[1][1:].isidentifier():
        return "self." + path[1][1:]
    return None


def _became_attribute(ctx: CheckContext, tprev: Value, bprev: Value, name: str,
                      holder: str | None = None) -> Fix | None:
    """`call_to_attribute` when the target replaced zero-argument method `name` with an attribute
    and rewrote its own calls (vLLM's `KVCacheManager.create_empty_block_list()` ->
    `.empty_kv_cache_blocks`): a method of the same class that called `self.name()` in the
    baseline no longer does and reads `self.<attr>` instead, `<attr>` new in the target's class,
    and every such method agrees on that one attribute. Unsafe: the method built a value per
    call, the attribute may be one object shared by every reader; safe where a function of the
    target outside the class made this very switch through the consumer's holder (vLLM 0.13's
    `Scheduler.schedule`: `self.kv_cache_manager.create_empty_block_list()` became
    `self.kv_cache_manager.empty_kv_cache_blocks`, facts +pc2 `held_reads`): vLLM's maintainers
    judged sharing that object right for the use the consumer copied."""
    if ctx.baseline is None or tprev.kind != "instance" or bprev.kind != "instance" \
            or tprev.cls is None or bprev.cls is None:
        return None
    old = next((o.as_class.methods[name] for o in ctx.baseline.mro(bprev.cls) if name in o.as_class.methods), None)
    if old is None or [p.name for p in old.params] not in (["self"], []):
        return None
    tnode, bnode = tprev.cls.as_class, bprev.cls.as_class
    new_members = _members(ctx.target, tprev.cls) - _members(ctx.baseline, bprev.cls)
    found: dict[str, list[str]] = {}
    for mname, tm in tnode.methods.items():
        bm = bnode.methods.get(mname)
        if bm is None or name not in bm.behaviour.self_calls or name in tm.behaviour.self_calls:
            continue
        for attr in set(tm.behaviour.self_reads) - set(bm.behaviour.self_reads):
            if attr in new_members:
                found.setdefault(attr, []).append(mname)
    if len(found) != 1:
        return None
    attr, sites = next(iter(found.items()))
    owner = tprev.cls.dotted.rsplit(".", 1)[-1]
    switched = own_held_switch(ctx.baseline, ctx.target, holder, name, attr) if holder else None
    if switched is not None:
        return Fix(f"read `{holder}.{attr}` instead of calling `{holder}.{name}()`, as the target's own "
                   f"`{switched.function}` rewrote this very call ({switched.baseline_evidence} -> {switched.evidence})",
                   codemod="call_to_attribute", tier=SAFE, args={"method": name, "attr": attr})
    return Fix(f"read `.{attr}` instead of calling `.{name}()`, as the target's own `{owner}."
               f"{sites[0]}` now does (check the shared object is not changed in place: `.{name}()` built a new one "
               f"per call)", codemod="call_to_attribute", tier=UNSAFE, args={"method": name, "attr": attr})


def _dropped_with(ctx: CheckContext, mod: dict, rec: dict, name: str) -> Fix | None:
    """The drop of a keyword the target's callable no longer accepts, when the missing attribute
    is read only in that keyword's value (`target_embedding_padding=self.vocab_size +
    self.lora_config.lora_extra_vocab_size`): the keyword's own fix (DRIFT010's, tiered the same
    way) takes the read with it, so both findings have one edit. None when the value is kept (a
    successor keyword) or the read is not inside exactly one such keyword's value."""
    from drift.analysis.rules.signature import removed_keyword_fix

    line = rec.get("line")
    reads = re.compile(rf"\.{re.escape(name)}\b")
    hits = []
    for rc in ctx.calls:
        if rc.module.get("path") != mod.get("path") or not (rc.rec["line"] <= line <= rc.rec.get("end_line", rc.rec["line"])):
            continue
        for kw, value in (rc.rec.get("kw_values") or {}).items():
            if reads.search(value or "") and rc.keyword_site(kw).line == line:
                fix = removed_keyword_fix(ctx, rc, kw)
                if fix is not None and fix.codemod == "drop_keyword":
                    hits.append(fix)
    if len(hits) != 1:
        return None
    fix = hits[0]
    return replace(fix, description=f"{fix.description}; the read of `{name}` goes with it")


def _check_dropped(ctx: CheckContext, mod: dict, rec: dict, name: str) -> Fix | None:
    """`drop_check` where the baseline's own function raised under an `if` test reading `.name`
    and the target's same function deleted that check (`own_checks.dropped_check`: vLLM 0.12's
    `_load_adapter` lost `if lora.extra_vocab_size > ...: raise ValueError(...)`). The codemod
    writes only where the consumer's `if` test is that expression and its body only raises. Safe:
    the check reads what the target removed, and the target's maintainers deleted the same check;
    a range consumer keeps it in the baseline's branch (`plan.NEVER_ON_BASELINE`)."""
    check = dropped_check(ctx.baseline, ctx.target, name)
    if check is None or not _reads_near(mod, rec, check.reads):
        return None
    ev = check.baseline_evidence
    return Fix(f"delete the check `if {check.guard}: raise ...` where this line is its test, as the target "
               f"deleted it from its own `{check.function.rsplit('.', 1)[-1]}` (the baseline's at {ev.path}:{ev.line})",
               codemod="drop_check", args={"guard": check.guard}, tier=SAFE)


def _reads_near(mod: dict, rec: dict, attrs: frozenset[str]) -> bool:
    """Whether the consumer's function reads every attribute of a check's test within a few lines
    of `rec` (a test may wrap): the line can be that check's test; a plain read of one of them
    elsewhere (`self.flag = config.flag`) is not offered a deletion. The codemod still writes only
    where the `if` test is that very expression."""
    line, fn = rec.get("line") or 0, rec.get("function")
    seen = {str(step)[1:] for r in [*(mod.get("uses") or []), *(mod.get("calls") or [])]
            if r.get("function") == fn and abs((r.get("line") or 0) - line) <= 3
            for step in r.get("path") or () if str(step).startswith(".")}
    return attrs <= seen


def _moved_member_fix(ctx: CheckContext, prev: Value, name: str) -> Fix | None:
    """`import_moved_member` for a read through a module object (`vllm_ctm.X`, `import a.b as
    vllm_ctm`) of a definition that now lives in another module of the target (vLLM 0.20 split
    `compressed_tensors_moe` into a package whose `__init__` no longer exports the per-scheme
    classes): import it from there. Tiered as the same move of a `from` import would be
    (`judge_move`); a module-level value without evidence stays manual."""
    if prev.kind != "module" or prev.sym is None:
        return None
    module = prev.sym.dotted
    base = ctx.baseline.lookup(f"{module}.{name}") if ctx.baseline is not None else None
    moved, _ = moved_to(ctx, f"{module}.{name}", base)
    if not moved:
        return None
    new_module = moved.rsplit(".", 1)[0]
    what = f"import `{name}` from `{new_module}` and read it there, not through `{module}`"
    judged = judge_move(ctx, module, {name: moved}, {name: base})
    if judged.tier is None:
        return Fix(what, manual_reason=judged.manual_reason)
    return Fix(f"{what} ({judged.why})" if judged.why else what, codemod="import_moved_member",
               args={"module": module, "name": name, "new_module": new_module}, tier=judged.tier)


def _settled_fix(ctx: CheckContext, owner: Value, name: str) -> Fix | None:
    """`settle_setting` for a removed setting of a settings module whose value the baseline pinned
    (`pinned_settings`: its own code raises whenever the setting is otherwise). Safe: every run of
    the baseline that got past that raise saw this value, and the target has no other."""
    if owner.kind != "module" or owner.sym is None:
        return None
    pin = pinned_value(ctx.baseline, owner.sym.dotted, name)
    if pin is None:
        return None
    return Fix(f"read `{name}` as `{pin.value}` and keep only the code that runs then (the baseline raises "
               f"otherwise, {pin.path}:{pin.line}; the target dropped the setting)",
               codemod="settle_setting", args={"attr": name, "value": pin.value}, tier=SAFE)


def _env_fix(ctx: CheckContext, owner: Value, name: str) -> Fix | None:
    """`read_env` for a removed setting of a settings module whose baseline expression reads only
    the environment (env_reads.py). Safe: the consumer gets the value the baseline gave it."""
    if owner.kind != "module" or owner.sym is None:
        return None
    got = env_read(ctx.baseline, owner.sym.dotted, name)
    if got is None:
        return None
    return Fix(f"read `{name}` from the environment as the baseline's `{owner.sym.dotted}` did: `{got.expr}` "
               f"({got.path}:{got.line}; the target dropped the setting)",
               codemod="read_env", args={"attr": name, "expr": got.expr}, tier=SAFE)


def _deprecated_rename(ctx: CheckContext, prev: Value, bcls: Symbol | None, name: str):  # type: ignore[no-untyped-def]
    """The successor the baseline's deprecation code named for attribute `name` of `bcls`, when
    the target's class still has it (so the rewritten read resolves)."""
    if ctx.baseline is None or bcls is None or prev.kind != "instance" or prev.cls is None:
        return None
    rename = attribute_rename(ctx.baseline, bcls, name)
    if rename is None or rename.new not in _members(ctx.target, prev.cls):
        return None
    return rename


def _shown_owner(step: str) -> str:
    """The consumer's name for the object read from, as a fix text shows it (`pass_config`)."""
    if step.startswith(".") and step[1:].isidentifier():
        return step[1:]
    return "self" if step.startswith("self:") else "…"


def _first_read_step(rec: dict) -> int:
    """The first step of a use's path that this line itself reads. A local's value
    (`x = self.gone()`, then `x.foo()`) was read where it was assigned, and Python raises
    there: its steps (`bound`, from the probe) are reported at that line, not at every use."""
    bound = rec.get("bound")
    return max(1, bound) if isinstance(bound, int) else 1


def _in_function(ctx: CheckContext, mod: dict, rec: dict) -> bool:
    """Whether a use sits in a function body (it runs when called, after the consumer's
    patches are installed at import) rather than at module or class level, where `_orig =
    Cls.m` saves the original before the patch replaces it and fails there if it is gone."""
    fn = rec.get("function")
    return bool(fn) and f"{mod.get('module')}.{fn}" in ctx.consumer.inferred.signatures


def _defined_below(ctx: CheckContext, cls: Symbol | None, name: str) -> list[str]:
    """The consumer's classes under the target class `cls` that define `name` themselves (a method,
    a class attribute or dataclass field, an attribute set on self). A value
    typed as the target's base (a parameter annotated `AttentionBackend`, a factory's declared
    return) may at run time be one of them: a platform plugin hands its own backends around as
    the base. A member the target's base lost then fails only where the value is the target's own
    class, so the finding is risky, with the classes named."""
    if cls is None:
        return []
    below = ctx.memo.get("reach.defined_below")
    if below is None:
        below = ctx.memo["reach.defined_below"] = {}
        for ref, c, tb, bb in _consumer_classes(ctx):
            # methods, class attributes and dataclass fields it declares, attributes its methods set on self
            members = set(c.get("methods") or ()) | set(c.get("class_attrs") or ()) | set(c.get("self_attrs") or ())
            members |= {f[0] for f in c.get("dataclass_fields") or () if isinstance(f, list) and f}
            if not members:
                continue
            ancestors = {o.dotted for base in tb for o in ctx.target.mro(base)}
            if ctx.baseline is not None:
                ancestors |= {o.dotted for base in bb for o in ctx.baseline.mro(base)}
            for a in ancestors:
                for m in members:
                    below.setdefault((a, m), []).append(ref.rsplit(".", 1)[-1])
    return sorted(set(below.get((cls.dotted, name), ())))


def _installed_by_consumer(ctx: CheckContext, cls: Symbol | None, name: str) -> bool:
    """Whether the consumer installs `name` on `cls` or one of its bases (`Cls.name = fn`,
    `setattr(Cls, "name", fn)`, a patching helper) on a path the target runs: the attribute is
    there when read, whatever the target removed (the patch itself is judged by DRIFT080)."""
    if cls is None:
        return False
    installed = ctx.memo.get("reach.installed")
    if installed is None:
        installed = ctx.memo["reach.installed"] = set()
        for _mod, patch in _patches(ctx):
            owner = ctx.target_paths.value(tuple(patch["path"]))
            if owner.kind == "class" and owner.sym is not None:
                installed.add((owner.sym.dotted, patch["name"]))
    if not installed:
        return False
    return any((c.dotted, name) in installed for c in ctx.target.mro(cls))


def _saved_before_install(ctx: CheckContext, mod: dict, rec: dict, cls: Symbol | None, name: str) -> bool:
    """Whether the read is the function's own save of the original before it installs its
    replacement (`orig = Executor._run_workers` ... `Executor._run_workers = patched` further down
    the same function), and no other install of the name could have run first: the read meets the
    target's class as it is, without the name."""
    if cls is None or not rec.get("function"):
        return False
    mro = {c.dotted for c in ctx.target.mro(cls)}
    mine = False
    for pmod, patch in _patches(ctx):
        if patch.get("name") != name:
            continue
        owner = ctx.target_paths.value(tuple(patch.get("path") or ()))
        if owner.kind != "class" or owner.sym is None or owner.sym.dotted not in mro:
            continue
        if pmod is not mod or patch.get("function") != rec.get("function") or \
                not isinstance(patch.get("line"), int) or patch["line"] <= rec["line"]:
            return False
        mine = True
    return mine


def _installed_above(ctx: CheckContext, mod: dict, rec: dict, cls: Symbol | None, name: str) -> bool:
    """Whether `Cls.name = v` is written earlier in the same module and scope as the read, on no
    version branch of its own (`Sampler.f = f` then `Sampler.f.__set_name__(Sampler, "f")` at module
    level): by the time the read runs the consumer has put the name there itself."""
    if cls is None:
        return False
    for patch in mod.get("patches") or ():
        if patch.get("name") != name or patch.get("guards") or patch.get("function") != rec.get("function") \
                or not isinstance(patch.get("line"), int) or patch["line"] >= rec["line"]:
            continue
        owner = ctx.target_paths.value(tuple(patch.get("path") or ()))
        if owner.kind == "class" and owner.sym is not None and owner.sym.dotted == cls.dotted:
            return True
    return False


@rule("DRIFT062", RuleKind.ATTRIBUTE_MISSING, Severity.RISKY)
def attribute_set_missing(ctx: CheckContext) -> Iterator[Finding]:
    """An attribute the consumer sets on a target object (`obj.x = v`, `setattr(obj, "x", v)`, or
    the keys of a dict applied with setattr) that the target no longer has: Python creates a new
    attribute that nothing reads, so the setting is silently lost. Not where the consumer itself
    reads the name back on objects of the same target class (a replacement `__init__` storing
    state its installed methods read): that value is used. Also a store the probe took for a patch
    because its owner is a module-level object of the target, or a copy of one
    (`out = copy.copy(EMPTY_MODEL_RUNNER_OUTPUT); out.finished_sending = done`): an object's
    field, not a class's or a module's name."""
    if ctx.baseline_paths is None:
        return
    for mod, rec, path in _attribute_stores(ctx):
        t = ctx.target_paths.value(tuple(path))
        if t.kind != "missing":
            continue  # the baseline is walked only where the target's side fails
        b = ctx.baseline_paths.value(tuple(path))
        prev = ctx.target_paths.value(tuple(path[:-1]))
        if not b.known or b.kind == "consumer" or prev.kind != "instance":
            continue
        name = path[-1][1:]
        raised = _absent_raise(mod, rec, name)
        if raised is not None:
            yield _raised_on_absence(mod, rec, prev, b, name, *raised)
            continue
        if _read_back(ctx, prev.cls, name):
            continue
        yield Finding(
            rule_id="DRIFT062", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.RISKY,
            title=f"sets `{prev.describe()}.{name}`, which the target no longer has: the value is ignored",
            consumer_site=site_of(mod, rec),
            target_evidence=(Location(prev.cls.path, prev.cls.line, symbol=prev.cls.dotted),),
            baseline_evidence=(_evidence(b),),
            predicted_failure=None,
            details="no error is raised: the attribute is created and never read",
            fix=Fix(f"find what replaced `{name}`", manual_reason="the setting's new home needs reading the target"),
            symbol=f"{prev.cls.dotted}.{name}",
        )


def _absent_raise(mod: dict, rec: dict, name: str) -> tuple[int, int] | None:
    """(test line, raise line) when the store sits under `if hasattr(obj, k):` whose `else:` raises
    (probes/reach.py `absent_raises`), k being `name` or a variable (a loop over a dict of settings):
    on the target the test is False for `name`, so the consumer's own `raise` runs."""
    raises = {int(row[0]): (int(row[1]), row[2] if len(row) > 2 else "*") for row in mod.get("absent_raises") or ()}
    for test in reversed(rec.get("within") or ()):
        hit = raises.get(test)
        if hit is not None and hit[1] in ("*", name):
            return test, hit[0]
    return None


def _raised_on_absence(mod: dict, rec: dict, prev: Value, b: Value, name: str, test: int, line: int) -> Finding:
    """DRIFT062, breaking: the setting is applied only where `hasattr` finds the attribute, and the
    consumer raises where it does not (Dynamo's `overwrite_args`: `if hasattr(config.engine_args,
    key): setattr(...) else: raise ValueError(f"{key} not found in AsyncEngineArgs")`). The error is
    the consumer's own, at its `raise`: reported there; the key's line is kept as the use."""
    owner = prev.describe()
    site = site_of(mod, rec)
    return Finding(
        rule_id="DRIFT062", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING,
        title=f"sets `{owner}.{name}` only where `hasattr` finds it, which the target no longer has: "
              f"the consumer's `raise` at line {line} runs",
        consumer_site=Location(site.path, line, use_line=site.line, use_col=site.col, symbol=site.symbol),
        target_evidence=(Location(prev.cls.path, prev.cls.line, symbol=prev.cls.dotted),),
        baseline_evidence=(_evidence(b),),
        predicted_failure=f"the exception raised at line {line}: `hasattr(..., {name!r})` at line {test} is False "
                          "on the target",
        details=f"`{name}` is set at line {site.line}, under the `hasattr` test at line {test}",
        fix=Fix(f"drop or rename the setting `{name}` (set at line {site.line})",
                manual_reason="what replaced the attribute is the target's"),
        symbol=f"{prev.cls.dotted}.{name}",
    )


def _attribute_stores(ctx: CheckContext) -> Iterator[tuple[dict, dict, list]]:
    """(module, record, path ending in the stored name) of each attribute store on a target value:
    the `attr_set` uses, and the patches whose owner is an object (no class, no module)."""
    for mod in ctx.usage:
        for rec in mod.get("uses") or []:
            if rec.get("kind") == "attr_set" and len(rec["path"]) >= 2:
                yield mod, rec, rec["path"]
        for patch in mod.get("patches") or []:
            path = list(patch.get("path") or ())
            if path and patch.get("name") and isinstance(patch.get("line"), int) \
                    and ctx.target_paths.value(tuple(path)).kind == "instance":
                yield mod, patch, path + ["." + patch["name"]]


def _read_back(ctx: CheckContext, cls: Symbol | None, name: str) -> bool:
    """Whether the consumer itself reads `name` on objects of the target class `cls` (through
    any path: `self` in a function installed on the class, a parameter typed as it): a value it
    reads back is not ignored, whatever the target stopped reading."""
    if cls is None:
        return False
    reads = ctx.memo.setdefault("attr_reads_by_name", {})
    if not reads:
        for mod in ctx.usage:
            for rec in mod.get("uses") or []:
                path = rec.get("path") or []
                if rec.get("kind") in ("attr", "attr_soft") and len(path) >= 2 and str(path[-1]).startswith("."):
                    reads.setdefault(path[-1][1:], []).append(tuple(path[:-1]))
        reads.setdefault("", [])
    for prefix in reads.get(name, ())[:50]:
        v = ctx.target_paths.value(prefix)
        if v.kind == "instance" and v.cls is not None and v.cls.dotted == cls.dotted:
            return True
    return False


@rule("DRIFT063", RuleKind.ATTRIBUTE_RETYPED, Severity.RISKY)
def field_became_initvar(ctx: CheckContext) -> Iterator[Finding]:
    """A dataclass field the consumer reads on an instance that the target turned into an
    `InitVar`: it is only an `__init__` argument now, not kept on the instance, so the read gives
    the class-level default (whatever value was configured) or, without a default, fails.

    Where the target's own code moved its reads of the field to another owner between the two
    releases (`scheduler_config.max_model_len` -> `model_config.max_model_len` in the same
    function, from facts: `owner_moves.py`), the fix is that rewrite (`rename_attribute_owner`),
    safe when the target made it at two sites or more, or when the baseline itself builds the old
    owner's field from the new owner's (both reads gave one value), unsafe otherwise; else manual."""
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    for mod, rec, path, _what in _typed_paths(ctx):
        tv = ctx.target_paths.steps(path)
        for k in range(1, len(path)):
            t = tv[k]
            if t.kind != "initvar":
                continue
            b = ctx.baseline_paths.steps(path)[k]  # the baseline only where the target has an InitVar
            if not b.known or b.via != "field":
                continue
            key = (mod.get("path"), rec["line"], tuple(path[:k + 1]))
            if key in seen:
                break
            seen.add(key)
            owner = t.owner.dotted.rsplit(".", 1)[-1]
            yield Finding(
                rule_id="DRIFT063", kind=RuleKind.ATTRIBUTE_RETYPED, severity=Severity.RISKY,
                title=f"`{owner}.{t.name}` is now an InitVar: reading it gives the class default, not the "
                      f"configured value",
                consumer_site=_site(mod, rec, k == len(path) - 1),
                target_evidence=(Location(t.evidence[0], t.evidence[1], symbol=f"{t.owner.dotted}.{t.name}"),),
                baseline_evidence=(_evidence(b),),
                predicted_failure=None,
                details="no error when the InitVar has a default: the value read is silently the default",
                fix=_owner_move_fix(ctx, path[k - 1], t.name, owner),
                symbol=f"{t.owner.dotted}.{t.name}",
            )
            break


def _owner_move_fix(ctx: CheckContext, held: str, name: str, owner: str) -> Fix:
    """Read `name` through the owner the target's own code moved its reads to (`owner_moves`):
    safe when that identical rewrite is made at two sites or more, else unsafe; manual when the
    target's code shows no such move."""
    move = owner_move(ctx.baseline, ctx.target, held[1:], name) if held.startswith(".") else None
    if move is None:
        return Fix(f"read where `{owner}` keeps the value now", manual_reason="the field's new home needs reading")
    n = len(move.sites)
    filled = baseline_fills(ctx.baseline, move)
    same = (f"; the baseline's `{filled[1]}` builds it as `{move.old}.{name} = {move.new}.{name}`, so both "
            f"reads give one value" if filled else "")
    return Fix(f"{move.edit} (the target's own code made this rewrite at {plural(n, 'site')}{same})",
               codemod="rename_attribute_owner", args={"attr": name, "old": move.old, "new": move.new},
               tier=SAFE if n >= 2 or filled else UNSAFE)


def _imported(mod: dict, dotted: str) -> bool:
    return any(i["target"] == dotted or i["target"].startswith(dotted + ".") for i in mod.get("imports") or [])


def _import_line(mod: dict, dotted: str) -> int | None:
    """The line of a plain `import a.b[.c]` of the module that binds `dotted`: a use written through
    that chain elsewhere fails once the import is fixed alone (DRIFT005's reasoning for a `from`
    import's name). None for a `from` import (DRIFT005 reports its uses) or when none is plain."""
    lines = [i.get("line") for i in mod.get("imports") or []
             if i.get("statement") == "import" and not i.get("guarded")
             and (i["target"] == dotted or i["target"].startswith(dotted + "."))]
    return min((ln for ln in lines if isinstance(ln, int)), default=None)


def _show(step: str) -> str:
    if step.startswith("named:"):  # a name getter's call (probes/reach.py): `self._get_target_class(...)`
        try:
            spec = json.loads(step[len("named:"):])
            return f"{_show(spec['recv'])}.{spec['m']}(...)"
        except (ValueError, KeyError, TypeError):
            return "named"
    if step.startswith("over:"):  # an override's parameter (drift/analysis/override_slots.py)
        return step.rsplit(":", 1)[-1]
    if step.startswith(("sym:", "self:", "super:", "arg:")):
        kind, _, ref = step.partition(":")
        return {"self": "self", "super": "super()"}.get(kind, ref.rsplit(".", 1)[-1] if kind == "sym" else "param")
    return step


@rule("DRIFT061", RuleKind.ATTRIBUTE_RETYPED)
def attribute_retyped(ctx: CheckContext) -> Iterator[Finding]:
    """An attribute the consumer reads through now holds another kind of value, one without the
    member the consumer uses: e.g. a `CpuGpuBuffer` (with `.np` and `.gpu`) became a plain tensor.
    Also a container the consumer iterates that became one object of a class with no iteration
    (`list[CachedRequestData]` -> `CachedRequestData`): reported at the loop, where it raises.
    And an attribute the consumer indexes (`table.slot_mapping[:n]`, `holder.x[i] = v`, also
    inside a longer chain) that became one object of a class with no `__getitem__` (or
    `__setitem__`, `__delitem__`) where the baseline's was a tensor, a container or a class that
    has it (`torch.zeros(...)` -> `CpuGpuBuffer`): reported at the subscript; so is an item of a
    container that was a `TypedDict` and became a class (`pos = r.mm_positions[i]; pos["offset"]`).
    And a value that kept its name but became another builtin kind lacking the member read
    (container_kinds.py): `for r in h.reqs: r.req_id` once `list[Req]` became `dict[str, Req]`
    (the loop yields keys), `.extend` on what became a `tuple`, `.gpu_cache` on one object that
    became a `list` of them.
    """
    if ctx.baseline_paths is None:
        return
    seen: set[tuple] = set()
    loops = [(mod, rec, rec["path"], "attr") for mod in ctx.usage for rec in mod.get("uses") or ()
             if rec.get("kind") == "iter"]  # a loop over what a call returned (`for b in m.allocate_slots(...)`)
    for mod in ctx.usage:
        for rec in mod.get("uses") or ():
            path, found = rec["path"], None
            if len(path) < 2:
                continue
            if rec.get("kind") == "attr_set" and rec.get("stored"):  # `engine.scheduler = Mine(...)`, a list now
                found = _stored_kind_finding(ctx, mod, rec, seen)
            elif rec.get("kind") == "item" and rec.get("subscript") in _SUBSCRIPT:  # `pos["offset"]`, a local's path
                found = _no_longer_subscriptable(ctx, mod, rec, path, ctx.target_paths.steps(path), len(path), seen,
                                                 rec["subscript"])
            if found is not None:
                yield found
    for mod, rec, path, what in _typed_paths(ctx) + loops:
        tv = ctx.target_paths.steps(path)
        how = rec.get("subscript") if what == "attr" else None
        if how in _SUBSCRIPT and len(path) >= 2:  # `holder.attr[i]`: the use's own last step is subscripted
            found = _no_longer_subscriptable(ctx, mod, rec, path, tv, len(path), seen, how)
            if found is not None:
                yield found
                continue
        first = _first_read_step(rec)  # a local's members were read where it was bound: reported there
        for k in range(1, len(path)):
            if k == 1:  # the root itself: only a parameter handed a container once, an object now
                found = _retyped_at(ctx, mod, rec, path, tv, 1, seen) if path[1].startswith(".") \
                    and not is_soft(path[1]) and first <= 1 else None
                if found is not None:
                    yield found
                    break
                continue
            if path[k] == "[*]":
                found = _no_longer_iterable(ctx, mod, rec, path, tv, k, seen)
                if found is not None:
                    yield found
                    break
                continue
            if path[k] in ("[]", "[:]"):
                found = _no_longer_subscriptable(ctx, mod, rec, path, tv, k, seen, "get")
                if found is not None:
                    yield found
                    break
                continue
            if not path[k].startswith(".") or is_soft(path[k]) or k < first:
                continue  # a soft read (`getattr(x, "a", d)`) on a retyped holder gives its default
            if builtin_type(tv[k - 1]) is not None:  # a list, a tuple, a `str` the target declares there
                found = _builtin_retyped(ctx, mod, rec, path, tv, k, seen)
                if found is not None:
                    yield found
                    break
                continue
            found = _retyped_at(ctx, mod, rec, path, tv, k, seen)
            if found is not None:
                yield found
                break


def _retyped_at(ctx: CheckContext, mod: dict, rec: dict, path: list[str], tv: list[Value], k: int,
                seen: set[tuple]) -> Finding | None:
    """DRIFT061 at the member read `path[k]`: what holds it (`path[k - 1]`) is another class on the
    target than on the baseline, one without the member; or it was a builtin container the member
    belongs to (a `dict` a target hook handed the consumer) and is now an object. The holder must
    be an attribute, or at the root a parameter (`arg:`/`over:`), so the title can name it."""
    tprev = tv[k - 1]
    if not ((tprev.kind in ("external", "literal") and tprev.name) or
            (tprev.kind == "instance" and tprev.cls is not None and tv[k].kind == "missing")):
        return None  # the target's side already rules a retyping out: the baseline is not walked
    bv = ctx.baseline_paths.steps(path)
    bprev, b = bv[k - 1], bv[k]
    if _was_container(tprev, tv[k], bprev, b):
        holder = _holder_name(path, k)
    elif k < 2 or bprev.kind != "instance" or not b.known or b.kind == "consumer" or b.owner is None:
        return None
    else:
        retyped = (tprev.kind in ("external", "literal") and bool(tprev.name)) or \
                  (tprev.kind == "instance" and tprev.cls is not None and tv[k].kind == "missing"
                   and tprev.cls.dotted.rsplit(".", 1)[-1] != bprev.cls.dotted.rsplit(".", 1)[-1])
        # (the same class moved to another module is not a new type: DRIFT060 says what it lost)
        holder = path[k - 1][1:].lstrip("?") if retyped and path[k - 1].startswith(".") else None
    if holder is None:
        return None
    key = (mod.get("path"), rec["line"], tuple(path[:k + 1]))
    if key in seen:
        return None
    seen.add(key)
    name = path[k][1:]
    now = tprev.describe() if tprev.kind == "instance" else tprev.name
    was = bprev.describe()
    return Finding(
        rule_id="DRIFT061", kind=RuleKind.ATTRIBUTE_RETYPED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"`{holder}` is now {now}, not a `{was}`: `.{name}` is `{was}`'s",
        consumer_site=_site(mod, rec, k == len(path) - 1),
        target_evidence=(_evidence(tprev),),
        baseline_evidence=(_evidence(bprev) or _evidence(b),),
        predicted_failure=(f"AttributeError: '{tprev.describe()}' object has no attribute '{name}'"
                           if tprev.kind == "instance" else
                           f"AttributeError: '{now}' has no attribute '{name}' (it is no longer a {was})"),
        fix=Fix(f"use `{holder}` as {now}", manual_reason="the new type's API needs reading"),
        symbol=tprev.cls.dotted if bprev.kind == "container" else f"{was}.{name}",
    )


def _was_container(tprev: Value, t: Value, bprev: Value, b: Value) -> bool:
    """The baseline's value was a builtin container the step's member belongs to (`dict.items`)
    and the target's is an object of a class without it: the value changed type, not the class."""
    return bprev.kind == "container" and builtin_type(bprev) is not None and b.known \
        and tprev.kind == "instance" and tprev.cls is not None and t.kind == "missing"


def _holder_name(path: list[str], k: int) -> str | None:
    """How the consumer names the value before step k: its attribute, or the parameter a root
    names (`arg:`/`over:` roots end in the parameter's name); None for anything else."""
    step = path[k - 1]
    if step.startswith("."):
        return step[1:].lstrip("?")
    if k - 1 == 0 and step.startswith(("arg:", "over:")):
        return step.rsplit(":", 1)[-1]
    return None


_ITERATION = ("__iter__", "__getitem__")
_SUBSCRIPT = {"get": "__getitem__", "set": "__setitem__", "del": "__delitem__"}


def _stored_kind_finding(ctx: CheckContext, mod: dict, rec: dict, seen: set[tuple]) -> Finding | None:
    """A store of one object where the target now keeps a container (or the reverse):
    container_kinds.stored_kind_clash."""
    path = rec["path"]
    found = stored_kind_clash(ctx, path, rec["stored"])
    key = (mod.get("path"), rec["line"], tuple(path))
    if found is None or key in seen:
        return None
    seen.add(key)
    now, t, b = found
    holder = f"`{path[-1][1:]}`"
    was = f"one `{b.describe()}`" if rec["stored"] == "object" else f"a `{rec['stored']}`"
    owner = ctx.target_paths.value(tuple(path[:-1]))
    return Finding(
        rule_id="DRIFT061", kind=RuleKind.ATTRIBUTE_RETYPED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"the target now keeps {now} in {holder}, not {was}: the consumer stores "
              + ("one object" if rec["stored"] == "object" else f"a `{rec['stored']}`") + " there",
        consumer_site=_site(mod, rec, True),
        target_evidence=tuple(e for e in (_evidence(t),) if e),
        baseline_evidence=tuple(e for e in (_evidence(b),) if e),
        predicted_failure=(f"TypeError where the target indexes or iterates {holder} (it holds {now} now)"
                           if rec["stored"] == "object" else
                           f"AttributeError where the target reads {holder}'s members (it expects {now})"),
        fix=Fix(f"store {now} in {holder}, as the target does", manual_reason="how many the target keeps, and "
                "which it reads, needs reading its code"),
        symbol=f"{owner.describe()}.{path[-1][1:]}" if owner.kind == "instance" else path[-1][1:],
    )


def _builtin_retyped(ctx: CheckContext, mod: dict, rec: dict, path: list[str], tv: list[Value], k: int,
                     seen: set[tuple]) -> Finding | None:
    """`.name` read on what the target declares a builtin lacking it (container_kinds.py):
    a `dict`'s keys iterated where a list's objects were, a `tuple` where a `list` was."""
    found = builtin_lacks(ctx, path, tv, k)
    if found is None:
        return None
    key = (mod.get("path"), rec["line"], tuple(path[:k + 1]))
    if key in seen:
        return None
    seen.add(key)
    holder, now, was, b = found
    name = path[k][1:]
    return Finding(
        rule_id="DRIFT061", kind=RuleKind.ATTRIBUTE_RETYPED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"{holder[:1].upper()}{holder[1:]} is now a `{now}`, no longer a `{was}`: `.{name}` is `{was}`'s",
        consumer_site=_site(mod, rec, k == len(path) - 1),
        target_evidence=tuple(e for e in (_evidence(tv[k - 1]),) if e),
        baseline_evidence=tuple(e for e in (_evidence(b),) if e),
        predicted_failure=f"AttributeError: '{now}' object has no attribute '{name}'",
        fix=Fix(f"use {holder} as a `{now}`", manual_reason="what the new kind holds needs reading"),
        symbol=f"{was}.{name}",
    )


def _no_longer_subscriptable(ctx: CheckContext, mod: dict, rec: dict, path: list[str], tv: list[Value], k: int,
                             seen: set[tuple], how: str) -> Finding | None:
    """`holder.attr[i]` (read, `how` "get"; stored, "set"; deleted, "del") where the target's
    `attr` is one object of a class whose every base drift read and none of which defines the
    item method (nor `__getattr__`), and the baseline's was not such an object of that class: a
    tensor or array a builder made, a container, or an instance of a class with the item method
    (the consumer's subscript worked there). `torch.zeros(...)` -> `CpuGpuBuffer`: TypeError."""
    tprev = tv[k - 1]
    element = path[k - 1] in ("[]", "[*]")  # an item of a container: `ranges[i]["offset"]`
    if tprev.kind != "instance" or tprev.cls is None or not (path[k - 1].startswith(".") or element) \
            or is_soft(path[k - 1]):
        return None
    dunder = _SUBSCRIPT[how]
    if ctx.target_paths.unresolved_bases(tprev.cls) or any(
            name in o.as_class.methods for o in ctx.target.mro(tprev.cls) for name in (dunder, "__getattr__")) \
            or ctx.target_paths.subclass_may_hold(tprev.cls, dunder):
        return None
    bprev = ctx.baseline_paths.steps(path)[k - 1]
    if bprev.kind == "instance" and bprev.cls is not None:
        # a `TypedDict` is a dict at run time, so `r["offset"]` worked on it whatever it declares
        typed_dict = how == "get" and any(o.as_class.kind == "typeddict" for o in ctx.baseline.mro(bprev.cls))
        worked = typed_dict or any(dunder in o.as_class.methods for o in ctx.baseline.mro(bprev.cls))
        moved = bprev.cls.dotted.rsplit(".", 1)[-1] == tprev.cls.dotted.rsplit(".", 1)[-1]
        if not worked or (moved and not typed_dict):
            return None  # one the subscript never worked on either, or the same class (moved)
    elif bprev.kind not in ("external", "container") or element:
        return None  # an item was an object of a class the subscript worked on, or nothing is said
    key = (mod.get("path"), rec["line"], tuple(path[:k]))
    if key in seen:
        return None
    seen.add(key)
    holder = holder_text(path, k - 1) if element else f"`{path[k - 1][1:].lstrip('?')}`"
    now = tprev.describe()
    was = bprev.describe() if bprev.kind == "instance" else (bprev.name or "a subscriptable value")
    verb = {"get": "is not subscriptable", "set": "does not support item assignment",
            "del": "does not support item deletion"}[how]
    members = sorted({m for o in ctx.target.mro(tprev.cls) for m in o.as_class.instance_attrs
                      if not m.startswith("_")})[:4]
    return Finding(
        rule_id="DRIFT061", kind=RuleKind.ATTRIBUTE_RETYPED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"{holder[:1].upper()}{holder[1:]} is now one `{now}`, no longer `{was}`: indexing it fails",
        consumer_site=_site(mod, rec, True),
        target_evidence=(_evidence(tprev) or Location(tprev.cls.path, tprev.cls.line, symbol=tprev.cls.dotted),),
        baseline_evidence=tuple(e for e in (_evidence(bprev),) if e),
        predicted_failure=f"TypeError: '{now}' object {verb}",
        fix=Fix(f"index what `{now}` holds" + (f" ({', '.join('.' + m for m in members)})" if members else ""),
                manual_reason="which of the new object's members to index needs reading"),
        symbol=tprev.cls.dotted,
    )


def _no_longer_iterable(ctx: CheckContext, mod: dict, rec: dict, path: list[str], tv: list[Value], k: int,
                        seen: set[tuple]) -> Finding | None:
    """`for x in holder.attr:` where the baseline annotated `attr` as a container and the target
    as one object of a class whose every base drift read and none of which defines `__iter__` or
    `__getitem__` (`list[CachedRequestData]` -> `CachedRequestData`): the loop raises TypeError."""
    tprev = tv[k - 1]
    if tprev.kind != "instance" or tprev.cls is None or not (path[k - 1].startswith(".") or path[k - 1] == "()"):
        return None  # an attribute, or what a call returns (`for b in manager.allocate_slots(...)`)
    mro = ctx.target.mro(tprev.cls)
    if ctx.target_paths.unresolved_bases(tprev.cls) or any(
            name in o.as_class.methods for o in mro for name in _ITERATION + ("__getattr__",)) \
            or any(ctx.target_paths.subclass_may_hold(tprev.cls, name) for name in _ITERATION):
        return None
    bprev = ctx.baseline_paths.steps(path)[k - 1]
    if bprev.kind != "container":
        return None
    loop = _iterated_read(mod, rec, path[:k])  # the `for` statement's own read of the container
    key = (mod.get("path"), (loop or rec)["line"], tuple(path[:k]))
    if key in seen:
        return None
    seen.add(key)
    returned = path[k - 1] == "()"
    holder, now = (path[k - 2][1:] + "()" if returned and k >= 2 else path[k - 1][1:]), tprev.describe()
    return Finding(
        rule_id="DRIFT061", kind=RuleKind.ATTRIBUTE_RETYPED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=(f"`{holder}` now returns one `{now}`, no longer a container: iterating it fails" if returned else
               f"`{holder}` is now one `{now}`, no longer a container: iterating it fails"),
        consumer_site=_site(mod, loop, True) if loop is not None else _site(mod, rec, False),
        target_evidence=(_evidence(tprev) or Location(tprev.cls.path, tprev.cls.line, symbol=tprev.cls.dotted),),
        baseline_evidence=tuple(e for e in (_evidence(bprev),) if e),
        predicted_failure=f"TypeError: '{now}' object is not iterable",
        fix=Fix(f"read `{holder}` as one `{now}`", manual_reason="what the single object now holds needs reading"),
        symbol=f"{tprev.cls.dotted}",
    )


def _iterated_read(mod: dict, rec: dict, container: list[str]) -> dict | None:
    """The read of `container` itself nearest before `rec` in the same function: the `for`
    statement whose loop variable `rec` reads through (where Python raises)."""
    best = None
    for u in mod.get("uses") or ():
        if u.get("path") == container and u.get("function") == rec.get("function") and u["line"] <= rec["line"]:
            if best is None or u["line"] > best["line"]:
                best = u
    return best


def _sig(method: dict) -> list[list[Any]]:
    return method.get("params") or []


def _accepts(params: list[list[Any]], name: str) -> bool:
    return any(p[0] == name and p[1] != "POSITIONAL_ONLY" for p in params) or any(p[1] == "VAR_KEYWORD" for p in params)


_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _positional_renames(own: list, bparams: list, sig: list[list[Any]]) -> dict[str, str]:
    """{target name: consumer name} for each parameter the target renamed in place (the
    baseline's parameter at the same position, positional on both sides, is gone by its name)
    where the consumer's function takes a positional parameter at that position: a caller
    that passes it by position, as calls written against the baseline do, still reaches the
    consumer's parameter; only a call by the new name fails. A target parameter the baseline
    already had at a later position is no rename: the one before it was removed, and the
    callers no longer pass it at all."""
    bown = bparams[1:] if bparams and bparams[0].name in ("self", "cls") else bparams
    tnames = {p.name for p in own}
    bnames = {p.name for p in bown}  # a name the baseline had elsewhere moved up a slot: a removal, no rename
    mine = [p for p in sig if p[1] in _POSITIONAL]
    out = {}
    for i, p in enumerate(own):
        if p.kind not in _POSITIONAL or i >= len(bown) or i >= len(mine) or any(q[1] == "VAR_POSITIONAL" for q in sig):
            continue
        b = bown[i]
        if b.kind in _POSITIONAL and b.name != p.name and b.name not in tnames and p.name not in bnames \
                and all(q.kind in _POSITIONAL for q in bown[:i]) and all(q.kind in _POSITIONAL for q in own[:i]):
            out[p.name] = mine[i][0]
    return out


def _positional_capacity(params: list[list[Any]]) -> int | None:
    if any(p[1] == "VAR_POSITIONAL" for p in params):
        return None
    return sum(1 for p in params if p[1] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"))


def _consumer_classes(ctx: CheckContext) -> Iterator[tuple[str, dict, list[Symbol], list[Symbol]]]:
    """Each consumer class with target bases, with its target and baseline bases. Where only the
    target resolves the bases (the consumer was written against a snapshot newer than the
    baseline), the baseline's side is the nearest ancestor both define (nearest_bases.py)."""
    for ref, cls in ctx.consumer.classes.items():
        tb = ctx.target_paths.target_bases(ref)
        bb = ctx.baseline_paths.target_bases(ref) if ctx.baseline_paths else []
        if tb and not bb and ctx.baseline is not None:
            bb = nearest_shared_ancestors(ctx.target, ctx.baseline, tb)
        if tb or bb:
            yield ref, cls, tb, bb


def _lookup_method(index: PackageIndex, bases: list[Symbol], name: str) -> Symbol | None:
    for base in bases:
        for owner in index.mro(base):
            m = owner.as_class.methods.get(name)
            if m is not None:
                return _method(owner, name, m)
    return None


def _method(owner: Symbol, name: str, m: FunctionFacts) -> Symbol:
    """The method `name` of the class `owner` as a symbol (its record is the view's)."""
    return Symbol(f"{owner.dotted}.{name}", "method", owner.module, owner.path, m.line, m.raw, owner)


def _module_of(ctx: CheckContext, cls: dict) -> dict:
    return ctx.consumer.modules.get(cls["module"]) or {"path": cls.get("path") or "?"}


def _call_sites(index: PackageIndex, modules=None) -> dict[str, list[list[Any]]]:
    """name -> [[path, line, positional count, keywords, star, class, method, receiver]] of every
    `x.name(...)` in the target (callers.py says which of them reach a consumer's object)."""
    out: dict[str, list[list[Any]]] = {}

    def add(fn: FunctionFacts, path: str, owner: str | None) -> None:
        beh = fn.behaviour
        self_calls, held = beh.self_calls, beh.held_calls
        for name, sites in beh.call_sites.items():
            bucket = out.setdefault(name, [])
            for site in sites:  # ..., the class and method the call is in (None outside classes), its receiver
                bucket.append([path, site[0], site[1], site[2], len(site) > 3, owner, fn.name,
                               receiver_of(site[0], name, fn.name, owner, self_calls, held)])

    for mod_name in index.modules if modules is None else modules:
        mod = ModuleFacts(index.modules[mod_name])
        path = mod.path
        for fn in mod.functions.values():
            add(fn, path, None)
        stack = [(f"{mod_name}.{n}", c) for n, c in mod.classes.items()]
        while stack:
            dotted, c = stack.pop()
            for m in c.methods.values():
                add(m, path, dotted)
            stack.extend((f"{dotted}.{n}", sub) for n, sub in c.nested.items())
    return out


def _patch_reaches(ctx: CheckContext, site: list[Any], patched: Symbol | None,
                   index: PackageIndex | None = None) -> bool:
    """Whether a target call on `self` (or `super()`) can run a method patched onto the class
    `patched`: only inside that class, one of its bases, or one of its subclasses; in any other
    class `self` is another class's object (`super().forward(...)` in an unrelated model).
    `index`: the side the site and `patched` come from (the target's unless given: the baseline's
    own calls are held to the same test)."""
    index = ctx.target if index is None else index
    owner = site[5] if len(site) > 5 else None
    recv = site[RECEIVER] if len(site) > RECEIVER else None
    if patched is None or owner is None or recv not in ("self", "super"):
        return True
    if owner in mro_names(index, [patched]):
        return True
    cls = index.lookup(owner)
    return cls is None or cls.kind != "class" or patched.dotted in mro_names(index, [cls])


def _sites_of(index: PackageIndex, name: str, decl: Symbol | None) -> list[list[Any]] | None:
    """The target's calls `.name(...)` that can be calls of `decl` (its parameters accept them);
    None when the facts predate call sites."""
    sites = index.query("call_sites.v4", name, needle=word(name), build=_call_sites) or []  # a mention: calls go through aliases and functools.partial too
    if decl is None:
        return sites
    # memoised per index: each override of a method asks again (vllm_ascend: 478 asks, 12k site tests)
    memo = index.__dict__.setdefault("_fitting_sites", {})
    hit = memo.get((name, decl.dotted))
    if hit is not None and hit[0] is decl.facts:
        return hit[1]
    decl_sig = _as_sig(decl.as_function.params)
    if decl_sig and decl_sig[0][0] not in ("self", "cls"):
        decl_sig = [["self", "POSITIONAL_OR_KEYWORD", False]] + decl_sig  # a staticmethod: nothing bound
    fitting = [s for s in sites if not s[4] and _site_failure("", decl_sig, s) is None]
    memo[(name, decl.dotted)] = (decl.facts, fitting)
    return fitting


def _shared(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _category(failure: str | None) -> tuple | None:
    """What kind of mismatch a failure is, whatever the counts: the same kind at the baseline's
    calls means the override was already broken there."""
    if failure is None:
        return None
    if "unexpected keyword argument" in failure:
        return ("keyword", failure.rsplit("'", 2)[-2])
    if "positional argument" in failure and " but " in failure:
        return ("too many positional",)
    if "missing" in failure:
        return ("missing", failure.rsplit(":", 1)[-1].strip())
    return (failure,)


def _as_sig(params) -> list[list[Any]]:
    return [[p.name, p.kind, not p.required] for p in params]


def _site_failure(label: str, sig: list[list[Any]], site: list[Any], *, bound: int = 1) -> str | None:
    """What Python raises when the target's call `site` reaches the consumer's `sig` (self bound;
    `bound=0` for a plain function, whose positional count Python states as passed)."""
    if site[4]:
        return None  # *args / **kwargs at the call: cannot tell
    params = sig[1:] if sig and sig[0][0] in ("self", "cls") else sig
    if any(k == "VAR_KEYWORD" for _n, k, _d in params):
        kw_ok = None
    else:
        kw_ok = {n for n, k, _d in params if k != "POSITIONAL_ONLY"}
    for kw in site[3]:
        if kw_ok is not None and kw not in kw_ok:
            return f"TypeError: {label}() got an unexpected keyword argument '{kw}'"
    slots = [n for n, k, _d in params if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    if not any(k == "VAR_POSITIONAL" for _n, k, _d in params) and site[2] > len(slots):
        return (f"TypeError: {label}() takes {plural(len(slots) + bound, 'positional argument')} but "
                f"{site[2] + bound} {'was' if site[2] + bound == 1 else 'were'} given")
    covered = set(slots[: site[2]]) | set(site[3])
    for kinds, what in ((("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"), "positional"), (("KEYWORD_ONLY",), "keyword-only")):
        missing = [n for n, k, d in params if not d and k in kinds and n not in covered]
        if missing:
            return f"TypeError: {label}() missing {len(missing)} required {what} argument" \
                   f"{'s' if len(missing) > 1 else ''}: {_pylist(missing)}"
    return None


def _mismatches(sig: list[list[Any]], site: list[Any]) -> set[tuple[str, str]]:
    """Every reason the call `site` does not bind to `sig` (self bound), not only the first one
    Python names: ("keyword", k) for each keyword it passes that `sig` does not take, ("missing", p)
    for each required parameter it leaves unfilled, ("positional", n) for n positionals too many. Why: an override that already lacked
    `global_num_experts` and `activation`, which the baseline's calls passed, fails at the baseline
    naming one and at the target naming the other; that is one old failure, not a new one."""
    if site[4]:
        return set()
    params = sig[1:] if sig and sig[0][0] in ("self", "cls") else sig
    out: set[tuple[str, str]] = set()
    if not any(k == "VAR_KEYWORD" for _n, k, _d in params):
        ok = {n for n, k, _d in params if k != "POSITIONAL_ONLY"}
        out |= {("keyword", kw) for kw in site[3] if kw not in ok}
    slots = [n for n, k, _d in params if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    if site[2] > len(slots) and not any(k == "VAR_POSITIONAL" for _n, k, _d in params):
        out.add(("positional", str(site[2])))
    covered = set(slots[: site[2]]) | set(site[3])
    out |= {("missing", n) for n, k, d in params if not d and k not in ("VAR_POSITIONAL", "VAR_KEYWORD")
            and n not in covered}
    return out


def _already_failing(sig: list[list[Any]], site: list[Any], before: list[set[tuple[str, str]]]) -> bool:
    """Every reason the target's call `site` does not bind to the override already kept one of
    the baseline's own calls from binding (`before`: each baseline call's `_mismatches`): the
    override was as broken at that call, whichever keyword Python happens to name first. Reasons
    pooled over several baseline calls are no such evidence: pooled, they hid a reviewed real
    break (vllm-ascend 0.13 -> vLLM 0.18, the MoE runner's new `quant_method.apply(layer=, x=,
    topk_weights=, ...)` call of an override that still takes `router_logits`)."""
    now = _mismatches(sig, site)
    return bool(now) and any(now <= old for old in before)


def _pylist(names: list[str]) -> str:
    """How Python lists missing arguments: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    quoted = [repr(n) for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _replaced_callers(ctx: CheckContext, ref: str | None, tb: list[Symbol]) -> set[tuple[str, str]]:
    """(target class, method) pairs whose code never runs for the consumer's class `ref`: methods
    of its target bases that the consumer overrides too (its own caller replaces theirs), unless
    the override hands the call on to the base's (`super().m(...)` on the path it does not handle
    itself): then the base's calls still run for `ref`'s objects."""
    if ref is None:
        return set()
    own = _consumer_defines(ctx, ref)
    return {(o.dotted, m) for b in tb for o in ctx.target.mro(b) for m in o.as_class.methods
            if m in own and runs_own(ctx, ref, m)}


_SAME_CALLER = "; the baseline's call in the same function did not fit it either"


def _override_findings(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]],
                       tm: Symbol, bm: Symbol | None, how: str, ref: str | None = None,
                       tb: list[Symbol] = (), stub: bool = False,
                       on: tuple[Symbol | None, Symbol | None] = (None, None),
                       replaced_too: frozenset[tuple[str, str]] = frozenset()) -> Iterator[Finding]:
    """The consumer's replacement of `tm` against how the target now calls that name (its own
    call sites, when the facts have them, and the calls of a public method that runs it through
    a bound method the class chose, rules/dispatch.py), else against how the target's base
    declares it. `on`: the patched target class on each side (an override's are `tb`);
    `replaced_too`: (class, method) of target methods the consumer replaces, whose calls never run.
    A replacement that only raises (`stub`) already failed wherever the baseline called it: a
    call it no longer fits raises a TypeError there instead, which is no new failure."""
    name = tm.dotted.rsplit(".", 1)[-1]
    if name != "__init__":
        replaced = _replaced_callers(ctx, ref, list(tb))
        inherited = mro_names(ctx.target, tb) if ref is not None else None
        declared = tm.owner.dotted if tm.owner is not None else None
        family = list(tb) if ref is not None else [on[0]]
        chosen = dispatched_sites(ctx.target, family, name, tm, _sites_of)
        direct = _sites_of(ctx.target, name, tm) or []
        if _takes_anything(tm):  # the declaration says nothing of its callers: only a typed receiver is one
            direct = [s for s in direct if _typed_receiver(ctx, s, declared)]
        sites = [s for s in direct + chosen
                 if (s[5], s[6]) not in replaced and (s[5], s[6]) not in replaced_too
                 and reaches(ctx, s, inherited, declared, lambda n: _sites_of(ctx.target, n, None) or [])
                 and (ref is not None or _patch_reaches(ctx, s, tm.owner))]
        if not sites:
            return  # nothing in the target calls `.name(...)` where it runs for the consumer's class
        if stub and ctx.baseline is not None and _sites_of(ctx.baseline, name, bm):
            return
        failing = [(s, f) for s in sites if (f := _site_failure(label, sig, s)) is not None]
        if not failing:
            return  # most overrides fit every call: nothing to sort, no baseline to ask
        old_decl = _as_sig(bm.as_function.params) if ctx.baseline is not None and bm is not None else None
        # failures the override already had against the baseline's own calls: not drift
        bfamily = _baseline_family(ctx, tb) if ref is not None else [on[1]]
        bsites = (_sites_of(ctx.baseline, name, bm) or []) + dispatched_sites(ctx.baseline, bfamily, name, bm, _sites_of) \
            if old_decl is not None else []
        before = {_category(_site_failure(label, sig, s)) for s in bsites}
        # the baseline called it in ways the override took (and others it did not, on paths the
        # consumer never ran); the target now calls it only in ways it does not take
        no_fit_left = len(failing) == len(sites) and any(_site_failure(label, sig, s) is None for s in bsites)
        before_names = [m for m in (_mismatches(sig, s) for s in bsites) if m]
        home = tm.path.split("/")
        # the likeliest callers first: calls by keyword, near the declaration (the evidence shown)
        failing.sort(key=lambda sf: (-len(sf[0][3]), -_shared(sf[0][0].split("/"), home), sf[0][0], sf[0][1]))
        seen: set[str] = set()
        out: list[Finding] = []  # the same-caller lowered ones last: one per site and symbol survives (Finding.key)
        bound_sig = receiver_named(sig, tm)
        for site, failure in failing:
            if failure in seen or ((_category(failure) in before or _already_failing(sig, site, before_names))
                                    and not no_fit_left):
                continue
            if old_decl is not None and _site_failure(label, old_decl, site) is None \
                    and not any(site is c for c in chosen) and not no_fit_left:
                continue  # the old declaration took this call too: not a call the change brought
                # (a dispatched call's is the chooser's `*args, **kwargs`: `before` judges it)
            seen.add(failure)
            # every call left is one the override does not take, but the baseline too had calls it did
            # not take (on paths the consumer did not run): whether the target's run this path is open
            only_paths_gone = no_fit_left and (_category(failure) in before
                                               or _already_failing(sig, site, before_names) or (
                old_decl is not None and _site_failure(label, old_decl, site) is None))
            caller_failed = not only_paths_gone and ctx.baseline is not None and failed_at_same_caller(
                lambda b: _site_failure(label, bound_sig, b) is not None, site, _sites_of(ctx.baseline, name, None) or [])
            out.append(_site_finding(
                ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, site=site, failure=failure,
                severity=Severity.RISKY if only_paths_gone or caller_failed else Severity.BREAKING,
                title=f"`{label}` ({how}) does not match how the target now calls `.{name}()` ({_call_shape(site)})"
                      + ("; the target no longer calls it in any way the override takes" if only_paths_gone else "")
                      + (_SAME_CALLER if caller_failed else ""),
                details=caller_desc(site) if caller_failed else None, called=f".{name}()"))
        yield from sorted(out, key=lambda f: f.title.endswith(_SAME_CALLER))
        return
    if ref is None and tm.owner is not None:  # a patched `__init__`: the target's subclasses call it by super()
        found = list(_super_init_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, how=how))
        if found:
            yield from found
            return
    yield from _declared_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, how=how)


def _site_finding(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]], tm: Symbol,
                  bm: Symbol | None, site: list[Any], failure: str, severity: Severity, title: str,
                  details: str | None, called: str) -> Finding:
    """DRIFT070 for a replacement that does not fit one target call site (`called` names it in the
    evidence), with the fix that site calls for."""
    return Finding(
        rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=severity, title=title, details=details,
        consumer_site=where,
        target_evidence=(Location(site[0], site[1], symbol=called), Location(tm.path, tm.line, symbol=tm.dotted)),
        baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),) if bm is not None else (),
        predicted_failure=failure,
        fix=_site_fix(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, site=site),
        symbol=tm.dotted,
    )


def _call_shape(site: list[Any]) -> str:
    """`2 positional arguments, prefix=, return_bias=`: what a target call site passes."""
    return plural(site[2], "positional argument") + (", " + ", ".join(k + "=" for k in site[3]) if site[3] else "")


def _takes_anything(fn: Symbol) -> bool:
    """`def forward(self, *args, **kwargs)`: a declaration that takes any call (`CustomOp.forward`)."""
    kinds = [p.kind for p in fn.as_function.params if p.name not in ("self", "cls")]
    return sorted(kinds) == ["VAR_KEYWORD", "VAR_POSITIONAL"]


def _typed_receiver(ctx: CheckContext, site: list[Any], declared: str | None) -> bool:
    """Whether the target call `site` is made on an object it types: `self`, a delegation to the
    base inside a class of the `declared` method's family, or an attribute of `self` the target's
    class types. A method every kind of layer has (`forward`), declared to take anything, is
    otherwise matched by its name alone: vLLM's `self.impl.forward(self, q, k, v, ...)` on an
    attention implementation, or a multimodal model's `super().forward(...)`, is no call of a
    linear layer's `forward`."""
    recv = site[RECEIVER] if len(site) > RECEIVER else None
    if recv == "self":
        return True
    if recv == "super":
        owner = ctx.target.lookup(site[5]) if site[5] else None
        return declared is not None and owner is not None and owner.kind == "class" \
            and declared in mro_names(ctx.target, [owner])
    if recv and recv.startswith("self.") and site[5]:
        return attribute_class(ctx, site[5], recv[5:]) is not None
    return False


def _super_inits(index: PackageIndex, owner: Symbol) -> list[list[Any]]:
    """The `super().__init__(...)` call sites of `index` that run `owner.__init__`: in a subclass
    of `owner` whose MRO finds no other `__init__` between itself and `owner`."""
    out = []
    for s in _sites_of(index, "__init__", None) or []:
        if len(s) <= RECEIVER or s[RECEIVER] != "super" or not s[5] or s[5] == owner.dotted or s[4]:
            continue
        cls = index.lookup(s[5])
        if cls is None or cls.kind != "class":
            continue
        for above in index.mro(cls)[1:]:
            if "__init__" in above.as_class.methods:
                if above.dotted == owner.dotted:
                    out.append(s)
                break
    return out


def _super_init_findings(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]], tm: Symbol,
                         bm: Symbol | None, how: str) -> Iterator[Finding]:
    """A replacement `__init__` patched onto a target class against the target's subclasses'
    `super().__init__(...)` calls (hqq's `LinearBase.__init__ = patched_init`; vLLM 0.8.0's linear
    layers pass the new `return_bias=` up): a keyword one now passes that the replacement does not
    take, where the baseline's own subclasses' calls did not fail that way. Breaking where most
    of those calls pass it (every such layer fails to build); risky where a few do (only those
    classes fail: vLLM 0.18's `FourierRotaryEmbedding` passes `init_cache=`). Only keywords: a
    call forwarding `**kwargs` or naming `self=` is read too coarsely for a missing argument."""
    sites = _super_inits(ctx.target, tm.owner)
    failing = [(s, f) for s in sites if (f := _site_failure(label, sig, s)) is not None
               and "unexpected keyword argument" in f]
    if not failing:
        return
    bowner = ctx.baseline.lookup(bm.owner.dotted) if ctx.baseline is not None and bm is not None \
        and bm.owner is not None else None
    before = {_category(_site_failure(label, sig, s)) for s in (_super_inits(ctx.baseline, bowner) if bowner else [])}
    new = [(s, f) for s, f in failing if _category(f) not in before]
    seen: set = set()
    for site, failure in sorted(new, key=lambda sf: (-len(sf[0][3]), sf[0][0], sf[0][1])):
        if _category(failure) in seen:
            continue
        seen.add(_category(failure))
        alike = [s for s, f in new if _category(f) == _category(failure)]
        most = len(alike) * 2 >= len(sites)
        yield _site_finding(
            ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, site=site, failure=failure,
            severity=Severity.BREAKING if most else Severity.RISKY,
            title=f"`{label}` ({how}) does not match how the target's subclasses now call it through "
                  f"`super().__init__()` ({_call_shape(site)})"
                  + ("" if most else f"; {len(alike)} of the {len(sites)} subclasses' calls pass it"),
            details=f"`{site[5].rsplit('.', 1)[-1]}.__init__` calls `super().__init__(...)`, which runs the replacement",
            called=f"{site[5]}.__init__")


def _sibling_contract(ctx: CheckContext, ref: str, cls: dict, name: str, m: dict, tb: list[Symbol],
                      bb: list[Symbol], where: Location) -> Iterator[Finding]:
    """An override of one method of a dispatch family (`forward_oot`) that does not take a
    parameter the target's own sibling (`forward_native`) gained: the target's callers of the
    public method pass it to whichever sibling was chosen (rules/siblings.py). Breaking when the
    new parameter is required (every caller passes it), risky when it has a default."""
    label = f"{cls['qual']}.{name}"
    for sibling, owner, p, _was in sibling_gains(ctx.target, ctx.baseline, tb, bb, name, _sig(m),
                                                 _consumer_defines(ctx, ref)):
        yield Finding(
            rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE,
            severity=Severity.BREAKING if p.required else Severity.RISKY,
            title=f"`{label}` (override) does not accept `{p.name}`, new in `{owner.dotted.rsplit('.', 1)[-1]}."
                  f"{sibling}`, whose callers the chosen `{name}` serves",
            consumer_site=where,
            target_evidence=(Location(owner.path, p.line or owner.line, symbol=f"{owner.dotted}.{sibling}"),),
            baseline_evidence=(Location(_was[0].path, _was[1].line, symbol=f"{_was[0].dotted}.{sibling}"),),
            predicted_failure=f"TypeError: {label}() got an unexpected keyword argument '{p.name}'",
            fix=Fix(f"add `{p.name}{'=' + p.default if p.default else ''}` to `{label}`'s parameters, as "
                    f"`{sibling}` declares it",
                    manual_reason="the override must decide what to do with the new argument"),
            symbol=f"{owner.dotted}.{sibling}",
        )


def _baseline_family(ctx: CheckContext, tb: list[Symbol]) -> list[Symbol]:
    """The baseline's classes of the target bases `tb` (by name)."""
    out = []
    for b in tb:
        sym = ctx.baseline.lookup(b.dotted) if ctx.baseline is not None else None
        if sym is not None:
            out.append(sym)
    return out


def _site_fix(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]], tm: Symbol,
              bm: Symbol | None, site: Any) -> Fix:
    """The edit that makes the override take the target's call `site`: the parameters the target
    added (not in the baseline's declaration) that the override lacks, when adding them is all
    the call needs; else manual."""
    tparams = tm.as_function.params
    declared = ", ".join(p.name + ("=" + p.default if p.default is not None else "") for p in tparams
                         if p.name not in ("self", "cls"))
    manual = Fix(f"match `{tm.dotted.rsplit('.', 2)[-2]}.{tm.dotted.rsplit('.', 1)[-1]}`'s parameters in `{label}`: "
                 f"the target declares ({declared[:200]}) and calls it with "
                 f"{plural(site[2], 'positional argument')}{''.join(', ' + k + '=' for k in site[3])}",
                 manual_reason="the override must decide what to do with the new arguments")
    bnames = {p.name for p in bm.as_function.params} if bm is not None else set()
    missing = [p for p in tparams if p.name not in bnames and p.name not in ("self", "cls")
               and p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD") and not _accepts(sig, p.name)]
    if not missing:
        return _stopped_parameters_fix(ctx, label=label, sig=sig, tm=tm, bm=bm, site=site) or manual
    # the override's parameters once the new ones stand where the target declares them
    grown = [list(x) for x in sig]
    tnames = [p.name for p in tparams]
    for p in missing:
        after = tnames[tnames.index(p.name) - 1] if tnames.index(p.name) > 0 else None
        names = [x[0] for x in grown]
        at = names.index(after) + 1 if after in names else sum(1 for x in grown if x[1] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"))
        grown.insert(at, [p.name, "POSITIONAL_OR_KEYWORD", not p.required])
    if _site_failure(label, grown, site) is not None:
        return _packed_parameters_text(ctx, label=label, sig=sig, tm=tm, bm=bm, missing=missing) or manual
    return new_parameters_fix(ctx, where=where, label=label, tm=tm, bm=bm, missing=missing, fallback=manual, sig=sig)


def _packed_parameters_text(ctx: CheckContext, *, label: str, sig: list[list[Any]], tm: Symbol,
                            bm: Symbol | None, missing: list[Any]) -> Fix | None:
    """The manual edit, said concretely, for an override whose separate parameters the target now
    packs into one new parameter of a class that has them as members (vLLM 0.13's
    `get_attn_backend_cls(selected_backend, attn_selector_config)`, an `AttentionSelectorConfig`
    holding head_size, dtype, ...): take the target's parameters and read each old one from the
    new one; the old ones that class does not hold are named, since the target passes them no more
    (`use_v1`). Manual: the override's body decides what those mean now."""
    if bm is None:
        return None
    tnames = [p.name for p in tm.as_function.params]
    # the override's parameters the target's declaration does not have (the baseline's, or the
    # override's own extras such as a `use_v1` the baseline's caller still filled)
    gone = [x[0] for x in sig if x[0] not in tnames and x[0] not in ("self", "cls")
            and x[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    if not gone:
        return None
    for p in missing:
        cls = _annotated_class(ctx, tm, p.name, [])
        if cls is None:
            continue
        members = _members(ctx.target, cls)
        held = [g for g in gone if g in members]
        if not held:
            continue
        rest = [g for g in gone if g not in members]
        if len(missing) == 1:
            fix = packed_fix(ctx, label=label, sig=sig, tm=tm, holder=p.name, cls=cls, held=held, rest=rest)
            if fix is not None:
                return fix
        own = ", ".join(n for n in tnames if n not in ("self", "cls"))
        reads = ", ".join(f"`{g} = {p.name}.{g}`" for g in held[:4]) + (", ..." if len(held) > 4 else "")
        return Fix(f"take `{label}`'s parameters as the target declares them ({own}) and read the old ones from "
                   f"`{p.name}` (its class `{cls.dotted.rsplit('.', 1)[-1]}` holds {len(held)} of them: {reads})"
                   + (f"; {', '.join(f'`{r}`' for r in rest)} {'is' if len(rest) == 1 else 'are'} not among them: "
                      f"the target passes {'it' if len(rest) == 1 else 'them'} no more" if rest else ""),
                   manual_reason="the override's body decides what the values the target no longer passes mean now")
    return None


def _annotated_class(ctx: CheckContext, tm: Symbol, param: str, callers: list[str]) -> Symbol | None:
    """The target class a parameter of method `tm` is annotated with, read where the method is
    declared or in a base's declaration. A string annotation no module imports (`"FusedMoE"`,
    kept out of an import cycle) is the class of that name among `callers` (the classes the
    baseline's own calls of the method were made from)."""
    owners = ctx.target.mro(tm.owner) if tm.owner is not None and tm.owner.kind == "class" else []
    name = tm.dotted.rsplit(".", 1)[-1]
    texts = []
    for owner in [None, *owners]:
        m = tm if owner is None else (_method(owner, name, owner.as_class.methods[name])
                                      if name in owner.as_class.methods else None)
        if m is None:
            continue
        p = next((q for q in m.as_function.params if q.name == param), None)
        text = strip_annotation(p.annotation if p is not None else None)
        cls = ctx.target.resolve_in(m.module, text) if text else None
        if cls is not None and cls.kind == "class":
            return cls
        if text:
            texts.append(text)
    for dotted in callers:
        if dotted.rsplit(".", 1)[-1] in texts:
            cls = ctx.target.lookup(dotted)
            if cls is not None and cls.kind == "class":
                return cls
    return None


def _stopped_parameters_fix(ctx: CheckContext, *, label: str, sig: list[list[Any]], tm: Symbol,
                            bm: Symbol | None, site: Any) -> Fix | None:
    """`bind_parameters` for an override that still takes parameters the target's declaration
    dropped and its callers stopped passing, where the target now hands over the object that
    holds them: a parameter it still passes (`layer`) is annotated with a class that has every
    dropped name as a member, and the baseline's own call of the method passed those keywords
    from inside that class (vLLM's FusedMoE passed `top_k=self.top_k, ...` and now passes
    `layer=self`). The override then reads each one from that parameter, tiered by `_bind_fix`.
    None when the evidence is not all there."""
    if ctx.baseline is None or bm is None:
        return None
    tnames = {p.name for p in tm.as_function.params}
    bnames = {p.name for p in bm.as_function.params}
    gone = [x[0] for x in sig if x[0] in bnames and x[0] not in tnames and x[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    if not gone:
        return None
    name = tm.dotted.rsplit(".", 1)[-1]
    required = {x[0] for x in sig if x[0] in gone and not x[2]}
    # the classes the baseline's own calls passed the now-dropped keywords from
    callers = sorted({s[5] for s in _sites_of(ctx.baseline, name, bm) or [] if s[5] and required <= set(s[3])})
    for p in tm.as_function.params:
        if p.name in ("self", "cls") or not any(x[0] == p.name for x in sig):
            continue
        cls = _annotated_class(ctx, tm, p.name, callers)
        if cls is None or cls.dotted not in callers or not set(gone) <= _members(ctx.target, cls):
            continue  # no class holding them, or the baseline did not pass them from inside it
        shrunk = [x for x in sig if x[0] not in gone]
        if _site_failure(label, shrunk, site) is not None:
            return None
        return _bind_fix(label, p.name, cls.dotted.rsplit(".", 1)[-1], gone,
                         _own_attributes_passed(ctx.baseline, name, cls.dotted, p.name, gone))
    return None


def _bind_fix(label: str, holder: str, cls: str, gone: list[str], proven: set[str] | None) -> Fix:
    """`bind_parameters`, tiered by what the baseline's own calls prove (`_own_attributes_passed`).
    Every dropped name proven: safe. Some proven: safe too, with the others in `unread`: the
    codemod removes those from the `def` but writes nothing where the body reads one, since nothing
    shows `holder.<name>` gives what the baseline passed (vLLM 0.12's FusedMoE passed
    `expert_map=self.expert_map if not self.rocm_aiter_fmoe_enabled else self.expert_mask`); a body
    that never reads it loses nothing. None proven: unsafe (the names are matched, not the values)."""
    reads = ", ".join(f"`{n} = {holder}.{n}`" for n in gone[:3]) + (", ..." if len(gone) > 3 else "")
    args: dict[str, Any] = {"function": label.rsplit(".", 1)[-1], "params": [[n, f"{holder}.{n}"] for n in gone]}
    unread = [n for n in gone if proven is not None and n not in proven]
    if proven and unread:
        args["unread"] = unread
        check = (f"every call the baseline made of it passed `{holder}=self` and all but "
                 f"{', '.join(f'`{n}`' for n in unread)} as `self.<name>`, so each read gives the value the baseline "
                 f"passed; written only where the body reads none of {', '.join(f'`{n}`' for n in unread)}, whose "
                 f"value the baseline computed otherwise")
    elif proven:
        check = (f"every call the baseline made of it passed `{holder}=self` and each of them as `self.<name>`, "
                 f"so each read gives the value the baseline passed")
    else:
        check = "check each attribute holds what was passed"
    return Fix(f"take `{', '.join(gone)}` out of `{label}`'s parameters and read them from `{holder}` ({reads}): "
               f"the target now passes `{holder}` (a `{cls}`) instead, and the baseline passed them from inside "
               f"that class ({check})", codemod="bind_parameters", tier=SAFE if proven else UNSAFE, args=args)


def _own_attributes_passed(baseline: PackageIndex, name: str, cls: str, holder: str, gone: list[str]) -> set[str] | None:
    """The names of `gone` every call the baseline's class `cls` made of `.name(...)` passing
    keywords passed as `self.<same name>`, where each such call passed `holder=self` (vLLM 0.12's
    FusedMoE: `quant_method.apply(layer=self, ..., top_k=self.top_k, ...)`, facts +kwc): reading
    `holder.<name>` in the override then gives exactly the value the baseline handed it. None
    without such a call, or when one passed `holder` as anything else; the facts must show the
    argument texts whole."""
    from drift.analysis.rules.values import kw_calls

    owner = baseline.lookup(cls)
    if owner is None or owner.kind != "class":
        return None
    qual = cls[len(owner.module) + 1:]
    calls = [c for c in kw_calls(baseline, name)
             if c["path"] == owner.path and c["function"].rsplit(".", 1)[0] == qual]
    if not calls or not all(c["keywords"].get(holder) == "self" for c in calls):
        return None
    return {n for n in gone if all(c["keywords"].get(n) == f"self.{n}" for c in calls)}


def _signature_tested(index: PackageIndex, name: str) -> bool:
    """Whether the target's text tests a callee's signature for a parameter `name` (`"renderer" not in
    inspect.signature(cls.__init__).parameters`, vLLM 0.17's IO-processor loader): its callers then
    adapt to an override that lacks it. False without the target's sources (nothing is assumed)."""
    pattern = re.compile(rb"""["']%s["']\s+(?:not\s+)?in\s+[^\n]*signature\(""" % re.escape(name.encode()))
    return bool(index.source_search(Needle(name.encode(), pattern)))


def _declared_findings(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]],
                       tm: Symbol, bm: Symbol | None, how: str) -> Iterator[Finding]:
    """The consumer's replacement of `tm` against how the target's base now declares it."""
    tparams = tm.as_function.params
    bparams = bm.as_function.params if (ctx.baseline is not None and bm is not None) else []
    bnames = {p.name for p in bparams}
    has_self = bool(sig) and sig[0][0] in ("self", "cls")
    own = tparams[1:] if tparams and tparams[0].name in ("self", "cls") else tparams
    if bm is None:  # the base newly declares a method the consumer already had: now the target calls it
        yield from _newly_declared(ctx, where=where, label=label, sig=sig[1:] if has_self else sig, tm=tm,
                                   tparams=own, how=how)
        return
    renamed = _positional_renames(own, bparams, sig[1:] if has_self else sig)
    bown = bparams[1:] if bparams and bparams[0].name in ("self", "cls") else bparams
    lacked = lacked_on_baseline(sig[1:] if has_self else sig, bown)
    for p in own:
        if p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") or p.name in bnames or _accepts(sig, p.name):
            continue
        cap = _positional_capacity(sig)
        positional = p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
        if p.name in renamed:
            severity, why = Severity.RISKY, (f"`{renamed[p.name]}` renamed at the same position: breaks only "
                                             "where the target's callers pass it by name")
        elif p.required:
            severity, why = Severity.BREAKING, "required, so the target's callers pass it"
        else:
            severity, why = Severity.RISKY, "optional: breaks where the target's callers pass it"
        if lacked and severity is Severity.BREAKING:
            severity, why = Severity.RISKY, (f"{why}; it already lacked the baseline's required "
                                             f"{', '.join(f'`{n}`' for n in lacked[:3])}")
        if severity is Severity.BREAKING and _signature_tested(ctx.target, p.name):
            severity, why = Severity.RISKY, (f"{why}, though the target tests a callee's signature for "
                                             f"`{p.name}` before passing it (an override without it is called the old way)")
        if positional and cap is not None:
            failure = (f"TypeError: {label}() takes {plural(cap, 'positional argument')} but "
                       f"{cap + 1} were given")
        else:
            failure = f"TypeError: {label}() got an unexpected keyword argument '{p.name}'"
        yield Finding(
            rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=severity,
            title=f"`{label}` ({how}) does not accept `{p.name}`, new in `{tm.dotted.rsplit('.', 2)[-2]}.{tm.name if hasattr(tm, 'name') else tm.dotted.rsplit('.', 1)[-1]}` ({why})",
            consumer_site=where,
            target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
            baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),) if bm is not None else (),
            predicted_failure=failure,
            fix=new_parameters_fix(ctx, where=where, label=label, tm=tm, bm=bm, missing=[p], fallback=Fix(
                f"add `{p.name}{'=' + p.default if p.default else ''}` to `{label}`'s parameters",
                manual_reason="the override must decide what to do with the new argument"), sig=sig),
            symbol=tm.dotted,
        )
    tn = {p.name for p in tparams}
    for name, kind, has_default in sig[1:] if has_self else sig:
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD") or has_default or name in tn or name in renamed.values():
            continue  # (a parameter the target renamed at its position still gets the value there)
        if bm is None or name not in bnames:
            continue
        yield Finding(
            rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
            title=f"`{label}` ({how}) requires `{name}`, which `{tm.dotted.rsplit('.', 1)[-1]}` no longer takes",
            consumer_site=where,
            target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),),
            baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
            predicted_failure=f"TypeError: {label}() missing 1 required positional argument: '{name}'",
            fix=Fix(f"give `{name}` a default in `{label}`", manual_reason="the value the target no longer passes"),
            symbol=tm.dotted,
        )


def _newly_declared(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]], tm: Symbol,
                    tparams: list, how: str) -> Iterator[Finding]:
    """The consumer's method against a declaration the base did not have before. Where the
    parameter names mostly agree the target passes them by name; otherwise by position. A
    required parameter the method lacks gets `add_parameters` as DRIFT070 tiers it (unsafe:
    nothing in the method hands it on)."""
    if any(k in ("VAR_POSITIONAL", "VAR_KEYWORD") for _n, k, _d in sig):
        return
    names = {n for n, _k, _d in sig}
    shared = sum(1 for p in tparams if p.name in names)
    base = f"{tm.dotted.rsplit('.', 2)[-2]}.{tm.dotted.rsplit('.', 1)[-1]}"
    ev = (Location(tm.path, tm.line, symbol=tm.dotted),)
    if tparams and shared * 2 >= len(tparams):
        for p in tparams:
            if p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") or p.name in names or not p.required:
                continue
            yield Finding(
                rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
                title=f"`{label}` ({how}) does not accept `{p.name}`, which `{base}` now declares as required",
                consumer_site=where, target_evidence=ev,
                predicted_failure=f"TypeError: {label}() got an unexpected keyword argument '{p.name}'",
                fix=new_parameters_fix(ctx, where=where, label=label, tm=tm, bm=None, missing=[p], fallback=Fix(
                    f"add `{p.name}` to `{label}`'s parameters", manual_reason="the new argument's meaning is the target's")),
                symbol=tm.dotted,
            )
        return
    given = sum(1 for p in tparams if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") and p.required)
    required = [n for n, k, d in sig if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") and not d]
    capacity = sum(1 for _n, k, _d in sig if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"))
    if len(required) > given:
        missing = required[given:]
        failure = (f"TypeError: {label}() missing {len(missing)} required positional argument"
                   f"{'s' if len(missing) > 1 else ''}: {', '.join(repr(m) for m in missing)}")
    elif capacity < given:
        failure = f"TypeError: {label}() takes {capacity + 1} positional arguments but {given + 1} were given"
    else:
        return
    yield Finding(
        rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
        title=f"`{label}` ({how}) takes ({', '.join(n for n, _k, _d in sig)}); `{base}` is now declared as "
              f"({', '.join(p.name for p in tparams)})",
        consumer_site=where, target_evidence=ev, predicted_failure=failure,
        fix=Fix(f"match `{base}`'s parameters", manual_reason="the target's new contract needs reading"),
        symbol=tm.dotted,
    )


@rule("DRIFT070", RuleKind.OVERRIDE_INCOMPATIBLE)
def override_incompatible(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override (subclass method, or a function patched over a target method) whose
    parameters no longer match the target's declaration of that method: the target's callers
    pass a new argument the override does not accept, or no longer pass one it requires.
    Only the target's calls that can run on the consumer's object count (callers.py): not those
    inside a target method the consumer's classes override without delegating, on `self` in a
    class the consumer's does not extend, or on another attribute of the object. An override in
    a class whose base the target no longer has anywhere is at most risky (the target cannot
    build the class as written; the base is the break).

    An override of one method of a dispatch family (`forward_oot`, which the class's chooser may
    pick to serve its public `forward(*args, **kwargs)`) that does not take a parameter the
    target's own sibling (`forward_native`) gained since the baseline, where the override took all
    of the sibling's old ones: the callers pass it (rules/siblings.py); breaking when required,
    risky with a default.

    When only the calls changed (the declaration is the same on both sides): where the baseline
    called the method both in ways the override takes and in ways it does not (paths the consumer
    never ran), and the target now calls it only in ways it does not take, risky.

    A mismatch that would hold against the baseline too is risky (rules/already_broken.py): the
    baseline's call from the same function, on the same receiver, did not bind to the override
    either (that path already raised there); or a function assigned over a target name already
    lacked a required parameter of the baseline's declaration (written for an older vLLM).

    A parameter the target renamed in place (`set_config(config, runtime_shape)` ->
    `(config, compile_range)`) is at most risky for a replacement that takes it positionally:
    callers written positionally still reach it.

    Fix: `add_parameters` adds the target's new parameters to the override where the target
    declares them, with the target's default (a literal; `None` only where that is the target's),
    and forwards them by keyword to the base call the override makes (`super().m(...)`,
    `Base.m(self, ...)`, the saved original). Safe when the override forwards and the parameter
    has a default; safe too without a forward when each new parameter has a literal default and
    goes after the override's last positional parameter (every caller binds as before; the
    override ignores the value, as it did on the baseline, whose callers never passed it); safe
    in the middle of the signature too where the override's positional parameters then are
    exactly the target's declaration's and no call in the consumer passes that slot positionally
    (a range consumer gets it in a vLLM-version branch: the baseline's callers pass the later
    arguments one slot earlier); unsafe when it does not forward otherwise (a required value
    ignored, a slot that shifts the consumer's own positional calls);
    manual when the default names something of vLLM's or the forward call fills that slot
    positionally in a way naming cannot undo. `add_parameters` never removes a parameter.

    Where the target packs the override's separate parameters into one new parameter whose class
    holds them (`get_attn_backend_cls(selected_backend, attn_selector_config)`), the manual edit
    says to take the target's parameters, read each old one from the new object, and which old
    ones it does not hold (`use_v1`, no longer passed).

    Fix, the other way round: an override that still requires parameters the target's declaration
    dropped and its callers no longer pass (`apply(layer, x, router_logits, top_k, renormalize)`
    against `apply(layer, x, router_logits)`) gets `bind_parameters`: they leave the `def` and the
    body reads each from the parameter the target still passes (`top_k = layer.top_k`), when that
    parameter's annotated class has every one of them and the baseline's own call passed them
    from inside that class. Unsafe: the attributes are matched by name; safe when every call the
    baseline's class made passed the holder as `self` and each setting as `self.<same name>`. A
    setting some call passed otherwise leaves the `def` all the same, but is never bound: where
    the body reads one, nothing is written."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        mod = _module_of(ctx, cls)
        for name, m in (cls.get("methods") or {}).items():
            if name.startswith("__") and name not in ("__call__", "__init__"):
                if name == "__post_init__":
                    yield from _post_init(ctx, ref, cls, m, tb, bb, mod)
                continue
            if name == "__init__" and _constructed_by_consumer(ctx, ref):
                continue  # the consumer passes its own arguments; vLLM does not build it
            tm = _lookup_method(ctx.target, tb, name)
            bm = _lookup_method(ctx.baseline, bb, name)
            if tm is None or (bm is None and not bb):
                continue
            where = Location(mod["path"], m["line"], symbol=f"{ref}.{name}", col=(m.get("col") or 0) + 1)
            found = list(_override_findings(ctx, where=where, label=f"{cls['qual']}.{name}", sig=_sig(m),
                                            tm=tm, bm=bm, how="override", ref=ref, tb=tb,
                                            stub=bool(m.get("raises_only"))))
            gone = gone_base(ctx, ref)
            yield from (_orphaned(f, gone) for f in found) if gone else found
            if bb and not name.startswith("__"):
                said = " ".join(f.predicted_failure or "" for f in found)
                yield from (f for f in _sibling_contract(ctx, ref, cls, name, m, tb, bb, where)
                            if f.predicted_failure.rsplit(" ", 1)[-1] not in said)
    for mod, patch in _patches(ctx):
        sig = ((patch.get("value") or {}).get("signature") or {}).get("params")
        if sig is not None and patch.get("how") == "instance_attr":
            # a function set on one object (`allocator.wake_up = wake_up`) is not bound: it takes
            # what the target's `obj.m(...)` passes, without `self`; held to the method's
            # declaration as if its first parameter were that `self`
            sig = [["self", "POSITIONAL_OR_KEYWORD", False], *sig]
        copied = None if sig else (_copied_method(ctx, patch) or _imported_function(ctx, patch))
        if not sig and copied is None:
            continue
        tv, bv = _patch_values(ctx, patch)
        if tv is None or bv is None or tv.kind not in ("method", "unbound", "function") \
                or bv.kind not in ("method", "unbound", "function") or tv.sym is None or bv.sym is None:
            continue
        how = f"patched over `{tv.sym.dotted.rsplit('.', 2)[-2]}.{patch['name']}`"
        if tv.kind == "function" or bv.kind == "function":  # a static method, or a module's function
            if copied is not None and tv.sym.kind == bv.sym.kind == "method":  # a staticmethod's copy
                where, label, m = copied
                yield from _baseline_copy_findings(ctx, where=where, label=label, sig=_sig(m), tm=tv.sym,
                                                   bm=bv.sym, how=how)
            continue
        if copied is not None:
            where, label, m = copied
            sig, stub = _sig(m), bool(m.get("raises_only"))
        else:
            where = Location(mod["path"], patch["value"].get("line") or patch["line"],
                             symbol=patch["value"].get("function"))
            label = patch["value"]["function"]
            stub = bool(((patch.get("value") or {}).get("signature") or {}).get("raises_only"))
        found = list(_override_findings(ctx, where=where, label=label, sig=sig, tm=tv.sym, bm=bv.sym,
                                        how=how, stub=stub, on=_patched_classes(ctx, patch)))
        yield from found or _baseline_copy_findings(ctx, where=where, label=label, sig=sig, tm=tv.sym,
                                                    bm=bv.sym, how=how)
    yield from _replacement_findings(ctx)


def _baseline_copy_findings(ctx: CheckContext, *, where: Location, label: str, sig: list[list[Any]],
                            tm: Symbol, bm: Symbol, how: str) -> Iterator[Finding]:
    """A function patched over a target method with exactly the baseline's parameters, where the
    target declares new ones and hands them over in a way no `.name(...)` call site shows: by a
    quoted key (`Process(target=Cls.run, kwargs={"new": v})`, `collective_rpc`-style dispatch), or
    from the target's own method the consumer also replaced (its calls are the evidence that the
    replaced pair now passes more). The patch was written from the baseline's declaration, and
    runs wherever the target's method did; each new parameter it lacks is held to the target's
    declaration as an override's would be (risky when the parameter is optional). The other way
    round, a parameter the patch requires that the target's declaration dropped is no longer
    passed by any target caller, whichever way they call it (`self.self_attn(positions,
    hidden_states)` through `nn.Module.__call__`, which no `.forward(...)` site shows)."""
    if name_of(tm) == "__init__":
        return
    theirs = [[p.name, p.kind] for p in bm.as_function.params]
    mine = [[n, k] for n, k, _d in sig]
    if theirs != mine or tm.as_function.same_params(bm.as_function):
        return  # not a copy of the baseline's signature, or nothing changed
    name = name_of(tm)
    old = {p.name for p in bm.as_function.params}
    new = [p for p in tm.as_function.params if p.name not in old and p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    # every call that can run the patched method (`self.name(...)` in an unrelated class cannot),
    # those inside target methods the consumer replaced too included
    sites = [s for s in _sites_of(ctx.target, name, None) or [] if _patch_reaches(ctx, s, tm.owner)]
    capacity = len(old) - (1 if old & {"self", "cls"} else 0)
    by_position = any(s[2] > capacity for s in sites)
    by_key = {p.name for p in new if ctx.target.writes_quoted(p.name) or any(p.name in s[3] for s in sites)}
    passed = by_key | ({p.name for p in new} if by_position else set())
    dropped = {p.name for p in bm.as_function.params} - {p.name for p in tm.as_function.params}
    for f in _declared_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, how=how):
        if any(f"requires `{n}`, which" in f.title for n in dropped):
            yield f  # no target caller passes what the target's own method no longer takes
            continue
        hit = next((n for n in passed if f"`{n}`" in f.title), None)
        if hit is None:
            continue
        if not by_position:  # handed over by name: Python names the keyword
            f = replace(f, predicted_failure=f"TypeError: {label}() got an unexpected keyword argument '{hit}'")
        yield f


def name_of(sym: Symbol) -> str:
    return sym.dotted.rsplit(".", 1)[-1]


def _copied_method(ctx: CheckContext, patch: dict) -> tuple[Location, str, dict] | None:
    """A patch whose value is a method of a consumer class (`Target.__init__ = Mine.__init__`, a
    stand-in class that does not extend the target's): where that method is, its label and its
    record, so it is held to the target's method like a patched function."""
    path = (patch.get("value") or {}).get("path") or []
    if len(path) != 2 or not path[0].startswith("sym:") or not path[1].startswith("."):
        return None
    ref, name = path[0][4:], path[1][1:]
    cls = ctx.consumer.classes.get(ref)
    m = ((cls or {}).get("methods") or {}).get(name)
    if m is None:
        return None
    where = Location(_module_of(ctx, cls)["path"], m["line"], symbol=f"{ref}.{name}", col=(m.get("col") or 0) + 1)
    return where, f"{cls.get('qual') or ref.rsplit('.', 1)[-1]}.{name}", m


def _imported_function(ctx: CheckContext, patch: dict) -> tuple[Location, str, dict] | None:
    """A patch whose value is a function another module of the consumer defines (`from
    .patches import my_g` then `vllm.x.g = my_g`): where it is, its label and its signature."""
    path = (patch.get("value") or {}).get("path") or []
    if len(path) != 1 or not path[0].startswith("sym:"):
        return None
    dotted = path[0][4:]
    for cut in range(dotted.count("."), 0, -1):
        module, qual = dotted.rsplit(".", cut)[0], ".".join(dotted.rsplit(".", cut)[1:])
        mod = ctx.consumer.modules.get(module)
        if mod is None:
            continue
        m = (mod.get("functions") or {}).get(qual)
        if m is None:
            return None
        return Location(mod["path"], m.get("line") or 1, symbol=dotted), qual, m
    return None


def _orphaned(f: Finding, gone: str) -> Finding:
    """An override of a class whose base the target no longer has (callers.gone_base): the
    target cannot build the class as written, so the mismatch is at most risky."""
    if f.severity is not Severity.BREAKING:
        return f
    return replace(f, severity=Severity.RISKY,
                   title=f"{f.title}; the class's base `{gone}` is gone from the target, which never builds it as written")


def _built_method_replacement(ctx: CheckContext, solved, rep: dict, tm: Symbol, bm: Symbol) -> Iterator[Finding]:
    """A function the solved model says the consumer installs over a target class's method where
    no patch record of the probe names it: one a factory builds and returns (`BlockTables.
    compute_slot_mappings = make_patched(orig)`, the closure inside `make_patched`), installed
    through a module the function imports locally. Held to the target's calls as a patch is."""
    ref = rep["consumer"]
    named = ctx.memo.get("reach.patched_functions")
    if named is None:  # asked per replacement: the probe's patch records are read once
        named = ctx.memo["reach.patched_functions"] = {
            f"{mod.get('module')}.{(p.get('value') or {}).get('function')}" for mod, p in _patches(ctx)
            if (p.get('value') or {}).get('function')}
    if ref in named or ref in ctx.consumer.patched_fns:
        return  # the probe's own patch record: judged in the patches loop
    sig, home = solved.signatures.get(ref), _consumer_module(ctx, ref)
    if not sig or home is None:
        return
    where = Location(home.get("path") or rep["path"], solved.lines.get(ref) or rep["line"], symbol=ref)
    label, how = ref.rsplit(".", 1)[-1], f"patched over `{tm.dotted.rsplit('.', 2)[-2]}.{name_of(tm)}`"
    cls = rep["target"].rsplit(".", 1)[0]  # the class the store sets the method on (tm may be its base's)
    found = list(_override_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, how=how,
                                    on=(ctx.target.lookup(cls), ctx.baseline.lookup(cls))))
    yield from found or _baseline_copy_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm, how=how)


def _replacement_findings(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer class or function assigned over a target module's name (`vllm.x.Y = Mine`,
    from the solved model, drift/consumer/infer.py): the target's own code now calls the
    consumer's, so its parameters must take what the target's callers of `Y` now pass. A class
    that extends the target's is an override (above); a stand-in is judged by its `__init__`; a
    function assigned over a class (a factory, `runner_mod.GraphManager = make_manager`) by what
    the class's constructor now takes, which the target's `Y(...)` passes it."""
    solved = ctx.consumer.inferred
    seen: set[tuple[str, str]] = set()
    emitted: set[tuple] = set()
    for rep in solved.replacements:
        dotted, ref = rep["target"], rep["consumer"]
        if (dotted, ref) in seen:
            continue
        seen.add((dotted, ref))
        t, b = ctx.target.lookup(dotted), ctx.baseline.lookup(dotted)
        if t is not None and b is not None and t.kind == b.kind == "method" and rep["kind"] == "function":
            yield from _built_method_replacement(ctx, solved, rep, t, b)
            continue
        if t is None or b is None or t.kind != b.kind or t.kind not in ("class", "function"):
            continue
        if t.kind == "class":
            if rep["kind"] not in ("class", "function") or (rep["kind"] == "class" and _extends_replaced(ctx, ref, t)):
                continue
            tm, bm = ctx.target.constructor(t)[1], ctx.baseline.constructor(b)[1]
            if tm is None or bm is None or tm.kind != "method" or bm.kind != "method":
                continue
            if rep["kind"] == "function":  # a factory standing in for the class: the target's `Y(...)` calls it
                fns, label = [ref], ref.rsplit(".", 1)[-1]
            else:
                fns = _inits_run_on_baseline(solved, ref, bm)
                label = f"{ref.rsplit('.', 1)[-1]}.__init__"
        else:
            if rep["kind"] != "function":
                continue
            fns, tm, bm, label = [ref], t, b, ref.rsplit(".", 1)[-1]
        for fn in fns:
            if t.kind == "class" and not fn.endswith(".__init__"):
                label = fn.rsplit(".", 1)[-1]  # bound after the class: Python names the function itself
            sig = solved.signatures.get(fn)
            home = _consumer_module(ctx, fn)
            line = solved.lines.get(fn) or rep["line"]
            if sig is None or home is None:
                continue  # (an empty signature is a function that takes nothing: the target may pass it some)
            where = Location(home.get("path") or rep["path"], line, symbol=fn)
            found = list(_declared_findings(ctx, where=where, label=label, sig=sig, tm=tm, bm=bm,
                                            how=f"assigned over `{dotted}`"))
            if t.kind == "function":
                found = _held_to_lazy_callers(ctx, found, dotted, label, sig, where)
            yield from found
    for dotted, ref, t, b in stand_ins(ctx):
        for f in _stand_in_methods(ctx, ref, dotted, t, b):
            key = (f.consumer_site.path, f.consumer_site.line, f.symbol, f.predicted_failure)
            if key not in emitted:  # a consumer base shared by two stand-ins is judged once
                emitted.add(key)
                yield f


def _held_to_lazy_callers(ctx: CheckContext, found: list[Finding], dotted: str, label: str,
                          sig: list[list[Any]], where: Location) -> list[Finding]:
    """A module function the consumer assigns over, held to the target's calls of it through a
    lazy import (`from m import f as g` inside a method, then `g(k=...)`): the import runs at call
    time, so it gets the consumer's function, and the alias hides the call from a search for `f`.
    A declared difference such a call really exercises becomes breaking, with the call as evidence;
    a call that fails for another reason (too many positionals) is reported on its own."""
    sites = lazy_call_sites(ctx.target, dotted)
    failing = [(s, f) for s in sites if (f := _site_failure(label, sig, s, bound=0)) is not None]
    if not failing:
        return found
    out, told = [], set()
    for f in found:
        hit = next(((s, why) for s, why in failing if why == f.predicted_failure
                    or any(f"does not accept `{k}`" in f.title for k in s[3] if k in why)), None)
        if hit is None:
            out.append(f)
            continue
        site, why = hit
        told.add(why)
        caller = f"{site[5].rsplit('.', 1)[-1]}.{site[6]}" if site[5] else site[6]
        out.append(replace(f, severity=Severity.BREAKING, predicted_failure=why,
                           title=f"{f.title}; the target's `{caller}` passes it ({site[0]}:{site[1]})",
                           target_evidence=(Location(site[0], site[1], symbol=dotted),) + f.target_evidence))
    bsites = lazy_call_sites(ctx.baseline, dotted) if ctx.baseline is not None else []
    before = {_site_failure(label, sig, s, bound=0) for s in bsites}
    for site, why in failing:
        if why in told or why in before:
            continue
        told.add(why)
        caller = f"{site[5].rsplit('.', 1)[-1]}.{site[6]}" if site[5] else site[6]
        out.append(Finding(
            rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
            title=f"`{label}` (assigned over `{dotted}`) does not fit how the target's `{caller}` now calls it",
            consumer_site=where,
            target_evidence=(Location(site[0], site[1], symbol=dotted),),
            predicted_failure=why,
            fix=Fix(f"take what `{caller}` passes in `{label}`'s parameters",
                    manual_reason="what the replacement does with the new arguments is the consumer's to say"),
            symbol=dotted,
        ))
    return out


def _extends_replaced(ctx: CheckContext, ref: str, t: Symbol) -> bool:
    """Whether consumer class `ref` extends the target class `t` it is assigned over (then its
    `__init__` is an override of `t`'s, judged above). A stand-in extending some other target
    class (a shared abstract base) still replaces `t`'s constructor with its own."""
    return any(s.dotted == t.dotted for b in ctx.target_paths.target_bases(ref) for s in ctx.target.mro(b))


def _inits_run_on_baseline(solved, ref: str, bm: Symbol) -> list[str]:
    """The consumer's `__init__` for class `ref` that the baseline's callers reach: its one
    `__init__`, or, where the consumer binds alternatives on different paths (`Cls.__init__ =
    new_init if "vllm_config" in sig else old_init`), each alternative that takes what the
    baseline's declaration `bm` takes (every parameter it requires is one of the baseline's, and
    it accepts every one the baseline requires): the one written for that release. An
    alternative written for an older release is no evidence about this pair."""
    choices = solved.init_candidates(ref)
    if len(choices) <= 1:
        return choices
    bparams = [p for p in bm.as_function.params if p.name not in ("self", "cls")]
    names = {p.name for p in bparams}
    out = []
    for fn in choices:
        sig = solved.signatures.get(fn) or []
        own = sig[1:] if sig and sig[0][0] in ("self", "cls") else sig
        if not own:
            continue
        takes = {n for n, kind, _opt in own if kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")}
        open_kw = any(kind == "VAR_KEYWORD" for _n, kind, _opt in own)
        requires = {n for n, kind, opt in own if not opt and kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")}
        if requires <= names and all(open_kw or p.name in takes for p in bparams if p.required):
            out.append(fn)
    return out


def stand_ins(ctx: CheckContext) -> list[tuple[str, str, Symbol, Symbol]]:
    """(target class dotted, consumer class, target class, baseline class) of every consumer class
    assigned over a target class it does not extend: seen by the solved model (`vllm.x.Y = Mine`)
    or recorded as a patch whose value names the class (a patching function the IR did not
    read, such as one defined under a module-level `if`)."""
    hit = ctx.memo.get("stand_ins")
    if hit is not None:
        return hit
    pairs = [(rep["target"], rep["consumer"]) for rep in ctx.consumer.inferred.replacements
             if rep.get("kind") == "class"]
    for _mod, patch in _patches(ctx):
        value = (patch.get("value") or {}).get("path") or []
        owner = _dotted_path(patch.get("path") or [])
        if len(value) == 1 and value[0].startswith("sym:") and value[0][4:] in ctx.consumer.classes \
                and owner and patch.get("name"):
            pairs.append((f"{owner}.{patch['name']}", value[0][4:]))
    out, seen = [], set()
    for dotted, ref in pairs:
        if (dotted, ref) in seen or ref not in ctx.consumer.classes or ctx.baseline is None:
            continue
        seen.add((dotted, ref))
        t, b = ctx.target.lookup(dotted), ctx.baseline.lookup(dotted)
        if t is None or b is None or t.kind != "class" or b.kind != "class" or ctx.target_paths.target_bases(ref):
            continue
        out.append((dotted, ref, t, b))
    ctx.memo["stand_ins"] = out
    return out


def _dotted_path(path: list[str]) -> str | None:
    """`sym:a` `.b` `.c` as `a.b.c`; None for a path with a call or another step."""
    if not path or not path[0].startswith("sym:") or not all(p.startswith(".") for p in path[1:]):
        return None
    return path[0][4:] + "".join(path[1:])


def _stand_in_methods(ctx: CheckContext, ref: str, dotted: str, t: Symbol, b: Symbol) -> Iterator[Finding]:
    """The methods of a stand-in class assigned over a target class (`vllm.x.Manager = Mine`,
    Mine not extending it): the target's code now builds Mine where it built its own class and
    calls Mine's methods as it calls the class's own, so each method the replaced class also
    defines is held to the target's calls of it, as a function patched over that method is."""
    visited: set[str] = set()
    names: set[str] = set()
    stack = [ref]
    while stack:
        r = stack.pop(0)
        cls = ctx.consumer.classes.get(r)
        if cls is None or r in visited:
            continue
        visited.add(r)
        mod = _module_of(ctx, cls)
        for name, m in sorted((cls.get("methods") or {}).items()):
            if name.startswith("__") or name in names:
                continue
            names.add(name)  # the nearest definition runs; a base's of the same name never does
            tm, bm = _lookup_method(ctx.target, [t], name), _lookup_method(ctx.baseline, [b], name)
            where = Location(mod["path"], m["line"], symbol=f"{r}.{name}", col=(m.get("col") or 0) + 1)
            if tm is not None and bm is None and any(str(d).rsplit(".", 1)[-1] in ("property", "cached_property")
                                                     for d in m.get("decorators") or ()):
                f = _property_now_called(ctx, where, cls.get("qual") or r, name, tm, b, dotted)
                if f is not None:
                    yield f
                continue
            if tm is None or bm is None:
                continue
            for f in _override_findings(ctx, where=where, label=f"{cls.get('qual') or r}.{name}", sig=_sig(m),
                                        tm=tm, bm=bm, how=f"assigned over `{dotted}`",
                                        stub=bool(m.get("raises_only")), on=(t, b),
                                        replaced_too=_patched_methods(ctx)):
                # risky: a stand-in usually comes with the consumer's own versions of the code
                # around it, and which of the target's paths still reach it is not followed
                yield replace(f, severity=Severity.RISKY,
                              details=(f.details + "; " if f.details else "") + "the target builds the stand-in "
                                      "where it built its own class; whether this call's path runs with it is "
                                      "not followed")
        stack.extend(x[0][4:] for x in cls.get("bases") or [] if x and len(x) == 1 and x[0].startswith("sym:"))


def _property_now_called(ctx: CheckContext, where: Location, label: str, name: str, tm: Symbol, b: Symbol,
                         dotted: str) -> Finding | None:
    """A stand-in's property where the replaced class had a data attribute and now has a method
    the target calls (`self.uva = tensor` became `def uva(self, n=None)`, called `buf.uva(n)`):
    the target calls what the property returns. Risky: which of those calls reach the stand-in is
    not followed."""
    fn = tm.as_function
    if fn.is_property or "staticmethod" in fn.decorators or not ctx.baseline.provides(b, name):
        return None  # the baseline's class had no such member: the stand-in's own addition
    sites = _sites_of(ctx.target, name, tm)
    if not sites:
        return None
    site = sites[0]
    return Finding(
        rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
        title=f"`{label}.{name}` is a property, and the target now calls `{name}(...)`: "
              f"`{tm.dotted.rsplit('.', 2)[-2]}.{name}` became a method",
        consumer_site=where,
        target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted), Location(site[0], site[1], symbol=dotted)),
        baseline_evidence=(Location(b.path, b.line, symbol=b.dotted),),
        predicted_failure=f"TypeError: the value of `{name}` is not callable (the target calls it at {site[0]}:{site[1]})",
        fix=Fix(f"make `{name}` a method taking what the target passes ({', '.join(p.name for p in fn.params[1:]) or 'nothing'})",
                manual_reason="the stand-in's callers in the consumer read it as an attribute too"),
        symbol=tm.dotted,
        details=f"assigned over `{dotted}`: the target builds the stand-in where it built its own class",
    )


def _patched_methods(ctx: CheckContext) -> frozenset[tuple[str, str]]:
    """(target class, method) of every target method the consumer replaces with a function of its
    own (`Runner._prepare_inputs = _prepare_inputs`): the target's calls inside it never run."""
    hit = ctx.memo.get("patched_methods")
    if hit is not None:
        return hit
    out = set()
    for _mod, patch in _patches(ctx):
        value = patch.get("value") or {}
        path = value.get("path") or []
        named = path[0][4:] if len(path) == 1 and path[0].startswith("sym:") else None
        if not patch.get("name") or not (value.get("function") or (named and named not in ctx.consumer.classes
                                                                   and named.rsplit(".", 1)[0] in ctx.consumer.modules)):
            continue  # a function of the consumer's, defined there or imported (not a class stand-in)
        owner = ctx.target_paths.value(tuple(patch.get("path") or ()))
        if owner is not None and owner.sym is not None and owner.sym.kind == "class":
            out.add((owner.sym.dotted, patch["name"]))
    ctx.memo["patched_methods"] = frozenset(out)
    return ctx.memo["patched_methods"]


def _consumer_module(ctx: CheckContext, qual: str) -> dict | None:
    """The usage record of the consumer module that defines `qual` (the longest module prefix)."""
    parts = qual.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        mod = ctx.consumer.modules.get(".".join(parts[:cut]))
        if mod is not None:
            return mod
    return None


def _initvars(index: PackageIndex, bases: list[Symbol]) -> list[tuple[str, Symbol]]:
    out: list[tuple[str, Symbol]] = []
    for base in bases:
        for owner in reversed(index.mro(base)):
            for f in owner.as_class.fields:
                if f.initvar and all(n != f.name for n, _ in out):
                    out.append((f.name, owner))
    return out


def _post_init(ctx: CheckContext, ref: str, cls: dict, m: dict, tb: list[Symbol], bb: list[Symbol],
               mod: dict) -> Iterator[Finding]:
    """A dataclass's `__post_init__` receives every InitVar of the class positionally: a new
    InitVar in the target's base makes the consumer's override take too few arguments."""
    new = _initvars(ctx.target, tb)
    old = {n for n, _ in _initvars(ctx.baseline, bb)} if ctx.baseline is not None else set()
    added = [(n, o) for n, o in new if n not in old]
    cap = _positional_capacity(_sig(m))
    if not added or cap is None or cap - 1 >= len(new):
        return
    label = f"{cls['qual']}.__post_init__"
    yield Finding(
        rule_id="DRIFT070", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
        title=f"`{label}` takes {plural(cap - 1, 'InitVar')}, the target's dataclass now passes {len(new)} "
              f"(new: {', '.join(n for n, _ in added)})",
        consumer_site=Location(mod["path"], m["line"], symbol=f"{ref}.__post_init__", col=(m.get("col") or 0) + 1),
        target_evidence=tuple(Location(o.path, o.line, symbol=f"{o.dotted}.{n}") for n, o in added),
        predicted_failure=f"TypeError: {label}() takes {plural(cap, 'positional argument')} but "
                          f"{len(new) + 1} were given",
        fix=Fix(f"accept {', '.join(n for n, _ in added)} in `{label}`",
                manual_reason="the override must pass the new InitVar on to its base"),
        symbol=f"{tb[0].dotted}.__post_init__" if tb else None,
    )


def _stub(m: FunctionFacts) -> bool:
    """A method that only raises NotImplementedError: subclasses are expected to provide it."""
    beh = m.behaviour
    return any((r.type or "").rsplit(".", 1)[-1] == "NotImplementedError" and not r.guard for r in beh.raises) \
        and not beh.value_returns


def _constructed_by_consumer(ctx: CheckContext, ref: str) -> bool:
    """The consumer builds this class itself somewhere (`Cls(...)` in its own code)."""
    return ref in ctx.consumer.helper_calls


def _abstract(index: PackageIndex, bases: list[Symbol], *, stubs: bool = False) -> dict[str, Symbol]:
    """Names whose first definition along the bases' MRO is abstract (or, with `stubs`, only
    raises NotImplementedError)."""
    first: dict[str, Symbol | None] = {}
    for base in bases:
        for owner in index.mro(base):
            methods = owner.as_class.methods
            for name in methods:
                if name in first:
                    continue
                m = methods[name]  # a view only for the names first seen here
                abstract = any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in m.decorators) \
                    or (stubs and _stub(m))
                first[name] = _method(owner, name, m) if abstract else None  # a symbol only when kept
    return {n: s for n, s in first.items() if s is not None}


def _consumer_defines(ctx: CheckContext, ref: str, seen: set | None = None) -> set[str]:
    """Every method the consumer class or its consumer bases define."""
    seen = seen if seen is not None else set()
    if ref in seen:
        return set()
    seen.add(ref)
    cls = ctx.consumer.classes.get(ref) or {}
    out = set(cls.get("methods") or {}) | set(cls.get("class_attrs") or {})
    for b in cls.get("bases") or []:
        if b and len(b) == 1 and b[0].startswith("sym:") and b[0][4:] in ctx.consumer.classes:
            out |= _consumer_defines(ctx, b[0][4:], seen)
    return out


@rule("DRIFT071", RuleKind.ABSTRACT_ADDED)
def abstract_added(ctx: CheckContext) -> Iterator[Finding]:
    """A target base class the consumer implements gained an abstract method the consumer's class
    does not define: instantiating it raises before any of its code runs. A new method that only
    raises NotImplementedError is reported too: breaking when the base's own code calls it from
    a method the class inherits, risky when only other target objects call it.

    A consumer class that is abstract itself is left to its concrete subclasses, unless it
    implements a method that only the baseline's bases declared abstract (the old protocol: a
    copied base whose `forward` the target replaced by `forward_mha`/`forward_mqa`): that class
    is where the fix goes for all its subclasses, so it is reported too, risky (it is never
    instantiated itself)."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        if not tb:
            continue
        own = _consumer_defines(ctx, ref)
        new = _abstract(ctx.target, tb)
        old = _abstract(ctx.baseline, bb) if bb else {}
        carried: list[str] = []  # an abstract class's methods that implement the baseline's protocol only
        if any(any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in m.get("decorators") or [])
               for m in (cls.get("methods") or {}).values()):
            carried = sorted(n for n in cls.get("methods") or {} if n in old and _lookup_method(ctx.target, tb, n) is None)
            if not carried:
                continue  # the consumer's class is abstract itself, and adds nothing of the old protocol
        missing = sorted(n for n in new if n not in own and n not in old)
        if not carried:
            yield from _new_stubs(ctx, ref, cls, tb, bb, own, skip=set(missing))
        if not missing:
            continue
        mod = _module_of(ctx, cls)
        names = ", ".join(f"'{n}'" for n in missing)
        first = new[missing[0]]
        yield Finding(
            rule_id="DRIFT071", kind=RuleKind.ABSTRACT_ADDED, severity=Severity.RISKY if carried else Severity.BREAKING,
            title=f"`{cls['qual']}` does not implement {plural(len(missing), 'new abstract method')} of "
                  f"`{first.dotted.rsplit('.', 2)[-2]}`: {', '.join(missing)}"
                  + (f" (abstract itself, it implements the old protocol's {', '.join(carried)}: the fix "
                     "belongs here, for every subclass)" if carried else ""),
            consumer_site=Location(mod["path"], cls["line"], symbol=ref, col=(cls.get("col") or 0) + 1),
            target_evidence=tuple(Location(new[n].path, new[n].line, symbol=new[n].dotted) for n in missing),
            predicted_failure=(f"TypeError: Can't instantiate abstract class {cls['qual'].rsplit('.', 1)[-1]} with "
                               f"abstract method{'s' if len(missing) > 1 else ''} {names}"),
            fix=Fix(f"implement {', '.join(missing)} in `{cls['qual']}`",
                    manual_reason="what the new method must do is the target's contract"),
            symbol=first.dotted,
        )


def _new_stubs(ctx: CheckContext, ref: str, cls: dict, tb: list[Symbol], bb: list[Symbol], own: set[str],
               *, skip: set[str]) -> Iterator[Finding]:
    """Methods new in the target base that only raise NotImplementedError: the target calls them
    on its subclasses (e.g. a worker's `sample_tokens`), so a subclass without one fails there.

    Unlike an abstract method, a stub fails only when something calls it. When the base's own
    code calls it on `self` from a method the consumer's class inherits, that method fails
    (breaking). When only other objects call it (an engine or executor, through its own
    conditions, modes and configuration), whether that path ever reaches this class is not
    decided by the class: risky, with the calling code as evidence."""
    stubs = _abstract(ctx.target, tb, stubs=True)
    before = {n for b in bb for o in ctx.baseline.mro(b) for n in o.as_class.methods} if ctx.baseline else set()
    mod = _module_of(ctx, cls)
    for name in sorted(stubs):
        if name in skip or name in own or name in before:
            continue
        m = stubs[name]
        owner = m.dotted.rsplit(".", 2)[-2]
        inherited = [(c, line) for c, line in _inherited_self_callers(ctx.target, tb, name, own)
                     if _entered(ctx, ref, tb, own, c.dotted.rsplit(".", 1)[-1])]
        evidence = (Location(m.path, m.line, symbol=m.dotted),) + tuple(
            Location(c.path, line, symbol=c.dotted, snippet=f"self.{name}(...)") for c, line in inherited[:3])
        yield Finding(
            rule_id="DRIFT071", kind=RuleKind.ABSTRACT_ADDED,
            severity=Severity.BREAKING if inherited else Severity.RISKY,
            title=f"`{cls['qual']}` does not implement `{name}`, new in `{owner}` (which only raises "
                  f"NotImplementedError)",
            consumer_site=Location(mod["path"], cls["line"], symbol=ref, col=(cls.get("col") or 0) + 1),
            target_evidence=evidence,
            predicted_failure=(f"NotImplementedError (raised by {owner}.{name} when "
                               + (f"`{inherited[0][0].dotted.rsplit('.', 1)[-1]}` calls it)" if inherited
                                  else "the target calls it)")),
            details=None if inherited else
            f"only code outside `{owner}` calls `{name}`: the class fails on the paths that call it",
            fix=_stub_fix(ctx, cls, m, name),
            symbol=m.dotted,
        )


def _stub_fix(ctx: CheckContext, cls: dict, stub: Symbol, name: str) -> Fix:
    """`implement name`, said as the target's own subclasses implement it where they all hand the
    call to one attribute (`sibling_methods`): the GPU worker's `sample_tokens` returns
    `self.model_runner.sample_tokens(...)`."""
    d = sibling_delegation(ctx, cls, stub, name)
    if d is None:
        return Fix(f"implement `{name}` in `{cls['qual']}`", manual_reason="the new method's contract is the target's")
    sib = d.sibling.dotted.rsplit(".", 1)[-1]
    params = ", ".join(p.name for p in stub.as_function.params)
    text = (f"implement `{name}({params})` in `{cls['qual']}` as the target's `{sib}` does: it hands the call to "
            f"`self.{d.held}.{name}(...)` ({d.sibling.path}:{d.line})")
    if d.lacking is not None:
        text += (f"; `self.{d.held}` is the consumer's `{d.lacking.rsplit('.', 1)[-1]}` here, which has no "
                 f"`{name}` either: it needs one too")
    return Fix(text, manual_reason="the new method's contract is the target's")


def _inherited_self_callers(index: PackageIndex, bases: list[Symbol], name: str, own: set[str]
                            ) -> list[tuple[Symbol, int]]:
    """Methods of the target bases that call `self.<name>(...)` and that the consumer's class
    inherits (does not define itself): (method, line of the call)."""
    out: list[tuple[Symbol, int]] = []
    seen: set[str] = set()
    for base in bases:
        for owner in index.mro(base):
            methods = owner.as_class.methods
            for mname in methods:
                if mname == name or mname in own or mname in seen:
                    continue
                seen.add(mname)
                meth = methods[mname]
                lines = meth.behaviour.self_calls.get(name)
                if lines:
                    out.append((_method(owner, mname, meth), lines[0]))
    return out


def _entered(ctx: CheckContext, ref: str, bases: list[Symbol], own: set[str], name: str) -> bool:
    """Whether the inherited method `name` can run on the consumer's class `ref`.

    Why: a base may reach a method only through a dispatch of its own: vLLM's `CustomOp.__init__`
    stores `self.dispatch_forward()` (which returns `self.forward_hip`, `self.forward_oot`, ...) in
    `self._forward_method`, and only `CustomOp.forward` calls that. A class whose `forward` is
    someone else's (the consumer's, or a target class's between it and the base) never runs the
    dispatched method, so a new stub only those methods call never fails on it.

    `name` runs when anything calls it by name (the target anywhere, the consumer's class on
    itself or on any object; another class's `super().name(...)` runs that class's chain, not this
    one's: vllm-ascend's `SiluAndMul.forward_oot` handing on to vLLM's), or when a method of the
    bases reads `self.name` as a value and that value goes where drift cannot follow. It does not
    run when every such read only feeds an attribute (`self.a = self.d()` with `d` reading it, or
    `self.a = self.name`) that nothing calls on this class: no method this class resolves to (the
    first definition along the bases' MRO, the consumer's own first) calls `self.a(...)`, and the
    consumer does not either (a base's method the class overrides calls it only if the override
    hands on to it with `super()`, which the consumer's self-calls record). A method nothing calls or reads may still be called by the
    consumer's users or by another object: it counts."""
    calls = ctx.self_calls(ref)
    if name in calls or ctx.consumer_calls_method_elsewhere(name) or _called_by_name(ctx, name):
        return True
    methods, resolved = _mro_methods(ctx.target, bases, own)
    readers = [(n, m) for n, m in methods if name in m.behaviour.self_reads]
    if not readers:
        return True  # a public method nothing here calls: a user, or another object, may
    for reader, m in readers:
        held = set()
        for n, other in methods:  # `self.a = self.reader()` (the reader's result kept), or the reader keeps it
            sets = other.behaviour.self_sets
            lines = set(other.behaviour.self_calls.get(reader) or ()) if other is not m else \
                set(m.behaviour.self_reads.get(name) or ())
            held |= {a for a, at in sets.items() if lines & set(at)}
        if not held:
            return True  # handed on, returned to a caller elsewhere: drift does not follow the value
        if any(_runs(ctx, ref, a, calls, methods, resolved) for a in held):
            return True
    return False


def _runs(ctx: CheckContext, ref: str, attr: str, calls: set[str], methods: list, resolved: list) -> bool:
    """Whether something calls `self.attr(...)` on the class: the consumer, a method it resolves
    to, or a base's method the consumer's override hands on to (`super().forward(...)`; a
    `self.forward(...)` runs the override, not the base's)."""
    if attr in calls or ctx.consumer_calls_method("*", attr) or any(attr in r.behaviour.self_calls for r in resolved):
        return True
    handed = _super_calls(ctx, ref)
    return any(n in handed for n, m in methods if attr in m.behaviour.self_calls)


def _super_calls(ctx: CheckContext, ref: str) -> set[str]:
    """Methods the consumer's class `ref` calls through `super()`."""
    out = set()
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            path = (rec.get("callee") or {}).get("path") or rec.get("path") or []
            if len(path) == 2 and path[0] == "super:" + ref and path[1].startswith("."):
                out.add(path[1][1:])
    return out


def _called_by_name(ctx: CheckContext, name: str) -> bool:
    """The target calls `.name(...)` somewhere (on any object, `self` too)."""
    return bool(_sites_of(ctx.target, name, None)) or _still_called(ctx, name)


def _mro_methods(index: PackageIndex, bases: list[Symbol], own: set[str]) -> tuple[list, list]:
    """([(name, facts)] of every method along the bases' MRO, [facts] of those the class resolves
    to: the first definition of each name, none where the consumer's class defines it)."""
    every, resolved, seen = [], [], set(own)
    for base in bases:
        for owner in index.mro(base):
            methods = owner.as_class.methods
            for mname in methods:
                m = methods[mname]
                every.append((mname, m))
                if mname not in seen:
                    seen.add(mname)
                    resolved.append(m)
    return every, resolved


def uncalled_by_target(ctx: CheckContext, name: str, inherited: frozenset[str] | None = None) -> bool:
    """Nothing in the target runs a method called `name` on the consumer's object: no call
    `.name(...)` that can run on an object whose target classes are `inherited` (their MRO names);
    the name never written as a string (a dispatch by name, a `getattr`). Where no class is known
    (`inherited` None) every call counts, `self` ones in every class too, and so does any `x.name`
    read that is not a call (the method handed on as a value, `submit(self.m, ...)`): that search
    is over the text, so it cannot say which class's method it hands on (it also matches a
    docstring's `OpenAIServing._preprocess_chat`), and with a known class the calls decide. False
    where the target's sources are not at hand: then drift cannot tell.

    The one test DRIFT072 (an override the target no longer calls) and the orphaned-override pass
    (drift/analysis/orphaned.py) share: both say the target no longer runs the consumer's method."""
    if not ctx.target.has_sources:
        return False
    memo = ctx.memo.setdefault("uncalled_by_target", {})
    key = (name, inherited)
    if key not in memo:
        sites = _sites_of(ctx.target, name, None) or []
        memo[key] = not (target_runs_on(ctx, sites, inherited) or ctx.target.writes_quoted(name)
                         or (inherited is None and (_still_called(ctx, name)
                                                    or ctx.target.source_search(reference_of(name)))))
    return memo[key]


def _still_called(ctx: CheckContext, name: str) -> bool:
    """Whether any target function calls `.name(` on self (the derived index of self-calls)."""
    return ctx.target.query("self_call_names", name, needle=call_of(name), build=_self_call_names)


def _still_called_on(ctx: CheckContext, name: str, bases: list[Symbol]) -> bool:
    """Whether the target still calls `.name(` on self where that self may be an object of the
    consumer's class (its target `bases`): `self.name()` inside a target class the consumer's class
    does not extend (another class's method of the same name) never runs the consumer's override."""
    if not _still_called(ctx, name):
        return False
    inherited = mro_names(ctx.target, bases)
    # `super().name()` in a target class runs on that class's objects only: on the consumer's
    # object only where the consumer's class extends it (a sibling's override handing on to its
    # own base, `MatcherSiluAndMul.forward_native`, never runs the consumer's method)
    sites = [s for s in _sites_of(ctx.target, name, None) or [] if len(s) > RECEIVER and s[RECEIVER] in ("self", "super")
             and not (s[RECEIVER] == "super" and len(s) > 5 and s[5] is not None and s[5] not in inherited)]
    return not sites or target_runs_on(ctx, sites, inherited)


def _self_call_names(index: PackageIndex, modules=None) -> list[str]:
    out: set[str] = set()
    for mod in (ModuleFacts(index.modules[m]) for m in (index.modules if modules is None else modules)):
        for fn in mod.functions.values():
            out.update(fn.behaviour.self_calls)
        for c in mod.classes.values():
            for m in c.methods.values():
                out.update(m.behaviour.self_calls)
    return sorted(out)


@rule("DRIFT072", RuleKind.HOOK_NOT_CALLED, Severity.RISKY)
def hook_not_called(ctx: CheckContext) -> Iterator[Finding]:
    """A consumer override of a target method that no longer exists in the target's base: nothing
    calls it any more, so the behaviour it adds is silently gone. Also one the target keeps but no
    longer calls: the baseline's code called `.m(...)`, the target's makes no such call, never
    writes `"m"` as a string (a dispatch by name) nor hands `x.m` on uncalled (`pool.submit(self.m,
    ...)`), and the consumer does not call it itself. And, where the target no longer resolves the
    class's base at all (its module split, the class renamed), an override of a method the
    baseline's base defined and the baseline's code called that no target code calls any more."""
    if ctx.baseline is None:
        return
    for ref, cls, tb, bb in _consumer_classes(ctx):
        if not tb:
            yield from _orphaned_by_gone_base(ctx, ref, cls, bb)
            continue
        mod = _module_of(ctx, cls)
        for name, m in (cls.get("methods") or {}).items():
            if name.startswith("__"):
                continue
            bm = _lookup_method(ctx.baseline, bb, name)
            tm = _lookup_method(ctx.target, tb, name)
            if bm is None:
                continue
            if tm is not None:
                found = _kept_but_uncalled(ctx, ref, cls, name, m, tm, bm, mod)
                if found is not None:
                    yield found
                continue
            if consumer_runs_name(ctx, name, by_source=False) or _still_called_on(ctx, name, tb):
                continue
            close = difflib.get_close_matches(name, sorted(set().union(*(_members(ctx.target, b) for b in tb))),
                                              n=1, cutoff=0.75)
            yield Finding(
                rule_id="DRIFT072", kind=RuleKind.HOOK_NOT_CALLED, severity=Severity.RISKY,
                title=f"`{cls['qual']}.{name}` overrides `{bm.dotted.rsplit('.', 2)[-2]}.{name}`, which the target "
                      f"no longer has" + (f" (`{close[0]}` is new)" if close else ""),
                consumer_site=Location(mod["path"], m["line"], symbol=f"{ref}.{name}", col=(m.get("col") or 0) + 1),
                baseline_evidence=(Location(bm.path, bm.line, symbol=bm.dotted),),
                predicted_failure=None,
                details="no error is raised: the override is simply never called",
                fix=Fix(f"move the behaviour to {'`' + close[0] + '`' if close else 'the hook that replaced it'}",
                        manual_reason="which hook replaced it needs reading the target"),
                symbol=bm.dotted,
            )


def _orphaned_by_gone_base(ctx: CheckContext, ref: str, cls: dict, bb: list[Symbol]) -> Iterator[Finding]:
    """Overrides of a class whose base the target no longer resolves at all (its module moved or
    was split, the class renamed): nothing on the target to compare them with, so each method the
    baseline's base defined and the baseline's own code called, and that no target code calls any
    more (no `.name(` call, no `"name"` string, no reference), is orphaned: whatever successor
    of the base the consumer moves to, the target never runs it. The import of the base is the
    break the consumer meets first (reported there); these say what is lost once that is fixed."""
    mod = _module_of(ctx, cls)
    for name, m in (cls.get("methods") or {}).items():
        if name.startswith("__"):
            continue
        bm = _lookup_method(ctx.baseline, bb, name)
        if bm is None or ctx.consumer_calls_method("*", name) or name in ctx.self_calls(ref):
            continue
        before = _sites_of(ctx.baseline, name, None) or []
        if not before or consumer_runs_name(ctx, name) or not uncalled_by_target(ctx, name):
            continue
        owner = bm.dotted.rsplit(".", 2)[-2]
        yield _uncalled_override(
            ref, cls, name, m, mod, before, bm, None,
            title=f"`{cls['qual']}.{name}` overrides `{owner}.{name}`; the target has no `{owner}` and no "
                  f"code that calls `.{name}()` any more",
            details="no error is raised once the base's import is fixed: the target never calls the override",
            why="which hook replaced it needs reading the target")


def _kept_but_uncalled(ctx: CheckContext, ref: str, cls: dict, name: str, m: dict, tm: Symbol, bm: Symbol,
                       mod: dict) -> Finding | None:
    """An override of a method the target keeps but no longer calls anywhere: the baseline's own
    code called `.name(...)` and the target's writes no such call, no `self.name` call, and never
    the name as a string (a dispatch by name), and the consumer does not call it itself. The hook
    the override plugged into moved elsewhere (a caller rewritten, a new runner class), so what
    the override adds is silently skipped."""
    if ctx.consumer_calls_method("*", name) or name in ctx.self_calls(ref):
        return None
    if not uncalled_by_target(ctx, name):
        return None
    before = _sites_of(ctx.baseline, name, None) or []
    if not before:
        return None
    return _uncalled_override(
        ref, cls, name, m, mod, before, bm, tm,
        title=f"`{cls['qual']}.{name}` overrides `{tm.dotted.rsplit('.', 2)[-2]}.{name}`, which the target keeps "
              f"but no longer calls",
        details="no error is raised: the target's code no longer calls the method, so the override never runs",
        why="which code replaced the call needs reading the target")


def _uncalled_override(ref: str, cls: dict, name: str, m: dict, mod: dict, before: list, bm: Symbol,
                       tm: Symbol | None, *, title: str, details: str, why: str) -> Finding:
    """DRIFT072's finding for an override the baseline's code called (`before`: its call sites)
    and no target code calls: at the override's `def`, with the target's method when it kept one."""
    return Finding(
        rule_id="DRIFT072", kind=RuleKind.HOOK_NOT_CALLED, severity=Severity.RISKY,
        title=title,
        consumer_site=Location(mod["path"], m["line"], symbol=f"{ref}.{name}", col=(m.get("col") or 0) + 1),
        target_evidence=(Location(tm.path, tm.line, symbol=tm.dotted),) if tm is not None else (),
        baseline_evidence=(Location(before[0][0], before[0][1], symbol=f".{name}()"),
                           Location(bm.path, bm.line, symbol=bm.dotted)),
        predicted_failure=None,
        details=details,
        fix=Fix("move the behaviour to the hook the target now calls instead", manual_reason=why),
        symbol=(tm or bm).dotted,
    )


def _patches(ctx: CheckContext) -> Iterator[tuple[dict, dict]]:
    """Every monkeypatch: written directly, or made through a consumer helper that patches."""
    for mod in ctx.usage:
        for p in mod.get("patches") or []:
            yield mod, p
    yield from ctx.consumer.helper_patches


def _installed_dead(ctx: CheckContext) -> dict[str, dict[str, str]]:
    """module -> {function: where the consumer installs it} for the functions (or classes) the
    consumer installs on the target only under names the target no longer has there (each of its
    patches is one DRIFT080 reports), and that the consumer never calls itself, by that name or
    directly: nothing runs them on the target until the install is fixed, so what their bodies
    read is the next break, not the first (DRIFT060 reports it risky, naming the install)."""
    hit = ctx.memo.get("installed_dead")
    if hit is not None:
        return hit
    installs: dict[tuple[str, str], list[tuple[bool, str, str]]] = {}
    for mod, patch in _patches(ctx):
        module, fn = _installed_function(ctx, mod, patch)
        if not fn or not patch.get("name"):
            continue
        t, b = _patch_values(ctx, patch)
        gone = t is not None and b is not None and t.kind == "missing" and b.known and b.kind != "consumer"
        installs.setdefault((module, fn), []).append((gone or _owner_gone(ctx, patch), patch["name"],
                                                      _install_place(mod, patch)))
    called: set[str] = set()
    for mod in ctx.usage:
        for rec in mod.get("calls") or []:
            path = (rec.get("callee") or {}).get("path") or []
            if path:
                called.add(str(path[-1]).lstrip("."))
                called.add(str(path[0])[4:] if str(path[0]).startswith("sym:") and len(path) == 1 else "")
    out: dict[str, dict[str, str]] = {}
    for (module, fn), rows in installs.items():
        if all(g for g, _, _ in rows) and not any(n in called for _, n, _ in rows) and f"{module}.{fn}" not in called \
                and fn.rsplit(".", 1)[-1] not in called:
            out.setdefault(module, {})[fn] = rows[0][2]
    ctx.memo["installed_dead"] = out
    return out


def _installed_function(ctx: CheckContext, mod: dict, patch: dict) -> tuple[str, str | None]:
    """(consumer module, function qualname) a patch installs: one defined where the patch is
    written, or one the patching module imports from another module of the consumer
    (`from .worker.spec import _run_no_spec`, then `Target._run_no_spec = _run_no_spec`)."""
    value = patch.get("value") or {}
    if value.get("function"):
        return mod.get("module") or "", value["function"]
    vp = value.get("path") or []
    if len(vp) == 1 and isinstance(vp[0], str) and vp[0].startswith("sym:"):
        home, _, name = vp[0][4:].rpartition(".")
        if home in ctx.consumer.modules and name:
            return home, name
    return mod.get("module") or "", None


def _owner_gone(ctx: CheckContext, patch: dict) -> bool:
    """The class or module a patch installs onto was the baseline's and the target has none:
    the patch raises before it installs anything, so nothing runs the installed function there."""
    path = tuple(patch.get("path") or ())
    if not path or ctx.baseline_paths is None:
        return False
    b = ctx.baseline_paths.value(path)
    return b.kind in ("class", "module") and any(v.kind == "missing" for v in ctx.target_paths.steps(list(path)))


def _install_place(mod: dict, patch: dict) -> str:
    """Where a patch is written, for a finding's text: the module's dotted name and the line. The
    file's path is the consumer's and may hold anything (a newline, a terminal control); the
    renderers escape the site they show, not the words of a title."""
    return f"{mod.get('module') or '?'} line {patch.get('line')}"


def _install_of(function: str | None, installs: dict[str, str]) -> str | None:
    """Where the installed function (or class) holding `function` is installed; None outside them."""
    if not function:
        return None
    return next((at for f, at in installs.items() if function == f or function.startswith(f + ".")), None)


def _patched_classes(ctx: CheckContext, patch: dict) -> tuple[Symbol | None, Symbol | None]:
    """The class a patch sets its method on, in the target and in the baseline (None for a module)."""
    path = tuple(patch["path"])
    t = ctx.target_paths.value(path)
    b = ctx.baseline_paths.value(path) if ctx.baseline_paths else None
    return tuple(v.sym if v is not None and v.sym is not None and v.sym.kind == "class" else
                 v.cls if v is not None and v.kind == "instance" and patch.get("how") == "instance_attr" else None
                 for v in (t, b))


def _patch_values(ctx: CheckContext, patch: dict) -> tuple[Value | None, Value | None]:
    path = tuple(patch["path"]) + ("." + patch["name"],)
    t = ctx.target_paths.value(path)
    b = ctx.baseline_paths.value(path) if ctx.baseline_paths else None
    return t, b


@rule("DRIFT080", RuleKind.PATCH_TARGET_GONE, Severity.RISKY)
def patch_target_gone(ctx: CheckContext) -> Iterator[Finding]:
    """A monkeypatch (`Target.name = fn`, `setattr(module, "name", fn)`, or a helper that does it)
    of a name the target no longer has there: the assignment succeeds, adds a new attribute,
    and the target never calls it. If the name lives elsewhere now, the finding says where.
    Also a patch of a class the target turned into a factory function of the same name
    (`def FusedMoE(...) -> MoERunner`): the method is set on the function object, and the
    objects it builds never run it. And, breaking, a patch whose owner itself is gone (a class
    or module of the baseline the target no longer has, `vllm.worker.cache_engine.X.m = fn`):
    the patch statement raises where it reaches the owner, and nothing is left to patch."""
    if ctx.baseline_paths is None:
        return
    for mod, patch in _patches(ctx):
        factory = _class_now_factory(ctx, patch)
        if factory is not None:
            yield _factory_patch_finding(mod, patch, *factory)
            continue
        t, b = _patch_values(ctx, patch)
        if t is None or b is None or not b.known or b.kind == "consumer":
            continue
        owner = ctx.target_paths.value(tuple(patch["path"]))
        if owner.kind in ("missing", "unknown") and t.kind in ("missing", "unknown"):
            gone = _owner_gone_finding(ctx, mod, patch, b)
            if gone is not None:
                yield gone
            continue
        if t.kind != "missing" or owner.kind not in ("class", "module"):
            continue
        if patch.get("if_present"):
            continue  # the names were filtered by `hasattr(owner, n)`: a gone one is skipped, not set
        name = patch["name"]
        moved = [d for d in ctx.target.definitions_named(name)] if owner.kind == "module" else []
        elsewhere = _classes_defining(ctx, name, owner) if owner.kind == "class" else []
        where = moved[0] if moved else (elsewhere[0] if elsewhere else None)
        yield Finding(
            rule_id="DRIFT080", kind=RuleKind.PATCH_TARGET_GONE, severity=Severity.RISKY,
            title=f"patch of `{owner.describe().rsplit('.', 1)[-1]}.{name}` replaces nothing: the target no longer "
                  f"has it" + (f"; `{name}` is now in `{where.rsplit('.', 1)[0]}`" if where else ""),
            consumer_site=Location(mod["path"], patch["line"], col=(patch.get("col") or 0) + 1,
                                   symbol=f"{owner.describe()}.{name}"),
            target_evidence=(Location(owner.sym.path, owner.sym.line, symbol=owner.sym.dotted),),
            baseline_evidence=(_evidence(b),),
            predicted_failure=None,
            details="no error is raised: the patched behaviour silently does not apply",
            fix=Fix(f"patch `{where}` instead" if where else f"find what replaced `{name}`",
                    manual_reason="a patch must be re-targeted by hand"),
            symbol=f"{owner.sym.dotted}.{name}",
        )


def _owner_gone_finding(ctx: CheckContext, mod: dict, patch: dict, b: Value) -> Finding | None:
    """`Owner.name = fn` where the baseline had `Owner` (a class or module of the target) and the
    target has none: the patch statement itself fails (reaching `Owner` raises, through a module
    attribute or the import that bound it), and once that is mended nothing is left to patch.
    Reported at the patch, beside the import's own finding, so a migration sees every patch that
    must be re-targeted or dropped, not only the first to raise."""
    path = tuple(patch.get("path") or ())
    bowner = ctx.baseline_paths.value(path)
    if bowner.kind not in ("class", "module") or bowner.sym is None:
        return None
    tsteps = ctx.target_paths.steps(path)
    k = next((i for i, v in enumerate(tsteps) if v.kind == "missing"), None)
    if k is None or (k > 0 and tsteps[k - 1].kind not in ("module", "class")):
        return None  # the chain leaves the target's known objects before it breaks: not judged
    name, owner = patch["name"], bowner.sym.dotted
    short = owner.rsplit(".", 1)[-1]
    if k > 0:
        prev = tsteps[k - 1]
        failure = (f"AttributeError: module '{prev.sym.dotted}' has no attribute '{path[k][1:]}'"
                   if prev.kind == "module" and prev.sym is not None else
                   f"AttributeError: type object '{prev.sym.dotted.rsplit('.', 1)[-1]}' has no attribute "
                   f"'{path[k][1:]}'" if prev.sym is not None else None)
    else:  # the owner is a name the consumer imported: its import raises first
        failure = f"ImportError: cannot import `{owner}` (the import that binds `{short}` fails first)"
    return Finding(
        rule_id="DRIFT080", kind=RuleKind.PATCH_TARGET_GONE, severity=Severity.BREAKING,
        title=f"patch of `{short}.{name}`: the target has no `{owner}` to patch",
        consumer_site=Location(mod["path"], patch["line"], col=(patch.get("col") or 0) + 1, symbol=f"{owner}.{name}"),
        target_evidence=(),
        baseline_evidence=(Location(bowner.sym.path, bowner.sym.line, symbol=owner),),
        predicted_failure=failure,
        details=f"`{owner}` was a {bowner.kind} of the baseline; nothing of that name is left in the target",
        fix=Fix(f"re-target or drop the patch of `{short}.{name}`", manual_reason="what replaced the patched "
                f"{bowner.kind} must be read by hand"),
        symbol=f"{owner}.{name}",
    )


def _class_now_factory(ctx: CheckContext, patch: dict) -> tuple[Value, Value] | None:
    """(target function, baseline class) when the patched owner is a class on the baseline and
    a function on the target (a factory kept under the class's name, `def FusedMoE(...)`): a
    method set on the function object is never run, as the objects built are another class's."""
    path = tuple(patch.get("path") or ())
    if not path:
        return None
    tv, bv = ctx.target_paths.value(path), ctx.baseline_paths.value(path)
    if tv.kind == "function" and bv.kind == "class" and tv.sym is not None and bv.sym is not None:
        return tv, bv
    return None


def _factory_patch_finding(mod: dict, patch: dict, tv: Value, bv: Value) -> Finding:
    name, short = patch["name"], tv.sym.dotted.rsplit(".", 1)[-1]
    built = (tv.sym.as_function.returns or "").strip("'\"") or "another class"
    return Finding(
        rule_id="DRIFT080", kind=RuleKind.PATCH_TARGET_GONE, severity=Severity.RISKY,
        title=f"patch of `{short}.{name}` replaces nothing: `{short}` is now a function that builds "
              f"`{built}`, not a class",
        consumer_site=Location(mod["path"], patch["line"], col=(patch.get("col") or 0) + 1,
                               symbol=f"{tv.sym.dotted}.{name}"),
        target_evidence=(Location(tv.sym.path, tv.sym.line, symbol=tv.sym.dotted),),
        baseline_evidence=(Location(bv.sym.path, bv.sym.line, symbol=bv.sym.dotted),),
        predicted_failure=None,
        details="no error is raised: the attribute is set on the function object and the objects it builds "
                "never see it",
        fix=Fix(f"patch the class `{short}` now builds instead", manual_reason="a patch must be re-targeted by hand"),
        symbol=f"{tv.sym.dotted}.{name}",
    )


def _classes_defining(ctx: CheckContext, name: str, owner: Value) -> list[str]:
    """Target classes that now define `name` and share a base with the patched class."""
    out = []
    related = {s.dotted for s in ctx.target.mro(owner.sym)}
    definers = ctx.target.query("definers", name, needle=def_of(name), build=_build_definers, default=[])
    for cls in (ctx.target.defined_in(*d.rsplit(".", 1)) for d in definers):  # in module order
        if name in cls.as_class.methods:
            mro = {s.dotted for s in ctx.target.mro(cls)}
            if mro & related:
                out.append(f"{cls.dotted}.{name}")
    return out[:3]


RULES = [attribute_missing, attribute_retyped, attribute_set_missing, field_became_initvar, override_incompatible,
         abstract_added, hook_not_called, patch_target_gone]
