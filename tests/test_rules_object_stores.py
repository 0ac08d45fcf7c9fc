"""DRIFT062 on a field set on a target object that is no class or module: a module-level instance
of the target, or a copy of one (vllm-ascend 0.10.0rc1 set `finished_sending` on
`copy.copy(EMPTY_MODEL_RUNNER_OUTPUT)` after vLLM 0.10.1 moved the field into
`kv_connector_output`: the scheduler never saw the finished sends)."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of

BEFORE = {"gizmo/outputs.py": """
    from dataclasses import dataclass


    @dataclass
    class Out:
        ids: list
        finished_sending: set = None
        finished_recving: set = None


    # longer than the facts keep a value's text: the class that builds it is kept apart
    EMPTY = Out(ids=[],
                finished_sending=None,
                finished_recving=None)  # no finished transfers, no sampled tokens, no requests
    """}
AFTER = {"gizmo/outputs.py": """
    from dataclasses import dataclass


    @dataclass
    class KVOut:
        finished_sending: set = None
        finished_recving: set = None


    @dataclass
    class Out:
        ids: list
        kv_output: KVOut = None


    EMPTY = Out(ids=[],
                kv_output=None)  # an empty step: no finished transfers, no sampled tokens, no requests
    """}
CONSUMER = """
    import copy
    from gizmo.outputs import EMPTY, Out


    def no_forward(done):
        output = copy.copy(EMPTY)
        output.finished_sending = done
        output.ids = []
        return output


    def shared(done):
        EMPTY.finished_recving = done


    def mine(done):
        Out.describe = str
    """


def test_a_field_set_on_a_module_level_instance_or_its_copy_is_lost(tmp_path):
    found = findings_of(tmp_path, Case("copy", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    # the copy and the shared instance both lose their field; a field kept, and a name set on the
    # class itself (a patch, judged by the patch rules), are not this rule's
    assert_findings(found, [("DRIFT062", line_of(CONSUMER, "output.finished_sending = done")),
                            ("DRIFT062", line_of(CONSUMER, "EMPTY.finished_recving = done"))])
    assert all(f.severity.value == "risky" and "`Out." in f.title for f in found)


def test_a_field_the_consumer_reads_back_is_not_lost(tmp_path):
    reads = CONSUMER + """

    def sent(o: Out):
        return o.finished_sending
    """
    found = findings_of(tmp_path, Case("read", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": reads}))
    assert [f.consumer_site.line for f in found if f.rule_id == "DRIFT062"] == \
        [line_of(reads, "EMPTY.finished_recving = done")]
