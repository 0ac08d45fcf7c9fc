"""Pairing findings with the uses they concern, and the matrix built from it."""

from __future__ import annotations

import dataclasses

from drift.findings import Location, UseChecked
from drift.reports.matrix import build_matrix, use_results
from tests import report_samples as S


def test_finding_inside_a_multiline_call_attaches_to_the_call() -> None:
    results = {r.label: r for r in use_results(S.middle_report())}
    call = results["call vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups"]
    assert call.findings == (S.KEYWORD_REMOVED,)
    # the import of the same name above it is not blamed
    assert results["import vllm.v1.core.kv_cache_utils.get_kv_cache_config_from_groups"].findings == ()


def test_finding_at_a_site_no_use_covers_gets_its_own_entry() -> None:
    results = use_results(S.seed_report())
    orphan = [r for r in results if r.what == "finding"]
    assert len(orphan) == 1 and orphan[0].site.path == S.COMPAT and orphan[0].findings == (S.VANISHED_INFO,)
    assert sum(len(r.findings) for r in results) == len(S.SEED_FINDINGS)


def test_finding_without_symbol_attaches_by_exact_line_only() -> None:
    bare = dataclasses.replace(S.POSITIONAL, symbol=None)
    report = dataclasses.replace(S.clean_report(), findings=(bare,))
    hit = [r for r in use_results(report) if r.findings]
    assert len(hit) == 1 and hit[0].site.line == 148 and hit[0].what == "call"


def test_matrix_cells_and_counts() -> None:
    matrix = build_matrix(S.matrix_reports())
    assert [c.label for c in matrix.columns] == ["vllm 0.11.0", "vllm 0.12.0", "vllm 0.16.0 @ gpu-01"]
    assert len(matrix.rows) == len(S.USES) + 1
    assert matrix.columns[0].counts["ok"] == len(matrix.rows)
    assert matrix.columns[2].counts == {"breaking": 5, "risky": 2, "info": 1, "ok": 11, "unchecked": 0}
    orphan = next(r for r in matrix.rows if r.site.path == S.COMPAT)
    assert [c.status for c in orphan.cells] == ["ok", "ok", "info"]


def test_use_missing_from_one_target_is_unchecked_there() -> None:
    extra = UseChecked("vllm.v1.request.RequestStatus", Location(S.GEN, 22), "import")
    with_extra = dataclasses.replace(S.seed_report(), uses=S.USES + (extra,))
    matrix = build_matrix([S.clean_report(), with_extra])
    row = next(r for r in matrix.rows if r.symbol == "vllm.v1.request.RequestStatus")
    assert [c.status for c in row.cells] == ["unchecked", "ok"]
