"""drop_check: before/after/idempotence on synthetic code (libcst's CodemodTest shape), and the
rule's evidence: a check the target deleted from its own function (own_checks.dropped_check)."""

from __future__ import annotations

from typing import ClassVar

from libcst.codemod import CodemodTest

from drift.fixes.kinds import run_codemod
from drift.fixes.kinds.drop_check import DropCheck
from tests.rule_cases import Case, findings_of, line_of, src

GUARD = "lora.extra_vocab_size > self.config.extra_vocab_size"


class TestDropCheck(CodemodTest):
    TRANSFORM = DropCheck
    ARGS: ClassVar[dict] = {"guard": GUARD}

    def check(self, before: str, after: str, needle: str) -> None:
        before, after = src(before), src(after)
        self.assertCodemod(before, after, line=line_of(before, needle), **self.ARGS)
        self.assertCodemod(after, after, line=line_of(before, needle), **self.ARGS)  # a second run: nothing left

    def test_the_check_goes_whatever_its_spacing(self) -> None:
        self.check("""
            def load(self, lora):
                lora.prepare()
                if (lora.extra_vocab_size >
                        self.config.extra_vocab_size):
                    raise ValueError(
                        f"too big: {lora.extra_vocab_size}")
                return lora
            """, """
            def load(self, lora):
                lora.prepare()
                return lora
            """, "if (lora.extra")

    def test_a_body_left_empty_gets_pass(self) -> None:
        self.check("""
            def check(self, lora):
                if lora.extra_vocab_size > self.config.extra_vocab_size: raise ValueError("too big")
            """, """
            def check(self, lora):
                pass
            """, "if lora")


def _untouched(before: str, line: int) -> str:
    after, outcome = run_codemod(before, "drop_check", line=line, args={"guard": GUARD})
    assert after == before and outcome.status == "not_found", outcome
    return outcome.reason


def test_another_test_is_the_consumers_own_logic() -> None:
    _untouched(src("""
        if lora.extra_vocab_size >= self.config.extra_vocab_size:
            raise ValueError("too big")
        """), 1)


def test_a_body_that_does_more_than_raise_stays() -> None:
    _untouched(src("""
        if lora.extra_vocab_size > self.config.extra_vocab_size:
            log("too big")
            raise ValueError("too big")
        """), 1)


def test_an_else_branch_stays() -> None:
    _untouched(src("""
        if lora.extra_vocab_size > self.config.extra_vocab_size:
            raise ValueError("too big")
        else:
            grow(lora)
        """), 1)


BEFORE = {"gizmo/lora.py": """
    class LoRAConfig:
        def __init__(self) -> None:
            self.extra_vocab_size = 256


    class LoRAModel:
        def __init__(self) -> None:
            self.extra_vocab_size = 0


    class Manager:
        def __init__(self, config: LoRAConfig) -> None:
            self.config = config

        def load(self) -> LoRAModel:
            lora = LoRAModel()
            if lora.extra_vocab_size > self.config.extra_vocab_size:
                raise ValueError("too big")
            return lora
    """}
AFTER = {"gizmo/lora.py": """
    class LoRAConfig:
        def __init__(self) -> None:
            self.rank = 8


    class LoRAModel:
        def __init__(self) -> None:
            self.rank = 8


    class Manager:
        def __init__(self, config: LoRAConfig) -> None:
            self.config = config

        def load(self) -> LoRAModel:
            lora = LoRAModel()
            return lora
    """}
CONSUMER = {"app/load.py": """
    from gizmo.lora import LoRAConfig, LoRAModel


    class MyManager:
        def __init__(self, config: LoRAConfig) -> None:
            self.config = config

        def load(self) -> LoRAModel:
            lora = LoRAModel()
            if lora.extra_vocab_size > self.config.extra_vocab_size:
                raise ValueError("too big")
            return lora
    """}


def test_the_check_the_target_deleted_from_its_own_function_is_deleted(tmp_path):
    found = findings_of(tmp_path, Case("own-check", BEFORE, AFTER, CONSUMER))
    line = line_of(CONSUMER["app/load.py"], "if lora.extra")
    at = [f for f in found if f.rule_id == "DRIFT060" and f.consumer_site.line == line]
    assert at, [(f.rule_id, f.consumer_site.line) for f in found]
    for f in at:
        assert f.fix.codemod == "drop_check" and f.fix.tier == "safe", f.fix
        assert f.fix.args == {"guard": "lora.extra_vocab_size > self.config.extra_vocab_size"}
        assert "as the target deleted it from its own `load`" in f.fix.description


def test_a_check_the_target_still_makes_is_no_evidence(tmp_path):
    after = {"gizmo/lora.py": AFTER["gizmo/lora.py"].replace(
        "            lora = LoRAModel()\n            return lora",
        "            lora = LoRAModel()\n            if lora.extra_vocab_size > self.config.extra_vocab_size:\n"
        "                raise ValueError(\"too big\")\n            return lora")}
    found = findings_of(tmp_path, Case("own-check-kept", BEFORE, after, CONSUMER))
    line = line_of(CONSUMER["app/load.py"], "if lora.extra")
    at = [f for f in found if f.rule_id == "DRIFT060" and f.consumer_site.line == line]
    assert at and all(f.fix.codemod != "drop_check" for f in at), [f.fix for f in at]


def test_a_plain_read_elsewhere_is_not_offered_the_deletion(tmp_path):
    consumer = {"app/load.py": CONSUMER["app/load.py"] + """

        def size(self) -> int:
            lora = LoRAModel()
            return lora.extra_vocab_size
    """}
    found = findings_of(tmp_path, Case("own-check-read", BEFORE, AFTER, consumer))
    line = line_of(consumer["app/load.py"], "return lora.extra_vocab_size")
    at = [f for f in found if f.rule_id == "DRIFT060" and f.consumer_site.line == line]
    assert at and all(f.fix.codemod != "drop_check" for f in at), [f.fix for f in at]
    check = line_of(consumer["app/load.py"], "if lora.extra")
    assert any(f.fix.codemod == "drop_check" for f in found if f.consumer_site.line == check)
