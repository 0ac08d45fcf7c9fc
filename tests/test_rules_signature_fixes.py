"""DRIFT013's keywordize_arguments and DRIFT070's add_parameters over synthetic before/after
packages: the fix each finding carries, its tier, and the patched consumer really running on
both releases (the edit is exactly derivable from the two signatures, so it is right on both)."""

from __future__ import annotations

from drift.fixes.kinds import apply_fixes
from tests.rule_cases import APP, Case, findings_of, raised_by, src, write_tree

# the engine builds the scheduler class by keyword; the target inserted hash_block_size
BEFORE = {"gizmo/sched.py": """
    class Scheduler:
        def __init__(self, config, block_size, registry=None, log_stats=False):
            self.config, self.block_size, self.registry, self.log_stats = config, block_size, registry, log_stats

        def schedule(self, budget, now=0.0):
            return (budget, now)


    def build(cls):
        return cls(config="cfg", block_size=16, registry="R", log_stats=True)


    def step(s):
        return s.schedule(8, now=1.0)
    """}
AFTER = {"gizmo/sched.py": """
    class Scheduler:
        def __init__(self, config, block_size, hash_block_size=None, registry=None, log_stats=False):
            if hash_block_size is not None and not isinstance(hash_block_size, int):
                raise TypeError(f"hash_block_size must be an int, got {hash_block_size!r}")
            if registry is not None and not isinstance(registry, str):
                raise TypeError(f"registry must be a str, got {registry!r}")
            self.config, self.block_size, self.registry, self.log_stats = config, block_size, registry, log_stats
            self.hash_block_size = hash_block_size or block_size

        def schedule(self, budget, now=0.0, mask=None):
            return (budget, now, mask)


    def build(cls):
        return cls(config="cfg", block_size=16, hash_block_size=32, registry="R", log_stats=True)


    def step(s):
        return s.schedule(8, now=1.0, mask="m")
    """}
CONSUMER = {"app/sched.py": """
    from gizmo.sched import Scheduler


    class BalanceScheduler(Scheduler):
        def __init__(self, config, block_size, registry=None, log_stats=False):
            super().__init__(config, block_size, registry, log_stats)
            self.balanced = True

        def schedule(self, budget, now=0.0):
            return super().schedule(budget, now)


    class LoggingScheduler(Scheduler):
        def schedule(self, budget, now=0.0):
            return ("logged", budget)
    """}


def _fixed(findings, *, tiers: set[str], rules: set[str] | None = None) -> str:
    path = "app/sched.py"
    text = src(CONSUMER[path])
    chosen = [f for f in findings if f.fix is not None and f.fix.codemod and f.fix.tier in tiers
              and (rules is None or f.rule_id in rules)]
    return apply_fixes(text, chosen, path=path).new_source


def test_fixes_carry_the_baseline_names_and_the_new_parameter(tmp_path):
    findings = findings_of(tmp_path, Case("sig-fixes", BEFORE, AFTER, CONSUMER))
    by_rule = {}
    for f in findings:
        by_rule.setdefault(f.rule_id, []).append(f)
    shift = by_rule["DRIFT013"][0]
    assert shift.fix.codemod == "keywordize_arguments" and shift.fix.tier == "safe"
    assert shift.fix.args == {"callee": "__init__", "start": 2, "names": ["registry", "log_stats"]}
    assert shift.fix.description == ("pass arguments 3-4 of `super().__init__(...)` by keyword as `registry=`, "
                                     "`log_stats=` (the baseline's names, which the target keeps)")
    overrides = {f.consumer_site.line: f for f in by_rule["DRIFT070"]}
    init = overrides[5]
    assert init.fix.codemod == "add_parameters" and init.fix.tier == "safe"
    assert init.fix.args == {"function": "__init__", "params": [["hash_block_size", "None", "block_size"]],
                             "forward": "__init__"}
    assert init.fix.description.startswith("add `hash_block_size=None` after `block_size` to "
                                           "`BalanceScheduler.__init__`'s parameters")
    assert "pass `hash_block_size=hash_block_size` on to `super().__init__(...)`" in init.fix.description
    forwarding = overrides[9]
    assert forwarding.fix.tier == "safe" and forwarding.fix.args["forward"] == "schedule"
    # an override that answers itself takes `mask` last and ignores it: every caller binds as
    # before and the override does what it did on the baseline, whose callers never passed it
    ignoring = overrides[14]
    assert ignoring.fix.codemod == "add_parameters" and ignoring.fix.tier == "safe"
    assert ignoring.fix.args == {"function": "schedule", "params": [["mask", "None", "now"]], "forward": None}
    assert "last" in ignoring.fix.description and "leave it unread" in ignoring.fix.description


