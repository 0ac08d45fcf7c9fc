"""The statement spans `python -m tests.corpus_score --by-statement` matches breaks by."""

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
