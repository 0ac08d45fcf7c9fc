"""Keys as data (drift/analysis/rules/keys.py over the solved model): string keys written in a
dict that reach a target object through `setattr`/`hasattr` in a loop (DRIFT068) or a target
callable through `**kwargs` (DRIFT017), and the filter through `inspect.signature(C).parameters`
that keeps a removed keyword from ever reaching C (silent)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/args.py": """
        from dataclasses import dataclass


        @dataclass
        class EngineArgs:
            model: str = "m"
            old_flag: bool = False
            keep: int = 1
        """,
    "gizmo/params.py": """
        class SamplingParams:
            def __init__(self, n=1, best_of=None, temperature=1.0):
                self.n = n
        """,
}
AFTER = {
    "gizmo/args.py": """
        from dataclasses import dataclass


        @dataclass
        class EngineArgs:
            model: str = "m"
            keep: int = 1
        """,
    "gizmo/params.py": """
        class SamplingParams:
            def __init__(self, n=1, temperature=1.0):
                self.n = n
        """,
}
CONSUMER = """
    import inspect

    from gizmo.args import EngineArgs
    from gizmo.params import SamplingParams

    OVERRIDES = {"old_flag": True, "keep": 2}


    def configure(args: EngineArgs):
        for key, value in OVERRIDES.items():
            if not hasattr(args, key):
                raise ValueError(f"unknown engine argument {key}")
            setattr(args, key, value)
        return args


    def plain(n, best_of):
        kwargs = {"n": n, "best_of": best_of}
        return SamplingParams(**kwargs)


    def dropped_when_none(n, best_of=None):
        kwargs = {"n": n, "best_of": best_of, "temperature": None}
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        return SamplingParams(**kwargs)


    def filtered(n, best_of):
        kwargs = {"n": n, "best_of": best_of}
        accepted = inspect.signature(SamplingParams).parameters
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
        return SamplingParams(**kwargs)
    """


def test_keys_that_reach_attributes_and_keywords_the_target_dropped(tmp_path):
    found = findings_of(tmp_path, Case("keys", BEFORE, AFTER, {"app/setup.py": CONSUMER}))
    # the plain dict is a pattern's (DRIFT010 at the call); the solved model adds the rest
    assert_findings(found, [("DRIFT068", line_of(CONSUMER, 'OVERRIDES = {"old_flag"')),
                            ("DRIFT010", line_of(CONSUMER, "\"best_of\": best_of}", 1)),
                            ("DRIFT017", line_of(CONSUMER, '"temperature": None'))])
    plain = next(f for f in found if f.rule_id == "DRIFT010")
    maybe = next(f for f in found if f.rule_id == "DRIFT017")
    assert maybe.severity.value == "risky" and maybe.predicted_failure == plain.predicted_failure
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.setup", "plain(1, 2)") == plain.predicted_failure
    assert raised_by(after, "app.setup", "dropped_when_none(1, 2)") == plain.predicted_failure
    assert raised_by(after, "app.setup", "dropped_when_none(1)") is None  # the key may not arrive: risky
    assert raised_by(after, "app.setup", "filtered(1, 2)") is None  # the signature filter: silent
    assert raised_by(after, "app.setup", "configure(EngineArgs())") == "ValueError: unknown engine argument old_flag"
    before = [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(before, "app.setup", "(plain(1, 2), configure(EngineArgs()), filtered(1, 2))") is None


def test_nothing_when_the_keys_are_still_taken(tmp_path):
    assert_findings(findings_of(tmp_path, Case("same", AFTER, AFTER, {"app/setup.py": CONSUMER})), [])


FIELD_FILTERS = """
    import dataclasses

    from gizmo.args import EngineArgs


    def by_field_table(flag):
        kwargs = {"model": "x", "old_flag": flag}
        kwargs = {k: v for k, v in kwargs.items() if k in EngineArgs.__dataclass_fields__}
        return EngineArgs(**kwargs)


    def by_field_names(flag):
        kwargs = {"model": "x", "old_flag": flag}
        names = {f.name for f in dataclasses.fields(EngineArgs)}
        kwargs = {k: v for k, v in kwargs.items() if k in names}
        return EngineArgs(**kwargs)


    def unfiltered(flag):
        kwargs = {"model": "x", "old_flag": flag}
        kwargs = {k: v for k, v in kwargs.items() if k in ("model", "old_flag")}
        return EngineArgs(**kwargs)
    """


def test_keys_filtered_through_the_dataclass_fields_never_reach_the_call(tmp_path):
    """A comprehension keeping only `C.__dataclass_fields__` (or `dataclasses.fields(C)` names)
    drops a field the target removed before `C(**kwargs)`: silent, as the signature filter is.
    The same keys through a filter that is not C's fields still reach it (risky: it may drop them)."""
    found = findings_of(tmp_path, Case("fields", BEFORE, AFTER, {"app/setup.py": FIELD_FILTERS}))
    assert_findings(found, [("DRIFT017", line_of(FIELD_FILTERS, '"old_flag": flag}', 3))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.setup", "by_field_table(True)") is None
    assert raised_by(after, "app.setup", "by_field_names(True)") is None
    assert raised_by(after, "app.setup", "unfiltered(True)") == \
        "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'old_flag'"


REBOUND = """
    from gizmo.args import EngineArgs

    DEFAULTS = {"model": "x", "old_flag": True}


    def only_fields(d):
        return {k: v for k, v in d.items() if k in EngineArgs.__dataclass_fields__}


    def filtered_after_defaults(keep):
        args = DEFAULTS
        args = only_fields(args)
        args["keep"] = keep
        return EngineArgs(**args)


    def replaced_in_a_branch(flag):
        args = {"model": "x", "old_flag": flag}
        if not flag:
            args = {"model": "y"}
        return EngineArgs(**args)


    def read_by_a_nested_function(flag):
        args = {"model": "x", "old_flag": flag}

        def build():
            return EngineArgs(**args)

        engine = build()
        args = {"model": "y"}
        return engine
    """


def test_a_rebinding_in_straight_line_code_replaces_what_the_name_held(tmp_path):
    """`args = DEFAULTS` then `args = only_fields(args)` at the top of the function: every use after
    the rebinding reads the filtered dict only (probes/rebinding.py), so DEFAULTS' removed key never
    reaches the call. A rebinding inside a branch may not run (the old keys may still arrive), and a
    nested function reads the name when it is called (here before the rebinding), so both keep
    their findings."""
    found = findings_of(tmp_path, Case("rebound", BEFORE, AFTER, {"app/setup.py": REBOUND}))
    assert_findings(found, [("DRIFT017", line_of(REBOUND, '"old_flag": flag}', 1)),
                            ("DRIFT017", line_of(REBOUND, '"old_flag": flag}', 2))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(after, "app.setup", "filtered_after_defaults(2)") is None
    failure = "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'old_flag'"
    assert raised_by(after, "app.setup", "replaced_in_a_branch(True)") == failure
    assert raised_by(after, "app.setup", "read_by_a_nested_function(True)") == failure