def test_the_safe_patch_runs_on_the_target_and_the_keywords_on_both(tmp_path):
    findings = findings_of(tmp_path, Case("sig-fixes", BEFORE, AFTER, CONSUMER))
    before, after = write_tree(tmp_path / "b", BEFORE), write_tree(tmp_path / "a", AFTER)
    probe = ("(lambda s: (s.registry, s.log_stats, s.block_size, step(s)))"
             "(build(__import__('app.sched').sched.BalanceScheduler))")
    original = write_tree(tmp_path / "orig", CONSUMER)
    assert raised_by([original, before], "gizmo.sched", probe) is None
    assert "hash_block_size" in (raised_by([original, after], "gizmo.sched", probe) or "")
    patched = _fixed(findings, tiers={"safe"})
    assert "super().__init__(config, block_size, registry=registry, log_stats=log_stats, " \
           "hash_block_size=hash_block_size)" in patched
    assert "def __init__(self, config, block_size, hash_block_size=None, registry=None, log_stats=False):" in patched
    assert "def schedule(self, budget, now=0.0, mask=None):" in patched
    assert "return super().schedule(budget, now, mask=mask)" in patched
    assert patched.count("mask=None") == 2  # LoggingScheduler takes it too, last, and ignores it
    tree = write_tree(tmp_path / "patched", {"app/sched.py": patched})
    assert raised_by([tree, after], "gizmo.sched", probe) is None
    logging = "step(__import__('app.sched').sched.LoggingScheduler('cfg', 16))"
    assert "mask" in (raised_by([original, after], "gizmo.sched", logging) or "")
    assert raised_by([tree, after], "gizmo.sched", logging) is None
    # the forwarded keyword is the target's alone: on the baseline that statement needs the
    # version gate drift/fixes/gate.py writes for a range consumer; the named arguments do not
    assert "hash_block_size" in (raised_by([tree, before], "gizmo.sched", probe) or "")
    named = _fixed(findings, tiers={"safe"}, rules={"DRIFT013"})
    assert "super().__init__(config, block_size, registry=registry, log_stats=log_stats)" in named
    named_tree = write_tree(tmp_path / "named", {"app/sched.py": named})
    assert raised_by([named_tree, before], "gizmo.sched", probe) is None
    # a second pass changes nothing
    again = apply_fixes(patched, [f for f in findings if f.fix and f.fix.codemod and f.fix.tier == "safe"],
                        path="app/sched.py")
    assert again.new_source == patched and not again.applied
    # the re-check of the patched consumer: the safe fixes' findings are gone, nothing new
    left = findings_of(tmp_path / "recheck", Case("sig-fixes", BEFORE, AFTER, {"app/sched.py": patched}))
    assert {(f.rule_id, f.consumer_site.line) for f in left} == set()


MID_BEFORE = {"gizmo/sched.py": """
    class Scheduler:
        def schedule(self, budget, now=0.0):
            return (budget, now)


    def step(s):
        return s.schedule(8, 1.0)
    """}
MID_AFTER = {"gizmo/sched.py": """
    class Scheduler:
        def schedule(self, budget, mask=None, now=0.0):
            return (budget, mask, now)


    def step(s):
        return s.schedule(8, "m", 1.0)
    """}
MID_CONSUMER = {"app/sched.py": """
    from gizmo.sched import Scheduler


    class LoggingScheduler(Scheduler):
        def schedule(self, budget, now=0.0):
            return ("logged", budget, now)
    """}


