"""One self-contained HTML page: the consumer × target compatibility matrix.

Everything is inline (CSS, a few lines of JS, no fonts or images) so the file can be
attached to a CI run or mailed and still render offline. Each cell says its status in words
as well as colour, carries a plain-text title for hover, and opens (<details>) to show the
evidence, predicted failure and fix.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from drift import __version__
from drift.findings import Finding, Report
from drift.output import html as escape  # HTML's escaping, controls shown: one function per sink

from drift.reports.groups import shared_causes
from drift.reports._common import evidence_text, fix_text, header_notes, overall_verdict, party, verdict
from drift.reports.matrix import Cell, Matrix, build_matrix

SYMBOL = {"ok": "✓", "info": "ℹ", "risky": "⚠", "breaking": "✗", "unchecked": "–"}
LABEL = {"ok": "ok", "info": "info", "risky": "risky", "breaking": "breaking", "unchecked": "not checked"}

CSS = """
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); background: var(--bg); margin: 24px; }
h1 { font-size: 22px; margin: 0 0 6px; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
.meta { color: var(--muted); margin: 0 0 4px; }
.meta b { color: var(--fg); }
.verdict { font-size: 16px; font-weight: 600; margin: 10px 0 14px; }
.caveat { margin: 4px 0; color: #8a5300; }
.legend span { margin-right: 10px; }
.controls { margin: 8px 0 12px; }
table.matrix { border-collapse: separate; border-spacing: 0; width: 100%; table-layout: fixed; }
.matrix col.use-col { width: 34%; }
.matrix code, .matrix .mono { overflow-wrap: break-word; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; text-align: left; }
.matrix thead th { position: sticky; top: 0; background: #f6f8fa; border-bottom: 2px solid var(--line); z-index: 1; }
.matrix th.use { font-weight: normal; }
.matrix th.use .site { color: var(--muted); display: block; }
.counts { display: block; font-weight: normal; color: var(--muted); font-size: 12px; }
.col-verdict { display: block; font-size: 12px; }
.cell { border-left: 4px solid transparent; overflow-wrap: anywhere; }
.s-ok { background: #e6f4ea; color: #14532d; border-left-color: #2da44e; }
.s-info { background: #ddf4ff; color: #0a3069; border-left-color: #0969da; }
.s-risky { background: #fff8c5; color: #4d2d00; border-left-color: #bf8700; }
.s-breaking { background: #ffebe9; color: #82071e; border-left-color: #cf222e; }
.s-unchecked { background: #f6f8fa; color: #57606a; border-left-color: #8c959f; }
.badge { font-weight: 700; white-space: nowrap; }
details summary { cursor: pointer; }
details .finding { margin: 6px 0 0; padding: 6px 0 0; border-top: 1px dashed currentColor; color: var(--fg); }
details .finding p { margin: 2px 0; }
.k { color: var(--muted); }
tr.clean.hide { display: none; }
tr.filtered { display: none; }
.controls select, .controls input[type=search] { font: inherit; margin-right: 8px; }
.causes { margin: 6px 0 12px; padding-left: 20px; }
footer { color: var(--muted); margin-top: 16px; font-size: 12px; }
"""

JS = """
(function () {
  var rule = document.getElementById('filter-rule'), file = document.getElementById('filter-file'),
      text = document.getElementById('filter-text');
  var params = new URLSearchParams(location.hash.slice(1));
  rule.value = params.get('rule') || ''; file.value = params.get('file') || ''; text.value = params.get('q') || '';
  function apply() {
    var r = rule.value, f = file.value, q = text.value.trim().toLowerCase(), shown = 0;
    document.querySelectorAll('tr.use-row').forEach(function (tr) {
      var ok = (!r || (' ' + tr.dataset.rules + ' ').indexOf(' ' + r + ' ') >= 0) &&
               (!f || tr.dataset.file === f) && (!q || tr.textContent.toLowerCase().indexOf(q) >= 0);
      tr.classList.toggle('filtered', !ok);
      if (ok) { shown += 1; }
    });
    document.getElementById('filter-count').textContent = (r || f || q) ? shown + ' shown' : '';
    var p = new URLSearchParams();
    if (r) { p.set('rule', r); } if (f) { p.set('file', f); } if (q) { p.set('q', q); }
    history.replaceState(null, '', p.toString() ? '#' + p.toString() : location.pathname + location.search);
  }
  [rule, file].forEach(function (el) { el.addEventListener('change', apply); });
  text.addEventListener('input', apply);
  if (rule.value || file.value || text.value) {  // a shared link's filter: every row it names, clean or not
    document.getElementById('only-drift').checked = false;
    document.querySelectorAll('tr.clean').forEach(function (tr) { tr.classList.remove('hide'); });
  }
  apply();
})();
document.getElementById('only-drift').addEventListener('change', function (e) {
  document.querySelectorAll('tr.clean').forEach(function (tr) { tr.classList.toggle('hide', e.target.checked); });
});
document.getElementById('expand-all').addEventListener('click', function () {
  var open = this.getAttribute('aria-pressed') !== 'true';
  document.querySelectorAll('table.matrix details').forEach(function (d) { d.open = open; });
  this.setAttribute('aria-pressed', open ? 'true' : 'false');
  this.textContent = open ? 'Collapse all' : 'Expand all';
});
"""



def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _breakable(text: str) -> str:
    """Escaped, with line-break chances after '/' and '.' so long paths wrap at separators."""
    return escape(text).replace("/", "/<wbr>").replace(".", ".<wbr>")


def _prose(text: str) -> str:
    """Escaped, with `backtick` spans (rules write titles that way) shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _finding_html(finding: Finding) -> str:
    site = finding.consumer_site
    rows = [
        f'<p><b>{escape(finding.rule_id)}</b> {_prose(finding.title)}</p>',
        f'<p><span class="k">consumer</span> <code>{_breakable(str(site))}</code>'
        + (f" <code>{escape(site.snippet)}</code>" if site.snippet else "")
        + "</p>",
        f'<p><span class="k">target</span> <code>{_breakable(evidence_text(finding.target_evidence))}</code></p>',
        f'<p><span class="k">baseline</span> <code>{_breakable(evidence_text(finding.baseline_evidence))}</code></p>',
    ]
    if finding.predicted_failure:
        rows.append(f'<p><span class="k">predicted</span> <code>{escape(finding.predicted_failure)}</code></p>')
    fix = fix_text(finding.fix)
    rows.append(f'<p><span class="k">fix</span> {_prose(fix)}</p>')
    return '<div class="finding">' + "".join(rows) + "</div>"


def _title(cell: Cell, column: str) -> str:
    if not cell.findings:
        return f"{column}: {LABEL[cell.status]}"
    parts = [f"{column}: {LABEL[cell.status]}"]
    for f in cell.findings:
        parts.append(f"{f.rule_id} {f.title}")
        if f.predicted_failure:
            parts.append(f"  → {f.predicted_failure}")
        parts.append(f"  fix: {fix_text(f.fix)}")
    return "\n".join(parts)


def _cell_html(cell: Cell, column: str) -> str:
    badge = f'<span class="badge">{SYMBOL[cell.status]} {LABEL[cell.status]}</span>'
    attrs = f'class="cell s-{cell.status}" data-status="{cell.status}" title="{escape(_title(cell, column))}"'
    if not cell.findings:
        return f"<td {attrs}>{badge}</td>"
    rules = escape(", ".join(dict.fromkeys(f.rule_id for f in cell.findings)))
    body = "".join(_finding_html(f) for f in cell.findings)
    return f"<td {attrs}><details><summary>{badge} <span class=\"mono\">{rules}</span></summary>{body}</details></td>"


def _head(matrix: Matrix) -> str:
    cells = ['<th scope="col">Consumer use <span class="counts">symbol @ consumer site</span></th>']
    for column in matrix.columns:
        c = column.counts
        summary = " · ".join(f"{c[s]} {LABEL[s]}" for s in ("breaking", "risky", "info", "ok", "unchecked") if c[s])
        cells.append(
            f'<th scope="col">{escape(column.label)}'
            f'<span class="col-verdict">{escape(verdict(column.report))}</span>'
            f'<span class="counts">uses: {escape(summary)}</span></th>'
        )
    cols = '<colgroup><col class="use-col">' + "<col>" * len(matrix.columns) + "</colgroup>"
    return cols + "<thead><tr>" + "".join(cells) + "</tr></thead>"


def _any_drift(matrix: Matrix) -> bool:
    return any(row.worst not in ("ok", "unchecked") for row in matrix.rows)


def _body(matrix: Matrix) -> str:
    rows = []
    # where something drifts, show those uses first-screen: clean rows start hidden (one click shows them)
    hide = " hide" if _any_drift(matrix) else ""
    for row in matrix.rows:
        clean = f" clean{hide}" if row.worst in ("ok", "unchecked") else ""
        head = (
            f'<th scope="row" class="use"><code>{_breakable(row.symbol)}</code>'
            f'<span class="site mono">{_breakable(row.site.path)}:{row.site.line}</span></th>'
        )
        cells = "".join(_cell_html(cell, col.label) for cell, col in zip(row.cells, matrix.columns))
        rules = " ".join(sorted({f.rule_id for cell in row.cells for f in cell.findings}))
        rows.append(f'<tr class="use-row{clean}" data-rules="{escape(rules)}" data-file="{escape(row.site.path)}">'
                    f'{head}{cells}</tr>')
    return "<tbody>" + "".join(rows) + "</tbody>"


def _filters(matrix: Matrix) -> str:
    """Rule, file and text filters (plain JS above; the URL's #rule=…&file=…&q=… presets them)."""
    rules = sorted({f.rule_id for row in matrix.rows for cell in row.cells for f in cell.findings})
    files = sorted({row.site.path for row in matrix.rows})
    opt = lambda v: f'<option value="{escape(v)}">{escape(v)}</option>'  # noqa: E731
    return (f'<label>rule <select id="filter-rule"><option value="">all</option>{"".join(map(opt, rules))}</select></label>'
            f'<label>file <select id="filter-file"><option value="">all</option>{"".join(map(opt, files))}</select></label>'
            f'<input type="search" id="filter-text" placeholder="filter by text" aria-label="filter by text">'
            f'<span id="filter-count" class="meta" role="status"></span>')


def _causes(reports: Sequence[Report]) -> str:
    """Findings that share one cause, said once above the matrix (each finding once, not per target)."""
    unique = {f.fingerprint: f for r in reports for f in r.findings}
    causes = shared_causes(unique.values())
    if not causes:
        return ""
    items = "".join(f"<li>{len(c.findings)} × {_prose(c.summary)}</li>" for c in causes)
    return f'\n<section aria-label="shared causes"><b>Shared causes</b><ul class="causes">{items}</ul></section>'


def render_matrix(reports: Sequence[Report], *, title: str | None = None, generated: dt.datetime | None = None) -> str:
    """The whole page as a string; `generated` is fixed by tests, now (UTC) otherwise."""
    matrix = build_matrix(reports)
    first = reports[0] if reports else None
    consumer = party(first.consumer) if first else "—"
    page_title = title or f"drift: {consumer} compatibility"
    when = (generated or dt.datetime.now(dt.timezone.utc)).strftime("%Y-%m-%d %H:%M %Z").strip()
    baselines = sorted({party(r.baseline) for r in reports if r.baseline})
    overall = overall_verdict(reports)
    caveats = list(dict.fromkeys(n for r in reports for n in header_notes(r)))
    legend = "".join(
        f'<span class="cell s-{s}" style="padding:2px 6px">{SYMBOL[s]} {LABEL[s]}</span>'
        for s in ("ok", "info", "risky", "breaking", "unchecked")
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="drift {escape(__version__)}">
<title>{escape(page_title)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>{escape(page_title)}</h1>
<p class="meta">consumer <b>{escape(consumer)}</b> · baseline <b>{escape(", ".join(baselines) or "—")}</b>
 · {_n(len(matrix.columns), "target")} · generated {escape(when)}</p>
<p class="verdict" role="status">Overall: {escape(overall)}</p>{"".join(f'<p class="caveat" role="note">⚠️ {_prose(n)}</p>' for n in caveats)}
<p class="legend" aria-label="legend">{legend}</p>
</header>
<div class="controls">
<label><input type="checkbox" id="only-drift"{" checked" if _any_drift(matrix) else ""}> only uses that drift somewhere</label>
<button type="button" id="expand-all" aria-pressed="false">Expand all</button>
{_filters(matrix)}
</div>{_causes(reports)}
<table class="matrix" id="matrix">
<caption class="meta" style="text-align:left">{_n(len(matrix.rows), "consumer use")} × {_n(len(matrix.columns), "target")};
 open a cell for evidence, predicted failure and fix.</caption>
{_head(matrix)}
{_body(matrix)}
</table>
<footer>drift {escape(__version__)} — findings are static: they come from reading the installed source, not running it.</footer>
<script>{JS}</script>
</body>
</html>
"""
