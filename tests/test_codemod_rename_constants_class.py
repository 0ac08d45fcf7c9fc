"""rename_constants_class: before/after/idempotence on synthetic code (libcst's CodemodTest shape).
A removed class of constants replaced by one whose members carry the same values: the import,
every member use, and the field the value was compared with or stored in."""

from __future__ import annotations

from typing import ClassVar

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.rename_constants_class import RenameConstantsClass
from tests.rule_cases import line_of, src

ARGS: dict = {"old": "Level", "new": "Mode", "members": {"OFF": "NONE", "FULL": "COMPILE"},
              "fields": {"level": "mode"}}


class TestRenameConstantsClass(CodemodTest):
    TRANSFORM = RenameConstantsClass
    ARGS: ClassVar[dict] = ARGS

    def check(self, before: str, after: str, needle: str, **args) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **{**self.ARGS, **args})
        # a second run: the successor is imported already, nothing changes
        self.assertCodemod(after, after, line=line_of(before, needle), **{**self.ARGS, **args})

    def test_import_members_and_field_move_together(self) -> None:
        self.check("""
            from pkg.config import Level, Other

            def setup(cfg, eager):
                if eager:
                    cfg.compilation.level = Level.OFF
                if cfg.compilation.level not in [
                        Level.OFF, Level.FULL
                ]:
                    log("unsupported level %s", cfg.compilation.level)
                return cfg.compilation.level == Level.FULL and cfg.other.level > 2
            """, """
            from pkg.config import Mode, Other

            def setup(cfg, eager):
                if eager:
                    cfg.compilation.mode = Mode.NONE
                if cfg.compilation.mode not in [
                        Mode.NONE, Mode.COMPILE
                ]:
                    log("unsupported level %s", cfg.compilation.mode)
                return cfg.compilation.mode == Mode.COMPILE and cfg.other.level > 2
            """, "import Level")

    def test_an_import_inside_a_method_renames_its_own_scope_only(self) -> None:
        self.check("""
            class P:
                def check(self, cfg):
                    from pkg.config import Level
                    c = cfg.compilation
                    c.level = Level.OFF

                def other(self, c):
                    return c.level
            """, """
            class P:
                def check(self, cfg):
                    from pkg.config import Mode
                    c = cfg.compilation
                    c.mode = Mode.NONE

                def other(self, c):
                    return c.level
            """, "import Level")

    def test_values_compared_with_locals_and_passed_on_need_no_field(self) -> None:
        self.check("""
            from pkg.config import Level
            ok = level == Level.FULL
            run(mode=Level.OFF)
            """, """
            from pkg.config import Mode
            ok = level == Mode.COMPILE
            run(mode=Mode.NONE)
            """, "import Level", fields=None)


def test_a_use_that_is_no_known_member_leaves_the_file_alone() -> None:
    before = src("""
        from pkg.config import Level
        a = Level.OFF
        b = Level.PARTIAL
        """)
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert after == before and outcome.status == "not_found" and "known members" in outcome.reason


def test_the_class_itself_handed_on_leaves_the_file_alone() -> None:
    before = src("""
        from pkg.config import Level
        register(Level)
        a = Level.OFF
        """)
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert after == before and outcome.status == "not_found"


def test_the_successor_name_already_taken_leaves_the_file_alone() -> None:
    before = src("""
        from pkg.config import Level
        Mode = 3
        a = Level.OFF
        """)
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert after == before and outcome.status == "not_found" and "taken" in outcome.reason


def test_an_aliased_import_is_not_rewritten() -> None:
    before = src("""
        from pkg.config import Level as L
        a = L.OFF
        """)
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert after == before and outcome.status == "not_found"


def test_a_field_with_no_known_successor_leaves_the_file_alone() -> None:
    """`cfg.kind == Level.FULL`: the value lives in `.kind`, and nobody said where it lives now."""
    before = src("""
        from pkg.config import Level
        ok = cfg.kind == Level.FULL
        """)
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert after == before and outcome.status == "not_found" and "`.kind`" in outcome.reason


def test_other_attributes_of_the_same_receiver_are_left_alone() -> None:
    """Only the field the value lives in moves: a long file's other reads of the same object stay."""
    body = "\n".join(f"n{i} = cfg.compilation.warmups_{i}" for i in range(200))
    before = src("""
        from pkg.config import Level
        cfg.compilation.level = Level.OFF
        """) + body + "\n"
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=ARGS)
    assert outcome.status == "applied"
    assert after == before.replace("Level.OFF", "Mode.NONE").replace("import Level", "import Mode").replace(
        "compilation.level", "compilation.mode")


def test_a_second_field_named_is_moved_only_where_a_member_meets_it() -> None:
    """`fields` may name more than one candidate; only the one a member is compared with or stored
    in moves, and only through that receiver."""
    before = src("""
        from pkg.config import Level
        cfg.compilation.level = Level.OFF
        n = cfg.compilation.warmups
        """)
    args = {**ARGS, "fields": {"level": "mode", "warmups": "mode"}}
    after, outcome = run_codemod(before, "rename_constants_class", line=1, args=args)
    assert outcome.status == "applied"
    assert after == src("""
        from pkg.config import Mode
        cfg.compilation.mode = Mode.NONE
        n = cfg.compilation.warmups
        """)
