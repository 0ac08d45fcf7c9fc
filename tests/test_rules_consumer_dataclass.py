"""A consumer's own `@dataclass` over a target base (synthetic before/after pairs).

Python writes such a class's `__init__` from the fields of the dataclasses in its MRO: the
consumer's own fields always, a target base's fields only while that base is a dataclass, and
never a plain base's `__init__` parameters. So a keyword the consumer class declares itself is
accepted whatever the target did to its base, and a keyword that was only the base's field
breaks when the base stops being a dataclass.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

META_BEFORE = """
    from dataclasses import dataclass


    @dataclass
    class Metadata:
        num_prefills: int
        slot_mapping: list
    """
META_AFTER = """
    class Metadata:
        pass
    """
MINE = """
    from dataclasses import dataclass

    from gizmo.meta import Metadata


    @dataclass
    class MyMetadata(Metadata):
        seq_lens: list = None
        block_tables: list = None


    def build():
        return MyMetadata(
            num_prefills=1,
            slot_mapping=[0],
            seq_lens=[3],
            block_tables=[[0]],
        )
    """


def _case(mine=MINE, before=META_BEFORE, after=META_AFTER):
    return Case("dc", {"gizmo/meta.py": before}, {"gizmo/meta.py": after},
                {"app/__init__.py": "", "app/mine.py": mine})


def test_own_fields_stay_accepted_and_the_base_fields_break(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT010", line_of(MINE, "num_prefills=1")),
                               ("DRIFT010", line_of(MINE, "slot_mapping=[0]"))])
    assert all(f.severity.value == "breaking" for f in findings)
    # Python agrees: the target's MyMetadata refuses the base's old field, not its own ones
    raised = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build()")
    assert raised is not None and "unexpected keyword argument 'num_prefills'" in raised
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine",
                     "MyMetadata(seq_lens=[1], block_tables=[])") is None


PLAIN_BEFORE = """
    class Holder:
        def __init__(self, size, dtype):
            self.size = size
    """
PLAIN_AFTER = """
    class Holder:
        def __init__(self, size):
            self.size = size
    """
MINE_OVER_PLAIN = """
    from dataclasses import dataclass

    from gizmo.meta import Holder


    @dataclass
    class MyHolder(Holder):
        size: int = 0
        dtype: str = "f"


    def build():
        return MyHolder(size=2, dtype="bf16")
    """


def test_a_plain_base_init_does_not_bind_a_consumer_dataclass(tmp_path):
    """The dataclass's generated `__init__` never calls `Holder.__init__`: its dropped `dtype`
    parameter changes nothing for `MyHolder(dtype=...)`."""
    findings = findings_of(tmp_path, _case(MINE_OVER_PLAIN, PLAIN_BEFORE, PLAIN_AFTER))
    assert_findings(findings, [])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", "build()") is None


def test_a_subclass_without_the_decorator_still_binds_through_the_base(tmp_path):
    """Without `@dataclass` the subclass's annotations are plain class attributes: the call binds
    to the target base's constructor, as before."""
    mine = MINE_OVER_PLAIN.replace("    @dataclass\n    class MyHolder", "    class MyHolder")
    assert mine != MINE_OVER_PLAIN
    findings = findings_of(tmp_path, _case(mine, PLAIN_BEFORE, PLAIN_AFTER))
    assert_findings(findings, [("DRIFT010", line_of(mine, "MyHolder(size=2"))])
    assert "unexpected keyword argument 'dtype'" in raised_by([tmp_path / "after", tmp_path / "consumer"],
                                                              "app.mine", "build()")