def test_a_parameter_inserted_where_the_target_declares_it_is_safe_and_version_gated(tmp_path):
    """The target inserts `mask` before `now` and calls `schedule(8, "m", 1.0)` positionally: the
    override taking `mask=None` in the same slot binds every target call as the base does, and
    nothing of the consumer's calls it positionally. Safe; for a range consumer always in a
    vLLM-version branch, since the baseline calls `schedule(8, 1.0)`, which would bind 1.0 to mask."""
    from drift.fixes import plan
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("mid-safe", MID_BEFORE, MID_AFTER, MID_CONSUMER))
    (f,) = [x for x in findings if x.rule_id == "DRIFT070"]
    assert f.fix.codemod == "add_parameters" and f.fix.tier == "safe" and f.fix.args["mid_signature"] is True
    assert f.fix.args["params"] == [["mask", "None", "budget"]]
    assert "the override's positional parameters are then the target's own" in f.fix.description
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    run = "None if __import__('gizmo.sched', fromlist=['step']).step(LoggingScheduler()) == ('logged', 8, 1.0) else 1 / 0"
    assert raised_by(roots("before"), "app.sched", run) is None
    assert raised_by(roots("after"), "app.sched", run).startswith("TypeError")  # three positional arguments
    rel = "app/sched.py"
    files = {rel: (tmp_path / "consumer" / rel).read_bytes()}
    patched = plan(files, list(findings)).changes[0].after.decode()
    assert "def schedule(self, budget, mask=None, now=0.0):" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.sched", run) is None
    assert plan({rel: patched.encode()}, list(findings)).empty
    # a range consumer: the edit sits in a version branch, the old def kept for the baseline
    gate = choose_gate(files, top="app", since="0.13.0", before="0.12.0")
    gated = {c.path: c.after.decode() for c in plan(files, list(findings), gate=gate, gate_lines={}).changes}
    assert gated[rel].count("if vllm_version_at_least") == 1
    assert "def schedule(self, budget, now=0.0):" in gated[rel] and "mask=None" in gated[rel]
    compile(gated[rel], rel, "exec")


def test_an_ignored_parameter_in_the_middle_of_the_override_stays_unsafe(tmp_path):
    """The target inserts `mask` before `now`: an override that does not hand it on would take it
    in a slot the consumer's own positional calls `schedule(8, 1.0)` fill, so they would bind
    differently. Unsafe, said so."""
    before = {"gizmo/sched.py": """
        class Scheduler:
            def schedule(self, budget, now=0.0):
                return (budget, now)


        def step(s):
            return s.schedule(8, now=1.0)
        """}
    after = {"gizmo/sched.py": """
        class Scheduler:
            def schedule(self, budget, mask=None, now=0.0):
                return (budget, mask, now)


        def step(s):
            return s.schedule(8, mask="m", now=1.0)
        """}
    consumer = {"app/sched.py": """
        from gizmo.sched import Scheduler


        class LoggingScheduler(Scheduler):
            def schedule(self, budget, now=0.0):
                return ("logged", budget, now)


        def replay(s: LoggingScheduler):
            return s.schedule(8, 1.0)
        """}
    (f,) = [x for x in findings_of(tmp_path, Case("mid", before, after, consumer)) if x.rule_id == "DRIFT070"]
    assert f.fix.codemod == "add_parameters" and f.fix.tier == "unsafe"
    assert f.fix.args["params"] == [["mask", "None", "budget"]]
    assert "no call in the override that hands it" in f.fix.description


def test_a_name_the_target_dropped_keeps_the_fix_manual(tmp_path):
    before = {"gizmo/core.py": "def make(a, b=0, c=0):\n    return a\n"}
    after = {"gizmo/core.py": "def make(a, flag=False, b=0, width=0):\n    return a\n"}
    consumer = {"app/main.py": "from gizmo.core import make\n\ndef main():\n    return make(1, 2, 3)\n"}
    f = [x for x in findings_of(tmp_path, Case("shift-renamed", before, after, consumer)) if x.rule_id == "DRIFT013"][0]
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert "no parameter of the same name in both releases" in f.fix.manual_reason


def test_a_call_still_wrong_after_naming_keeps_the_fix_manual(tmp_path):
    # `b` displaced by a required `c`: naming `b` leaves `c` missing, so the edit is only described
    before = {"gizmo/core.py": "def make(a, b):\n    return a\n"}
    after = {"gizmo/core.py": "def make(a, c, b):\n    return a\n"}
    consumer = {"app/main.py": "from gizmo.core import make\n\ndef main():\n    return make(1, 2)\n"}
    f = [x for x in findings_of(tmp_path, Case("shift-required", before, after, consumer)) if x.rule_id == "DRIFT013"][0]
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert f.fix.description == ("pass argument 2 of `make(...)` by keyword as `b=` (the baseline's names, which "
                                 "the target keeps); then the target also requires `c`")


