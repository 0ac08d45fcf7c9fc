"""A removed class of constants whose successor the target defines beside it with the same
member values (vLLM 0.13's `CompilationLevel` -> `CompilationMode`): DRIFT001 at the import and
DRIFT005 at each use say the concrete edit, the field the value now belongs in included where the
target's class types one field with the successor. DRIFT001 carries it as `rename_constants_class`:
unsafe on the values alone, safe where the target's own modules made the same switch."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/config.py": """
    from dataclasses import dataclass
    from typing import Optional


    class Level:
        OFF = 0
        ONCE = 2
        FULL = 3


    @dataclass
    class Config:
        level: Optional[int] = None
        graph: Optional[str] = None
    """}
AFTER = {"gizmo/config.py": """
    import enum
    from dataclasses import dataclass
    from typing import Optional


    class Mode(enum.IntEnum):
        NONE = 0
        TRACE_ONCE = 2
        COMPILE = 3


    class Verbosity(enum.IntEnum):
        QUIET = 0
        LOUD = 1


    @dataclass
    class Config:
        level: Optional[int] = None
        mode: Optional[Mode] = None
        graph: Optional[str] = None
    """}
CONSUMER = {"app/setup.py": """
    from gizmo.config import Config, Level


    def setup(config: Config) -> bool:
        config.level = Level.OFF
        return config.graph is None and config.level == Level.FULL
    """}


def _by_rule(tmp_path, after=AFTER):
    found = findings_of(tmp_path, Case("enum", BEFORE, after, CONSUMER))
    return {(f.rule_id, f.consumer_site.line): f for f in found}


def test_the_import_and_each_use_name_the_successor_member_by_value(tmp_path):
    text = CONSUMER["app/setup.py"]
    found = _by_rule(tmp_path)
    imp = found[("DRIFT001", line_of(text, "import Config, Level"))]
    assert imp.fix.codemod == "rename_constants_class" and imp.fix.tier == "unsafe"  # the values alone
    assert imp.fix.args == {"old": "Level", "new": "Mode", "fields": {"level": "mode"},
                            "members": {"OFF": "NONE", "ONCE": "TRACE_ONCE", "FULL": "COMPILE"}}
    assert imp.fix.description.startswith(
        "import `Mode` from `gizmo.config` instead and use its member of the same value: `Level.OFF` -> `Mode.NONE`, "
        "`Level.ONCE` -> `Mode.TRACE_ONCE`, `Level.FULL` -> `Mode.COMPILE`; read and set `.mode` for `.level` "
        "(the target's `Config.mode` is typed `Optional[Mode]`) (matched by its members' values only")
    stored = found[("DRIFT005", line_of(text, "config.level = Level.OFF"))]
    # the use carries the import's edit, which rewrites it with the rest of the file, in the same tier
    assert (stored.fix.codemod, stored.fix.tier) == ("rename_constants_class", "unsafe")
    assert stored.fix.args == {**imp.fix.args, "at_line": imp.consumer_site.line}
    assert stored.fix.description == (
        "write `Mode.NONE` for `Level.OFF` (the same value; import `Mode` from `gizmo.config`) and `.mode` for "
        f"`.level` here (the target's `Config.mode` is typed `Optional[Mode]`); the import's edit at line "
        f"{imp.consumer_site.line} rewrites this use with it")
    # `graph` on the same line held a str before and is typed str now: not the value's new home
    compared = found[("DRIFT005", line_of(text, "config.level == Level.FULL"))]
    assert "`Mode.COMPILE` for `Level.FULL`" in compared.fix.description
    assert "`.mode` for `.level`" in compared.fix.description and ".graph" not in compared.fix.description


def test_no_class_of_the_same_values_leaves_the_plain_manual_fix(tmp_path):
    # the successor's values differ (NONE = 0, COMPILE = 4): nothing ties it to the old class
    after = {"gizmo/config.py": AFTER["gizmo/config.py"].replace("COMPILE = 3", "COMPILE = 4")}
    found = _by_rule(tmp_path, after)
    imp = found[("DRIFT001", line_of(CONSUMER["app/setup.py"], "import Config, Level"))]
    assert imp.fix.description == "stop using `gizmo.config.Level`"
    use = found[("DRIFT005", line_of(CONSUMER["app/setup.py"], "config.level = Level.OFF"))]
    assert use.fix.description == "stop using `Level` here"


def test_two_classes_of_the_same_values_are_a_guess_and_stay_plain(tmp_path):
    twin = AFTER["gizmo/config.py"].replace(
        "    class Verbosity(enum.IntEnum):", "    class Twin(enum.IntEnum):\n        A = 0\n        B = 2\n"
        "        C = 3\n\n\n    class Verbosity(enum.IntEnum):")
    found = _by_rule(tmp_path, {"gizmo/config.py": twin})
    imp = found[("DRIFT001", line_of(CONSUMER["app/setup.py"], "import Config, Level"))]
    assert imp.fix.description == "stop using `gizmo.config.Level`"


def test_the_targets_own_switch_to_the_successor_makes_the_fix_safe(tmp_path):
    """A module of the target that used `Level` in the baseline imports `Mode` in the target: the
    target made this very switch in its own code."""
    before = {**BEFORE, "gizmo/engine.py": """
        from gizmo.config import Config, Level


        def compiled(config: Config) -> bool:
            return config.level == Level.FULL
        """}
    after = {**AFTER, "gizmo/engine.py": """
        from gizmo.config import Config, Mode


        def compiled(config: Config) -> bool:
            return config.mode == Mode.COMPILE
        """}
    found = {(f.rule_id, f.consumer_site.line): f
             for f in findings_of(tmp_path, Case("enum-own", before, after, CONSUMER))}
    imp = found[("DRIFT001", line_of(CONSUMER["app/setup.py"], "import Config, Level"))]
    assert imp.fix.codemod == "rename_constants_class" and imp.fix.tier == "safe"
    assert "(the target's own gizmo.engine made the same switch)" in imp.fix.description


def test_an_aliased_import_stays_manual(tmp_path):
    consumer = {"app/setup.py": CONSUMER["app/setup.py"].replace("import Config, Level", "import Config, Level as L")
                .replace("Level.", "L.")}
    found = {(f.rule_id, f.consumer_site.line): f
             for f in findings_of(tmp_path, Case("enum-alias", BEFORE, AFTER, consumer))}
    imp = next(f for (rule, _), f in found.items() if rule == "DRIFT001")
    assert imp.fix.codemod is None and imp.fix.tier == "manual"
    assert imp.fix.description.startswith("import `Mode` from `gizmo.config` instead")


def test_another_int_field_read_away_from_the_members_is_not_a_successor_field(tmp_path):
    """`warmups: int` passes the type test as `level` does; read away from every member, it is not
    where the value lived, so the fix never names it."""
    before = {"gizmo/config.py": BEFORE["gizmo/config.py"].replace(
        "graph: Optional[str] = None", "graph: Optional[str] = None\n        warmups: int = 1")}
    after = {"gizmo/config.py": AFTER["gizmo/config.py"].replace(
        "graph: Optional[str] = None", "graph: Optional[str] = None\n        warmups: int = 1")}
    consumer = {"app/setup.py": CONSUMER["app/setup.py"] + """


    def warm(config: Config) -> int:
        total = 0
        total += 1
        total += 2
        return total + config.warmups
    """}
    found = {(f.rule_id, f.consumer_site.line): f
             for f in findings_of(tmp_path, Case("enum-int", before, after, consumer))}
    imp = found[("DRIFT001", line_of(consumer["app/setup.py"], "import Config, Level"))]
    assert imp.fix.args["fields"] == {"level": "mode"} and "warmups" not in imp.fix.description
