"""The statement spans `python -m tests.corpus_score --by-statement` matches breaks by, and the scorer's
verdict on a report whose rule failed."""

from tests.corpus_score import statement_spans

SOURCE = '''\
from vllm.x import (
    a,
    b,
)


@decorated
def f(
    x,
):
    return Router(
        top_k=1,
        enable_eplb=x,
    )
'''


def test_a_multi_line_call_or_import_is_one_statement_and_a_def_only_its_header():
    spans = statement_spans(SOURCE)
    assert spans[1] == spans[3] == (1, 4)          # the import, name lines included
    assert spans[7] == spans[9] == (7, 10)         # decorator and signature, not the body
    assert spans[11] == spans[13] == (11, 14)      # the return's call, keyword lines included
    assert 5 not in spans                          # a blank line belongs to no statement


def test_source_that_does_not_parse_has_no_spans():
    assert statement_spans("def (:\n") == {}


def _outcome(incomplete):
    from types import SimpleNamespace
    from drift.findings import Report
    return SimpleNamespace(report=Report(consumer={}, target={}, baseline=None, findings=(), incomplete=incomplete))


def test_a_report_whose_rule_failed_scores_as_an_error():
    """A rule that raised leaves its findings out: the score is an error, never a clean figure,
    so `corpus_score` and the floor check cannot pass a crashed run."""
    from tests.corpus_score import _scored
    gt = {"breaks": [{"id": "b", "path": "m.py", "line": 3}]}
    failed = _scored("x", gt, _outcome(("rule DRIFT999 failed: KeyError: 'k'",)), [], gt["breaks"], set())
    assert failed.error == "rule DRIFT999 failed: KeyError: 'k'"
    assert _scored("x", gt, _outcome(()), [], gt["breaks"], set()).error is None


def test_unknown_corpus_name_is_a_clear_error(capsys):
    """A mistyped name must say so and exit 2, not raise FileNotFoundError from deep in the loader."""
    from tests.corpus_score import main

    assert main(["no_such_consumer_xyz"]) == 2
    assert "no such corpus file: no_such_consumer_xyz" in capsys.readouterr().err
