"""Terminal renderer: compact seed case on one screen, verdict, environment, fleet table."""

from __future__ import annotations

import io
import dataclasses

import pytest
from rich.console import Console

from drift.findings import Report
from drift.reports.terminal import FleetRow, render, render_summary_table
from tests import report_samples as S


def _text(report: Report, *, width: int = 120, verbose: bool = False, wrap: bool = True) -> str:
    """As on a terminal of `width` columns (wrap=True), or as piped (wrap=False)."""
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    render(report, console, verbose=verbose, wrap=wrap)
    return console.export_text()


@pytest.mark.parametrize("width", [80, 100, 120, 160])
def test_terminal_wraps_within_width_and_loses_nothing(width: int) -> None:
    wrapped = _text(S.seed_report(), width=width)
    lines = wrapped.splitlines()
    assert all(len(line) <= width for line in lines)
    if width >= 120:
        assert len(lines) <= 50  # the seed case still fits one screen
    whole = _text(S.seed_report(), width=width, wrap=False)
    assert "".join(wrapped.split()) == "".join(whole.split())  # the same text, only folded
    assert "…" not in wrapped


def test_header_names_consumer_target_baseline_host_and_env() -> None:
    head = "\n".join(_text(S.seed_report()).splitlines()[:3])
    for piece in ("speculators 0.3.0", "vllm 0.16.0 (9f1e2d3c4b5a)", "baseline vllm 0.11.0", "gpu-01",
                  "python 3.12.3", "torch 2.9.0", "CUDA 12.8", "8× NVIDIA H100 80GB HBM3"):
        assert piece in head


def test_every_finding_shows_rule_site_evidence_failure_and_fix() -> None:
    text = _text(S.seed_report(), width=200)
    for f in S.SEED_FINDINGS:
        assert f.rule_id in text
        assert f"{f.consumer_site.path}:{f.consumer_site.line}" in text
        assert f"{f.target_evidence[0].path}:{f.target_evidence[0].line}" in text
        assert f"{f.baseline_evidence[0].path}:{f.baseline_evidence[0].line}" in text
    assert "fix unsafe (--unsafe-fixes): drop the keyword argument 'kv_cache_specs'" in text
    assert "fix manual: index the reply by rank" in text
    assert "which rank holds" not in text  # why it is manual: only under -v
    assert "fix manual: index the reply by rank (which rank holds" in _text(S.seed_report(), width=200, verbose=True)
    assert "TypeError: Scheduler.__init__() takes 2 positional arguments" in text


def test_groups_worst_first_and_ends_with_verdict() -> None:
    lines = _text(S.seed_report()).splitlines()
    headings = [line for line in lines if line.split(" (")[0] in ("BREAKING", "RISKY", "INFO")]
    assert headings == ["BREAKING (5)", "RISKY (2)", "INFO (1)"]
    assert lines[-1] == "verdict: 5 breaking, 2 risky — do not launch"


def test_clean_and_risky_only_verdicts() -> None:
    assert _text(S.clean_report()).splitlines()[-1] == "verdict: clean"
    risky_only = dataclasses.replace(S.clean_report(), findings=(S.RETURN_SHAPE,))
    assert _text(risky_only).splitlines()[-1] == "verdict: 1 risky — review before launch"


def test_verbose_adds_details_every_evidence_and_key() -> None:
    text = _text(S.seed_report(), verbose=True, wrap=False)
    assert "vllm/v1/worker/gpu_model_runner.py:2950" in text  # third piece of evidence
    assert "prefix caching is on by default" in text  # details
    assert S.TWO_PHASE.key in text
    assert "note: speculators/utils/vllm_compat.py" in text


def test_text_from_findings_is_not_read_as_markup() -> None:
    odd = dataclasses.replace(S.RETURN_SHAPE, title="returns [bold]list[int][/bold] now")
    text = _text(dataclasses.replace(S.clean_report(), findings=(odd,)))
    assert "returns [bold]list[int][/bold] now" in text


def test_fleet_summary_table() -> None:
    console = Console(file=io.StringIO(), width=120, record=True, color_system=None)
    render_summary_table(
        [
            {"host": "gpu-02", "status": "unreachable", "detail": "connection refused"},
            FleetRow(host="gpu-01", status="drift", vllm="0.16.0", breaking=5, detail="do not launch"),
            {"host": "gpu-03", "status": "ok", "vllm": "0.11.0", "breaking": 0},
        ],
        console,
    )
    rows = [line for line in console.export_text().splitlines() if line.strip().startswith("gpu-")]
    assert [r.split()[0] for r in rows] == ["gpu-01", "gpu-02", "gpu-03"]
    assert "drift" in rows[0] and "0.16.0" in rows[0] and " 5 " in rows[0]
    assert "unreachable" in rows[1] and "connection refused" in rows[1]
