"""Map a dead job's last error back to the drift finding that predicted it.

Why: the error a vLLM nightly raises inside speculators rarely names the real cause
("State error: sample_tokens() must be called ..." means execute_model became two-phase).
Two sources, best first: the findings the preflight stored in the run dir (their
`predicted_failure`, consumer site and symbol), and a built-in table of known vLLM failure
messages that says which kind of drift produces each one, for runs launched with --force or
before drift knew the consumer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from drift.findings import Finding, RuleKind

__all__ = ["KNOWN_FAILURES", "Diagnosis", "KnownFailure", "diagnose", "extract_error"]


@dataclass(frozen=True)
class KnownFailure:
    name: str  # short human name of the drift
    pattern: str  # searched in the error text (exception line + traceback)
    kinds: tuple[RuleKind, ...]
    explanation: str
    fix: str


KNOWN_FAILURES: tuple[KnownFailure, ...] = (
    KnownFailure(
        "two-phase protocol",
        r"State error: sample_tokens\(\) must be called after execute_model\(\) returns None",
        (RuleKind.TWO_PHASE_PROTOCOL,),
        "execute_model() now returns None and hands its state to sample_tokens(); "
        "code that uses execute_model()'s return value directly never calls sample_tokens().",
        "call sample_tokens() after execute_model() returns None and use its result",
    ),
    KnownFailure(
        "return-shape change",
        r"Boolean value of Tensor with more than one values? is ambiguous",
        (RuleKind.RETURN_SHAPE,),
        "a value the consumer tests for truth is now a tensor (or a tuple holding one): "
        "the function's return shape changed.",
        "unpack the new return shape before testing it",
    ),
    KnownFailure(
        "Request block hasher",
        r"len\(request\.block_hashes\)",
        (RuleKind.SEMANTIC,),
        "vLLM now asserts that each Request was built with a block hasher, "
        "so request.block_hashes is filled before scheduling.",
        "pass block_hasher= when constructing vllm.v1.request.Request",
    ),
    KnownFailure(
        "keyword removed",
        r"got an unexpected keyword argument '(?P<name>\w+)'",
        (RuleKind.KEYWORD_REMOVED,),
        "a keyword the consumer passes is no longer accepted by the target.",
        "drop or rename the keyword",
    ),
    KnownFailure(
        "new required parameter",
        r"missing \d+ required (?:positional|keyword-only) arguments?: '(?P<name>\w+)'"
        r"|required keyword-only argument",
        (RuleKind.REQUIRED_ADDED,),
        "the target gained a required parameter the consumer does not pass.",
        "pass the new parameter",
    ),
    KnownFailure(
        "too many positional arguments",
        r"takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given",
        (RuleKind.POSITIONAL_ARITY,),
        "the target takes fewer positional parameters than the consumer passes.",
        "pass the trailing arguments by keyword",
    ),
    KnownFailure(
        "import removed or moved",
        r"cannot import name '(?P<name>\w+)'|No module named '(?P<module>[\w.]+)'",
        (RuleKind.IMPORT_REMOVED, RuleKind.IMPORT_MOVED),
        "a name the consumer imports is no longer where it was.",
        "import it from its new module",
    ),
    KnownFailure(
        "attribute or method vanished",
        r"object has no attribute '(?P<name>\w+)'",
        (RuleKind.METHOD_VANISHED,),
        "an attribute or method the consumer uses no longer exists on the target class.",
        "use the renamed attribute",
    ),
)

_EXC_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::.*)?$")
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)')


@dataclass(frozen=True)
class Diagnosis:
    error: str | None  # the exception line, e.g. "RuntimeError: State error: ..."
    traceback: str  # the last traceback, "" when none was found
    known: KnownFailure | None
    findings: tuple[Finding, ...]  # best match first

    @property
    def explained(self) -> bool:
        return self.known is not None or bool(self.findings)


def extract_error(log_text: str) -> tuple[str | None, str]:
    """The last exception line of the log and the traceback that led to it."""
    lines = [seg for line in log_text.splitlines() for seg in line.split("\r")]
    start = max((i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last)")), default=None)
    tail = lines[start:] if start is not None else lines[-40:]
    error = next((ln.strip() for ln in reversed(tail) if _EXC_LINE.match(ln.strip())), None)
    if error is None and start is None:
        return None, ""
    if start is not None and error is not None:
        end = max(i for i, ln in enumerate(tail) if ln.strip() == error) + 1
        tail = tail[:end]
    return error, "\n".join(tail) if start is not None else ""


def _norm(text: str) -> str:
    return re.sub(r"[\s'\"`.]+", " ", text).strip().lower()


def _message(text: str) -> str:
    """The part after `SomeError:`; matching on it survives a different exception prefix."""
    m = re.match(r"^\s*[\w.]+:\s*(.*)$", text, re.S)
    return (m.group(1) if m else text).strip()


def _frames(traceback: str) -> list[tuple[str, int]]:
    return [(m.group("path"), int(m.group("line"))) for m in map(_FRAME.match, traceback.splitlines()) if m]


def _score(finding: Finding, *, error: str, traceback: str, known: KnownFailure | None, names: Sequence[str]) -> int:
    score = 0
    predicted = finding.predicted_failure or ""
    if predicted:
        pm, em = _norm(_message(predicted)), _norm(_message(error))
        if pm and em and (pm in em or em in pm):
            score += 100
        elif known and re.search(known.pattern, predicted):
            score += 40
    agrees = known is None or finding.kind in known.kinds or score > 0
    if known and finding.kind in known.kinds:
        score += 30
    haystack = " ".join(filter(None, (predicted, finding.title, finding.symbol or "", finding.details or "")))
    named = sum(1 for n in names if n and re.search(rf"\b{re.escape(n)}\b", haystack))
    score += 10 * named
    if names and not named and score < 100:
        score -= 20  # the error names a keyword/attribute this finding is not about
    site = finding.consumer_site
    for path, line in _frames(traceback):
        if site.path and path.endswith(site.path) and line == site.line:
            # the consumer line is on the stack; alone it is enough unless the error's kind disagrees
            score += 50 if agrees else 20
    return score


def diagnose(log_text: str, findings: Iterable[Finding] = ()) -> Diagnosis:
    """Best explanation of the failure at the end of `log_text`, given the preflight findings."""
    error, traceback = extract_error(log_text)
    if error is None:
        return Diagnosis(None, traceback, None, ())
    context = f"{traceback}\n{error}"
    known, names = None, []
    for candidate in KNOWN_FAILURES:
        m = re.search(candidate.pattern, context)
        if m:
            known, names = candidate, [v for v in m.groupdict().values() if v]
            break
    scored = [(_score(f, error=error, traceback=traceback, known=known, names=names), i, f)
              for i, f in enumerate(findings)]
    ranked = tuple(f for s, _, f in sorted(scored, key=lambda t: (-t[0], t[1])) if s >= 30)
    return Diagnosis(error, traceback, known, ranked)