PATCHER = {"app/patch.py": """
    from gizmo.sched import Scheduler

    _orig_schedule = Scheduler.schedule


    def _patched_schedule(self, budget, now=0.0):
        return _orig_schedule(self, budget, now)


    Scheduler.schedule = _patched_schedule
    """}


def test_a_patched_function_forwarding_to_the_saved_original(tmp_path):
    findings = findings_of(tmp_path, Case("patched", BEFORE, AFTER, PATCHER))
    (f,) = [x for x in findings if x.rule_id == "DRIFT070"]
    assert f.fix.tier == "safe" and f.fix.args == {"function": "_patched_schedule",
                                                   "params": [["mask", "None", "now"]], "forward": "_orig_schedule"}
    assert f.fix.description == ("add `mask=None` after `now` to `_patched_schedule`'s parameters, as "
                                 "`Scheduler.schedule` declares it, and pass `mask=mask` on to `_orig_schedule(...)`")
    patched = apply_fixes(src(PATCHER["app/patch.py"]), [f], path="app/patch.py").new_source
    assert "def _patched_schedule(self, budget, now=0.0, mask=None):" in patched
    assert "return _orig_schedule(self, budget, now, mask=mask)" in patched
    after = write_tree(tmp_path / "a", AFTER)
    original = write_tree(tmp_path / "orig", PATCHER)
    probe = "(__import__('app.patch'), step(Scheduler('cfg', 16)))[1]"
    assert "mask" in (raised_by([original, after], "gizmo.sched", probe) or "")
    tree = write_tree(tmp_path / "patched", {"app/patch.py": patched})
    assert raised_by([tree, after], "gizmo.sched", probe) is None


def test_a_renamed_slot_the_forward_fills_positionally_keeps_the_fix_manual_and_concrete(tmp_path):
    before = {"gizmo/sched.py": """
        class Scheduler:
            def schedule(self, budget, now=0.0):
                return (budget, now)


        def step(s):
            return s.schedule(8, now=1.0)
        """}
    after = {"gizmo/sched.py": """
        class Scheduler:
            def schedule(self, budget, at=0.0, mask=None):
                return (budget, at, mask)


        def step(s):
            return s.schedule(8, at=1.0, mask="m")
        """}
    consumer = {"app/sched.py": """
        from gizmo.sched import Scheduler


        class Mine(Scheduler):
            def schedule(self, budget, now=0.0):
                return super().schedule(budget, now)
        """}
    (f,) = [x for x in findings_of(tmp_path, Case("renamed-slot", before, after, consumer)) if x.rule_id == "DRIFT070"]
    # adding `at` and forwarding `at=at` would pass it twice (`now` fills that slot positionally)
    assert f.fix.codemod is None and f.fix.tier == "manual"
    assert f.fix.description == ("match `Scheduler.schedule`'s parameters in `Mine.schedule`: the target declares "
                                 "(budget, at=0.0, mask=None) and calls it with 1 positional argument, at=, mask=")


def test_parameters_packed_into_one_new_object_are_read_from_it_in_the_manual_edit(tmp_path):
    """vLLM 0.13 packs get_attn_backend_cls's head_size, dtype, ... into one AttentionSelectorConfig
    and passes it as `attn_selector_config=`: an override with the old separate parameters is told
    to take the new ones and read each old one from that object, and which old one it does not
    hold (`use_v1`, no longer passed at all). Manual where the baseline passed that one as a
    variable: the body decides what it means now (a fixed literal there gets bind_parameters,
    tests/test_rules_packed_parameters.py)."""
    before = {"gizmo/select.py": """
        class Platform:
            @classmethod
            def backend_cls(cls, backend, head_size, use_v1, use_mla=False):
                return "base"


        def pick(platform, v1=True):
            return platform.backend_cls("flash", 64, v1, False)
        """}
    after = {"gizmo/select.py": """
        from typing import NamedTuple


        class SelectorConfig(NamedTuple):
            head_size: int
            use_mla: bool = False


        class Platform:
            @classmethod
            def backend_cls(cls, backend, selector_config: SelectorConfig):
                return "base"


        def pick(platform):
            return platform.backend_cls("flash", selector_config=SelectorConfig(64, False))
        """}
    consumer = {"app/platform.py": """
        from gizmo.select import Platform


        class MyPlatform(Platform):
            @classmethod
            def backend_cls(cls, backend, head_size, use_v1, use_mla=False):
                if not use_v1:
                    raise ValueError("v0")
                return "mine" if use_mla else "plain"
        """}
    found = [x for x in findings_of(tmp_path, Case("packed", before, after, consumer)) if x.rule_id == "DRIFT070"]
    assert found and all(f.fix.codemod is None and f.fix.tier == "manual" for f in found)
    texts = {f.fix.description for f in found}
    assert ("take `MyPlatform.backend_cls`'s parameters as the target declares them (backend, selector_config) and "
            "read the old ones from `selector_config` (its class `SelectorConfig` holds 2 of them: "
            "`head_size = selector_config.head_size`, `use_mla = selector_config.use_mla`); `use_v1` is not among "
            "them: the target passes it no more") in texts, texts


