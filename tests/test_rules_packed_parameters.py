"""DRIFT070's bind_parameters with `add` over synthetic before/after packages: the target stopped
passing a hook's settings one by one and hands over one object holding them (vLLM 0.13's
`get_attn_backend_cls(selected_backend, attn_selector_config)`); an override written for the old
call takes the target's parameters and binds the old names its body reads at its top, and the
patched consumer really runs on the target. A name the object does not hold (`use_v1`) is bound
to the one literal every call of the baseline's passed in that slot (facts +fc); a held name is
proven where the target builds the object from the very local the baseline passed. Safe with that
evidence; manual where a name the object lacks had no fixed value."""

from __future__ import annotations

from drift.findings import SAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/select.py": """
    class Platform:
        @classmethod
        def get_backend(cls, selected, head_size, dtype, use_v1, use_mla):
            raise NotImplementedError


    class Selector:
        def __init__(self, platform):
            self.platform = platform

        def pick(self, selected, head_size, dtype, use_mla):
            return self.platform.get_backend(selected, head_size, dtype, True, use_mla)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/select.py": """
    from typing import NamedTuple


    class SelectorConfig(NamedTuple):
        head_size: int
        dtype: str
        use_mla: bool = False


    class Platform:
        @classmethod
        def get_backend(cls, selected, config: "SelectorConfig"):
            raise NotImplementedError


    class Selector:
        def __init__(self, platform):
            self.platform = platform

        def pick(self, selected, head_size, dtype, use_mla):
            config = SelectorConfig(head_size=head_size, dtype=dtype, use_mla=use_mla)
            return self.platform.get_backend(selected, config=config)
    """}
CONSUMER = {"app/__init__.py": "", "app/plat.py": """
    from gizmo.select import Platform, Selector


    class Mine(Platform):
        @classmethod
        def get_backend(cls, selected, head_size, dtype,
                        use_v1, use_mla):
            if not use_v1:
                raise ValueError("no V0 engine")
            return f"{selected}:{head_size}:{use_mla}"


    def run():
        return Selector(Mine).pick("flash", 64, "bf16", True)
    """}
REL = "app/plat.py"


def test_the_old_parameters_are_read_from_the_object_and_the_fixed_flag_is_bound(tmp_path):
    findings = findings_of(tmp_path, Case("packed", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.codemod == "bind_parameters" and f.fix.tier == SAFE, f.fix
    assert f.fix.args["add"] == [["config", "selected"]]
    assert f.fix.args["params"] == [["head_size", "config.head_size"], ["dtype", "config.dtype"],
                                    ["use_v1", "True"], ["use_mla", "config.use_mla"]]
    assert "`use_v1 = True`" in f.fix.description and "`True` as `use_v1`" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]
    assert raised_by(roots("before"), "app.plat", "run()") is None
    assert raised_by(roots("after"), "app.plat", "run()").startswith("TypeError")

    source = (tmp_path / "consumer" / REL).read_bytes()
    patch = plan({REL: source}, list(findings))  # safe: written by default
    patched = patch.changes[0].after.decode()
    assert "def get_backend(cls, selected, config):\n" in patched, patched
    assert "use_v1 = True\n" in patched and "head_size = config.head_size\n" in patched
    (tmp_path / "consumer" / REL).write_text(patched)
    # the override runs on the target and answers what it answered on the baseline
    assert raised_by(roots("after"), "app.plat", "None if run() == 'flash:64:True' else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("packed-again", BEFORE, AFTER, {"app/__init__.py": "", REL: patched}))
    assert [g for g in again if g.rule_id == "DRIFT070"] == []
    assert plan({REL: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_a_held_name_the_target_builds_otherwise_is_bound_only_where_the_body_never_reads_it(tmp_path):
    after = {**AFTER, "gizmo/select.py": AFTER["gizmo/select.py"].replace("head_size=head_size,", "head_size=head_size * 2,")}
    findings = findings_of(tmp_path, Case("packed-other", BEFORE, after, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.tier == SAFE and f.fix.args["unread"] == ["head_size"]
    assert "written only where the body reads none of `head_size`" in f.fix.description
    source = (tmp_path / "consumer" / REL).read_bytes()
    for unsafe in (False, True):  # this override reads head_size: nothing is written
        patch = plan({REL: source}, list(findings), unsafe_fixes=unsafe)
        assert patch.empty and "reads head_size" in patch.skipped[0][1]


def test_a_name_the_object_lacks_without_one_fixed_value_stays_manual(tmp_path):
    before = {**BEFORE, "gizmo/select.py": BEFORE["gizmo/select.py"].replace(
        "def pick(self, selected, head_size, dtype, use_mla):", "def pick(self, selected, head_size, dtype, use_mla, v1=True):"
    ).replace("dtype, True, use_mla)", "dtype, v1, use_mla)")}
    assert "v1=True" in before["gizmo/select.py"]
    f = only(findings_of(tmp_path, Case("packed-manual", before, AFTER, CONSUMER)), "DRIFT070")
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert "`use_v1` is not among them" in f.fix.description


def test_a_range_consumer_keeps_the_old_def_in_a_version_branch(tmp_path):
    """The baseline's own caller still passes the old parameters one by one: the rewritten def is
    version-gated, and the old one stays for the releases that call it that way."""
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("packed-range", BEFORE, AFTER, CONSUMER))
    files = {REL: (tmp_path / "consumer" / REL).read_bytes()}
    gate = choose_gate(files, top="app", since="0.13.0", before="0.12.0")
    gated = plan(files, list(findings), gate=gate, gate_lines={})
    text = {c.path: c.after.decode() for c in gated.changes}
    mine = text[REL]
    assert "app/vllm_version.py" in text and mine.count("if vllm_version_at_least") == 1
    assert "def get_backend(cls, selected, config):" in mine and "use_v1, use_mla):" in mine
    compile(mine, REL, "exec")


def test_an_object_the_target_takes_by_keyword_only_leaves_the_finding_without_this_edit(tmp_path):
    """`def get_backend(cls, selected, *, config)`: the object has no positional slot, so the
    edit is not offered, and the override is still reported (the rule must not fail on it)."""
    after = {**AFTER, "gizmo/select.py": AFTER["gizmo/select.py"].replace(
        'def get_backend(cls, selected, config: "SelectorConfig"):', 'def get_backend(cls, selected, *, config: "SelectorConfig"):')}
    assert "*, config" in after["gizmo/select.py"]
    f = only(findings_of(tmp_path, Case("packed-kwonly", BEFORE, after, CONSUMER)), "DRIFT070")
    assert f.fix is None or f.fix.codemod != "bind_parameters" or "add" not in f.fix.args
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.plat", "run()").startswith("TypeError")
