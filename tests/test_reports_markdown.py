"""Markdown for PR comments: verdict first, a well-formed table, details folded away."""

from __future__ import annotations

import dataclasses
import re

from drift.reports.markdown import matrix_markdown, to_markdown
from tests import report_samples as S


def _table_rows(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("|")]


def _cells(row: str) -> int:
    return len(re.split(r"(?<!\\)\|", row)) - 2


def test_verdict_line_first_then_context() -> None:
    md = to_markdown(S.seed_report())
    first = md.splitlines()[0]
    assert first.startswith("❌ **drift: 5 breaking, 2 risky — do not launch**")
    assert "host `gpu-01`" in md and "CUDA 12.8" in md and "baseline **vllm 0.11.0**" in md


def test_table_has_one_row_per_finding_and_stays_well_formed() -> None:
    odd = dataclasses.replace(S.RETURN_SHAPE, title="returns a | b now", symbol="vllm.odd.f")  # its own cause
    report = dataclasses.replace(S.seed_report(), findings=S.SEED_FINDINGS + (odd,))
    rows = _table_rows(to_markdown(report))
    assert len(rows) == 2 + len(report.findings)
    assert len({_cells(r) for r in rows}) == 1
    assert any("returns a \\| b now" in r for r in rows)
    keyword = next(r for r in rows if "DRIFT101" in r)
    for piece in (f"{S.GEN}:139", "vllm/v1/core/kv_cache_utils.py:1069", "vllm/v1/core/kv_cache_utils.py:1004", "unsafe (--unsafe-fixes): drop the keyword"):
        assert piece in keyword
    manual = next(r for r in rows if "DRIFT301" in r and "a \\| b" not in r)
    assert "manual: index the reply by rank |" in manual  # the table says the edit; why manual is in the details


def test_details_are_collapsible_and_complete() -> None:
    md = to_markdown(S.seed_report())
    assert md.count("<details>") == md.count("</details>") == 2  # findings, notes
    details = md.split("<details><summary>Details of 8 findings</summary>")[1]
    for f in S.SEED_FINDINGS:
        assert f"#### `{f.rule_id}` {f.title}" in details
        if f.predicted_failure:
            assert f.predicted_failure in details


def test_clean_report() -> None:
    md = to_markdown(S.clean_report())
    assert md.startswith("✅ **drift: clean**")
    assert "No drift in the 18 uses checked." in md and "|" not in md


def test_matrix_has_a_column_per_target_and_rows_that_drift() -> None:
    md = matrix_markdown(S.matrix_reports())
    assert "Overall: 1 of 3 targets clean · worst: vllm 0.16.0 @ gpu-01" in md
    header = next(r for r in _table_rows(md) if r.startswith("| Consumer use"))
    assert header.count("vllm 0.") == 3
    rows = [r for r in _table_rows(md) if r.startswith("| `vllm.")]
    assert len(rows) == 8  # uses that drift on at least one target
    kv = next(r for r in rows if "get_kv_cache_config_from_groups` @" in r)
    assert kv.endswith("| ✅ ok | 🔴 breaking (DRIFT101) | 🔴 breaking (DRIFT101) |")
    assert md.count("<details>") == md.count("</details>")
