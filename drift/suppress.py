"""Silencing findings the way linters do: comments, --select/--ignore, config, an accepted file.

Why: a CI gate nobody can quiet on a finding the team has judged harmless gets switched off.
So every way of silencing is explicit and counted: the report keeps each silenced finding with
what silenced it, and every format says how many were silenced and by what.

Precedence (the first that matches names the reason): a `# drift: ignore[...]` comment on the
consumer's line, then the rule selection (`--select`, `--ignore`, `[tool.drift] select/ignore`;
the most specific code wins, as in ruff), then `per_file_ignores`, then the accepted file.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import io
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from drift.findings import Finding, Report, Severity, Silenced, Unused
from drift.output import visible, write_text
from drift.inputs import InputTooLarge, JsonError, loads_bounded, read_bounded

ACCEPTED_SCHEMA = "drift.accepted/1"
ACCEPTED_LIMIT = 64 * 1024 * 1024  # bytes read of an accepted-findings file (a device never ends)
CODE = re.compile(r"^(ALL|[A-Z][A-Z0-9]*)$")
_COMMENT = re.compile(r"#\s*drift:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)

SourceLines = Callable[[str], "Sequence[str] | None"]  # consumer path -> its lines, or None


class SuppressError(ValueError):
    """A rule code or an accepted file that cannot be used; the message names it."""


def parse_codes(values: Iterable[str], *, what: str) -> tuple[str, ...]:
    """`DRIFT050`, `DRIFT05`, `VLLM`, `ALL`; comma-separated values are split (as in ruff)."""
    out: list[str] = []
    for value in values:
        for code in (c.strip() for c in str(value).split(",")):
            if not code:
                continue
            if not CODE.match(code.upper()):
                raise SuppressError(f"{what}: {code!r} is not a rule id or prefix (e.g. DRIFT050, DRIFT0, VLLM, ALL)")
            out.append(code.upper())
    return tuple(out)


def check_known(codes: Iterable[str], known: Iterable[str], *, what: str) -> None:
    """SuppressError naming the first code that is no rule id and no prefix of one, with the
    nearest real ids (difflib). Why: `--select DRIFT999` would otherwise select nothing and
    turn the gate green, and `ignore = ["DRFT080"]` would silence nothing without a word."""
    ids = sorted(set(known))
    for code in codes:
        if code == "ALL" or any(i.startswith(code) for i in ids):
            continue
        if ids and len(code) < min(map(len, ids)):  # a prefix (DRFT0): near the ids cut one longer
            near = difflib.get_close_matches(code, sorted({i[:len(code) + 1] for i in ids}), n=3, cutoff=0.6)
        else:
            near = difflib.get_close_matches(code, ids, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(near)}?" if near else f"; rule ids look like {ids[0]} (drift explain lists them)"
        raise SuppressError(f"{what}: unknown rule code {code!r}{hint}")


def _specificity(rule_id: str, codes: Sequence[str]) -> int:
    """Length of the longest code that matches (ALL matches with 0), -1 when none does."""
    best = -1
    for code in codes:
        if code == "ALL":
            best = max(best, 0)
        elif rule_id.startswith(code):
            best = max(best, len(code))
    return best


@dataclass(frozen=True)
class Policy:
    """Everything that can silence a finding in one run; built by the CLI from flags + config."""

    select: tuple[str, ...] = ()  # empty = every rule
    ignore: tuple[str, ...] = ()  # --ignore
    config_ignore: tuple[str, ...] = ()  # [tool.drift] ignore
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # glob -> codes
    accepted: frozenset[str] = frozenset()  # fingerprints from --accepted / [tool.drift] accepted
    accepted_info: Mapping[str, str] = field(default_factory=dict)  # fingerprint -> "RULE path symbol"
    comments: bool = True
    path_prefixes: tuple[str, ...] = ()  # where the consumer root sits relative to the config file
    strict: bool = False  # unused suppressions fail the run (--strict / strict = true)

    def reason(self, finding: Finding, comment_codes: tuple[str, ...] | None) -> str | None:
        rid = finding.rule_id
        if comment_codes is not None and (not comment_codes or _specificity(rid, comment_codes) >= 0):
            return "comment"
        selected = _specificity(rid, self.select) if self.select else 0
        cli, cfg = _specificity(rid, self.ignore), _specificity(rid, self.config_ignore)
        if selected < 0:
            return "--select"
        if max(cli, cfg) >= selected and max(cli, cfg) >= 0:
            return "--ignore" if cli >= cfg else "config ignore"
        paths = [finding.consumer_site.path] + [f"{p.rstrip('/')}/{finding.consumer_site.path}" for p in self.path_prefixes]
        for pattern, codes in self.per_file_ignores.items():
            if any(fnmatch.fnmatchcase(p, pattern) for p in paths) and _specificity(rid, codes) >= 0:
                return "per-file-ignores"
        if finding.fingerprint in self.accepted:
            return "accepted"
        return None


def comment_codes(line: str) -> tuple[str, ...] | None:
    """The codes of a `# drift: ignore[...]` comment ((), = every rule), None without one."""
    match = _COMMENT.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    return tuple(c.strip().upper() for c in codes.split(",") if c.strip()) if codes is not None else ()


def comments_by_line(text: str) -> dict[int, str]:
    """line -> comment text, from the tokenizer so a `#` inside a string is not a comment."""
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # a file the tokenizer rejects (the consumer may target a newer Python): plain text
        return {i: line[line.index("#"):] for i, line in enumerate(text.splitlines(), 1) if "#" in line}
    return out


def local_source(root: str | os.PathLike[str] | None) -> SourceLines:
    """Reads consumer files under `root` (cached), refusing paths that leave it."""
    cache: dict[str, list[str] | None] = {}
    base = Path(root).resolve() if root else None

    def read(path: str) -> list[str] | None:
        if base is None:
            return None
        if path not in cache:
            file = (base / path).resolve()
            try:
                file.relative_to(base)
                cache[path] = file.read_text(encoding="utf-8", errors="replace").splitlines()
            except (ValueError, OSError):
                cache[path] = None
        return cache[path]

    return read


def _comments(source: SourceLines | None) -> Callable[[str], dict[int, str]]:
    cache: dict[str, dict[int, str]] = {}

    def get(path: str) -> dict[int, str]:
        if path not in cache:
            lines = source(path) if source else None
            cache[path] = comments_by_line("\n".join(lines) + "\n") if lines else {}
        return cache[path]

    return get


def enrich(finding: Finding, source: SourceLines | None, comments: dict[int, str] | None = None) -> Finding:
    """The consumer's own source line (comment left out) as the site's snippet, and its start
    column when the rule gave none.

    Why the whole line: fingerprints hash the snippet, and a rule's snippet may be just the
    callee's name, which every call of it in the file shares; the line tells calls apart, and
    it is what a reader wants to see at the site.
    """
    site = finding.consumer_site
    lines = source(site.path) if source else None
    if not lines or not 1 <= site.line <= len(lines):
        return finding
    raw = lines[site.line - 1]
    comment = (comments or {}).get(site.line)
    code = raw[: raw.rfind(comment)] if comment and comment in raw else raw
    snippet = code.strip() or site.snippet
    col = site.col or (len(raw) - len(raw.lstrip()) + 1)
    if snippet == site.snippet and col == site.col:
        return finding
    return dataclasses.replace(finding, consumer_site=dataclasses.replace(site, snippet=snippet, col=col))


def _may_comment(finding: Finding, source: SourceLines | None) -> bool:
    """Whether the finding's line holds a `#` at all: only then is its file tokenized (a big
    plugin has hundreds of files with findings, and the tokenizer was a quarter of a warm check)."""
    lines = source(finding.consumer_site.path) if source else None
    line = finding.consumer_site.line
    return bool(lines) and 1 <= line <= len(lines) and "#" in lines[line - 1]


def apply(report: Report, policy: Policy, *, source: SourceLines | None = None,
          fail_on: Severity | None = None) -> Report:
    """The report with silenced findings moved to `report.silenced`, each with its reason."""
    comments = _comments(source)
    kept: list[Finding] = []
    silenced = list(report.silenced)
    for finding in report.findings:
        in_file = comments(finding.consumer_site.path) if _may_comment(finding, source) else {}
        finding = enrich(finding, source, in_file)
        site = finding.consumer_site
        text = in_file.get(site.line) if policy.comments else None
        why = policy.reason(finding, comment_codes(text) if text else None)
        if why is None:
            kept.append(finding)
        else:
            silenced.append(Silenced(finding, why))
    return dataclasses.replace(report, findings=tuple(kept), silenced=tuple(silenced),
                               fail_on=fail_on or report.fail_on)


def unused_suppressions(reports: Sequence[Report], policy: Policy, *, source: SourceLines | None,
                        known: Iterable[str]) -> tuple[Unused, ...]:
    """Inline comments (or codes in them) and accepted entries that silenced no finding in any
    of `reports` (one consumer against several targets: used on one target is used).

    Comments are read in every consumer file the check read (`report.files`), so a comment
    whose finding is gone is found too; an unknown code in one is a SuppressError, like one
    in --ignore."""
    known = tuple(known)
    out: list[Unused] = []
    if policy.comments and source is not None:
        by_line: dict[tuple[str, int], set[str]] = {}
        for r in reports:
            for s in r.silenced:
                if s.by == "comment":
                    by_line.setdefault((s.finding.consumer_site.path, s.finding.consumer_site.line), set()).add(
                        s.finding.rule_id)
        files = sorted({p for r in reports for p in r.files} | {p for p, _ in by_line})
        comments = _comments(source)
        for path in files:
            lines = source(path)
            if not lines or not any(_COMMENT.search(x) for x in lines if "drift" in x.lower()):
                continue  # no comment can be there: skip the tokenizer (hundreds of files in a big plugin)
            for line, text in sorted(comments(path).items()):
                codes = comment_codes(text)
                if codes is None:
                    continue
                shown = f"`# drift: ignore[{', '.join(codes)}]`" if codes else "`# drift: ignore`"
                check_known([c for c in codes if CODE.match(c)], known, what=f"{path}:{line}: {shown}")
                bad = [c for c in codes if not CODE.match(c)]
                if bad:
                    raise SuppressError(f"{path}:{line}: {shown}: {bad[0]!r} is not a rule id or prefix")
                rules = by_line.get((path, line), set())
                if not codes and not rules:
                    out.append(Unused(f"unused {shown}: no finding on this line", path, line))
                for code in codes:
                    if not any(_specificity(rid, (code,)) >= 0 for rid in rules):
                        out.append(Unused(f"unused {code} in {shown}: no {code} finding on this line", path, line))
    used = {s.finding.fingerprint for r in reports for s in r.silenced if s.by == "accepted"}
    for fp in sorted(policy.accepted - used, key=lambda f: (policy.accepted_info.get(f, ""), f)):
        out.append(Unused(f"accepted entry {policy.accepted_info.get(fp) or fp} matches no finding (fingerprint {fp})"))
    return tuple(out)


def silenced_summary(report_or_reports: Report | Sequence[Report]) -> str:
    """'3 silenced (2 by comment, 1 accepted)', or '' when nothing was."""
    reps = [report_or_reports] if isinstance(report_or_reports, Report) else list(report_or_reports)
    tally = Counter(s.by for r in reps for s in r.silenced)
    if not tally:
        return ""
    parts = [f"{n} {'' if by == 'accepted' else 'by '}{by}" for by, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))]
    return f"{sum(tally.values())} silenced ({', '.join(parts)})"


# -- the accepted-findings file ------------------------------------------------------------------

def load_accepted(path: str | os.PathLike[str]) -> frozenset[str]:
    return frozenset(load_accepted_entries(path))


def load_accepted_entries(path: str | os.PathLike[str]) -> dict[str, str]:
    """fingerprint -> 'RULE path `symbol`' (what an unused entry is called in a warning)."""
    try:
        data = loads_bounded(read_bounded(path, limit=ACCEPTED_LIMIT, what=f"accepted-findings file {visible(path)}"),
                             what=f"accepted-findings file {visible(path)}")
    except FileNotFoundError:
        raise SuppressError(f"accepted-findings file {visible(path)} does not exist (write one with --write-accepted)") from None
    except IsADirectoryError:
        raise SuppressError(f"accepted-findings file {visible(path)} is a directory") from None
    except OSError as exc:
        raise SuppressError(f"cannot read accepted-findings file {visible(path)}: {exc.strerror or exc}") from None
    except (JsonError, InputTooLarge) as exc:
        raise SuppressError(str(exc)) from None
    if not isinstance(data, dict) or data.get("schema") != ACCEPTED_SCHEMA or not isinstance(data.get("findings"), list):
        raise SuppressError(f"{path} is not a {ACCEPTED_SCHEMA} file (write one with --write-accepted)")
    entries = [e for e in data["findings"] if isinstance(e, dict)]
    if not all(isinstance(e.get("fingerprint"), str) and e["fingerprint"] for e in entries):
        raise SuppressError(f"{path}: every entry needs a fingerprint")
    return {e["fingerprint"]: " ".join(str(e[k]) if k != "symbol" else f"`{e[k]}`" for k in ("rule", "path", "symbol")
                                       if e.get(k)) or e["fingerprint"] for e in entries}


def accepted_document(findings: Iterable[Finding]) -> str:
    """Byte-stable JSON: one entry per fingerprint, sorted, readable in a code review."""
    entries: dict[str, dict[str, str | None]] = {}
    for f in findings:
        entries.setdefault(f.fingerprint, {
            "fingerprint": f.fingerprint, "rule": f.rule_id, "path": f.consumer_site.path,
            "symbol": f.symbol, "snippet": f.consumer_site.snippet, "title": f.title,
        })
    ordered = sorted(entries.values(), key=lambda e: (e["path"] or "", e["rule"] or "", e["fingerprint"] or ""))
    return json.dumps({"schema": ACCEPTED_SCHEMA, "findings": ordered}, indent=2, ensure_ascii=False) + "\n"


def write_accepted(path: str | os.PathLike[str], reports: Sequence[Report]) -> int:
    """Record every finding still reported; returns how many fingerprints were written."""
    findings = [f for r in reports for f in r.findings]
    write_text(Path(path), accepted_document(findings))
    return len({f.fingerprint for f in findings})