def test_an_ignored_parameter_before_the_overrides_star_args_stays_unsafe(tmp_path):
    """`def schedule(self, budget, now=0.0, *extra)`: a `mask=None` added last among the named
    parameters would take the first argument a positional caller meant for `*extra`."""
    consumer = {"app/sched.py": """
        from gizmo.sched import Scheduler


        class StarScheduler(Scheduler):
            def schedule(self, budget, now=0.0, *extra):
                return ("star", budget, extra)
        """}
    found = [x for x in findings_of(tmp_path, Case("star", BEFORE, AFTER, consumer)) if x.rule_id == "DRIFT070"]
    (f,) = [f for f in found if "schedule" in f.title]
    assert (f.fix.codemod, f.fix.tier) == ("add_parameters", "unsafe")
    assert f.fix.args["params"] == [["mask", "None", "now"]]


def test_a_new_parameter_the_target_sends_on_is_no_value_to_ignore(tmp_path):
    """vLLM 0.19's `DPCoordinatorProc.run_coordinator` takes `zmq_addr_pipe=None` and hands it to
    `process_input_socket`, which sends the bound addresses on it; the parent waits 30 s for them,
    then raises. An override taking the pipe and ignoring it keeps the coordinator from ever
    reporting: the add-and-ignore edit is unsafe there, and says what the target does with it.
    A parameter the target only reads (`log=None`) stays the safe add-and-ignore edit."""
    before = {"gizmo/coord.py": """
        class Coordinator:
            @staticmethod
            def run(engines, address):
                Coordinator().serve(engines, address)

            def serve(self, engines, address):
                return engines
        """}
    after = {"gizmo/coord.py": """
        class Coordinator:
            @staticmethod
            def run(engines, address, pipe=None, log=None):
                if log is not None and log.verbose:
                    print(engines)
                try:
                    Coordinator().serve(engines, address, pipe)
                finally:
                    if pipe is not None:
                        pipe.close()

            def serve(self, engines, address, pipe=None):
                if pipe is not None:
                    pipe.send(address)
                return engines


        def start(parent, child):
            Coordinator.run(2, "tcp://x", pipe=child)
            return parent.recv()
        """}
    consumer = {"app/coord.py": """
        from gizmo.coord import Coordinator


        class MyCoordinator(Coordinator):
            @staticmethod
            def run(engines, address):
                return MyCoordinator().serve(engines, address)
        """}
    (f,) = [x for x in findings_of(tmp_path, Case("channel", before, after, consumer)) if x.rule_id == "DRIFT070"]
    assert f.fix.codemod == "add_parameters" and f.fix.tier == "unsafe"
    assert "`serve` calls `pipe.send()`" in f.fix.description or "`run` calls `pipe.close()`" in f.fix.description
    assert "vLLM's caller relies on that" in f.fix.description
    # the same override where the target's new parameter is only read: the safe add-and-ignore edit
    read_only = {"gizmo/coord.py": after["gizmo/coord.py"].replace("pipe.close()", "print(pipe.name)")
                 .replace("pipe.send(address)", "print(pipe.name)")}
    (g,) = [x for x in findings_of(tmp_path / "read", Case("read", before, read_only, consumer)) if x.rule_id == "DRIFT070"]
    assert g.fix.codemod == "add_parameters" and g.fix.tier == "safe"
