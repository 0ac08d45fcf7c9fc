"""The one findings model every rule produces and every report renders.

Kept free of rendering: reports/ turns these into text, JSON, SARIF, JUnit, HTML.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

from drift.kinds import Kind


class Severity(str, enum.Enum):
    """How sure drift is that the consumer fails at run time."""

    BREAKING = "breaking"
    RISKY = "risky"
    INFO = "info"


SEVERITY_ORDER = {Severity.BREAKING: 0, Severity.RISKY: 1, Severity.INFO: 2}


# One vocabulary for changes and findings (drift/kinds.py); `RuleKind` is its name here.
RuleKind = Kind


@dataclass(frozen=True)
class Location:
    """A place in source: a path relative to the package root's parent, and a line."""

    path: str
    line: int
    symbol: str | None = None  # e.g. "vllm.v1.request.Request.__init__"
    snippet: str | None = None  # the source line, stripped, when known
    col: int | None = None  # 1-based column where the use starts, when the rule knows it
    # Where the use itself is written, when the failure surfaces on another line of its statement
    # (drift/analysis/surfacing.py: a keyword on a call's continuation line, a name of a
    # multi-line import): `line` is the traceback's line, these keep the precise position.
    use_line: int | None = None
    use_col: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


SAFE, UNSAFE, MANUAL = "safe", "unsafe", "manual"


@dataclass(frozen=True)
class Fix:
    """What repairs a finding: a named codemod with its arguments, or manual advice."""

    description: str
    codemod: str | None = None  # registry name in drift.fixes.kinds, None = manual
    args: dict[str, Any] = field(default_factory=dict)
    manual_reason: str | None = None  # why no codemod applies, when codemod is None
    # safe | unsafe | manual, as ruff's safe/unsafe fixes: `drift patch --apply` writes only the
    # safe ones, `--unsafe-fixes` adds the unsafe ones (they may change what the code does),
    # a manual fix is only described. A codemod nobody judged safe is unsafe.
    tier: str | None = None
    # The tier when the edit is written inside a vLLM-version branch whose other arm keeps the
    # consumer's original statement verbatim (a range consumer's patch, drift/fixes/gate.py):
    # that branch cannot change a run on the baseline, so an edit whose only risk was the
    # baseline's path can be safe there. None: the same as `tier`. Only a codemod has one.
    gated_tier: str | None = None

    def __post_init__(self) -> None:
        tier = self.tier
        if self.codemod is None:
            tier = MANUAL
        elif tier not in (SAFE, UNSAFE):
            tier = UNSAFE
        object.__setattr__(self, "tier", tier)
        gated = self.gated_tier
        if self.codemod is None or gated not in (SAFE, UNSAFE) or gated == tier:
            gated = None
        object.__setattr__(self, "gated_tier", gated)


@dataclass(frozen=True)
class Finding:
    rule_id: str  # stable, e.g. "DRIFT101" or "VLLM001"
    kind: RuleKind
    severity: Severity
    title: str  # one line, names the symbol
    consumer_site: Location
    target_evidence: tuple[Location, ...] = ()
    baseline_evidence: tuple[Location, ...] = ()
    predicted_failure: str | None = None  # e.g. "TypeError: __init__() got an unexpected keyword argument 'x'"
    fix: Fix | None = None
    symbol: str | None = None  # the target symbol involved
    details: str | None = None  # a short explanation, plain text

    def __post_init__(self) -> None:
        # rules may pass an evidence location they could not resolve; keep only real ones
        object.__setattr__(self, "target_evidence", tuple(e for e in self.target_evidence if e is not None))
        object.__setattr__(self, "baseline_evidence", tuple(e for e in self.baseline_evidence if e is not None))

    @property
    def key(self) -> str:
        """Stable identity across runs: rule, consumer site and symbol; for a finding reported where
        Python raises rather than where the use is written (two keywords of one call), the use's
        own line and column too, so the two stay two."""
        site = self.consumer_site
        key = f"{self.rule_id}:{site.path}:{site.line}:{self.symbol or ''}"
        return key if site.use_line is None else f"{key}@{site.use_line}:{site.use_col or 0}"

    @property
    def fingerprint(self) -> str:
        """Line-independent identity: rule, file, symbol and a hash of the consumer's source line.

        Why: an accepted finding must stay accepted when code above it moves it down a few
        lines, and SARIF alerts must not reopen for the same reason. Whitespace inside the line
        is collapsed so re-indenting does not reopen it either.
        """
        site = self.consumer_site
        snippet = " ".join((site.snippet or "").split())
        text = "\x1f".join((self.rule_id, site.path, self.symbol or "", snippet))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if data.get("fix") is not None and data["fix"].get("gated_tier") is None:
            del data["fix"]["gated_tier"]  # most fixes have none: the report stays as it was
        for loc in [data["consumer_site"], *data["target_evidence"], *data["baseline_evidence"]]:
            for key in ("use_line", "use_col"):
                if loc.get(key) is None:
                    del loc[key]  # set only where a failure surfaces off the use's own line
        data["kind"] = self.kind.name
        data["kind_message"] = self.kind.value
        data["severity"] = self.severity.value
        data["key"] = self.key
        data["fingerprint"] = self.fingerprint
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Finding":
        loc = lambda d: Location(**{k: d.get(k) for k in ("path", "line", "symbol", "snippet", "col",
                                                     "use_line", "use_col")})  # noqa: E731
        fix = data.get("fix")
        return cls(
            rule_id=data["rule_id"],
            kind=RuleKind[data["kind"]],
            severity=Severity(data["severity"]),
            title=data["title"],
            consumer_site=loc(data["consumer_site"]),
            target_evidence=tuple(loc(d) for d in data.get("target_evidence", ())),
            baseline_evidence=tuple(loc(d) for d in data.get("baseline_evidence", ())),
            predicted_failure=data.get("predicted_failure"),
            fix=Fix(**fix) if fix else None,
            symbol=data.get("symbol"),
            details=data.get("details"),
        )


@dataclass(frozen=True)
class UseChecked:
    """One consumer use of the target that drift checked (JUnit: one test case each)."""

    symbol: str  # target symbol, e.g. "vllm.v1.request.Request"
    site: Location
    what: str  # "import", "call", "method", "attribute", "subclass", "bind"


@dataclass(frozen=True)
class Silenced:
    """A finding left out of a report, and what left it out (for the "N silenced" line)."""

    finding: Finding
    by: str  # "comment", "--ignore", "--select", "config ignore", "per-file-ignores", "accepted"


@dataclass(frozen=True)
class Unused:
    """A suppression that silenced nothing: an inline comment (or one code of it) or an
    accepted-findings entry. Kept so a stale silencer is seen (ruff's RUF100, mypy's
    warn_unused_ignores) before it hides the next real finding on that line."""

    what: str  # "`# drift: ignore[DRIFT050]`: no DRIFT050 finding on this line" / "accepted entry …"
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}" if self.path and self.line else self.what


@dataclass(frozen=True)
class Report:
    """Everything a renderer needs: who was compared, what was checked, what was found."""

    consumer: dict[str, Any]  # {"name", "version", "spec"}
    target: dict[str, Any]  # {"name", "version", "spec", "commit"}
    baseline: dict[str, Any] | None  # {"name", "version", "spec"} or None
    findings: tuple[Finding, ...]
    uses: tuple[UseChecked, ...] = ()
    env: dict[str, Any] | None = None  # the probe's "env" block for a host scan
    host: str | None = None
    notes: tuple[str, ...] = ()
    silenced: tuple[Silenced, ...] = ()
    fail_on: Severity = Severity.BREAKING  # the lowest severity that fails the run (--fail-on)
    caveats: tuple[str, ...] = ()  # notes that change how to read the verdict: every format shows them under the header
    files: tuple[str, ...] = ()  # the consumer files read (where `# drift: ignore` comments are looked for)
    unused: tuple[Unused, ...] = ()  # suppressions that silenced nothing
    strict: bool = False  # --strict / strict = true: an unused suppression fails the run too
    incomplete: tuple[str, ...] = ()  # rules that raised: their findings are missing, so the run cannot pass

    @property
    def breaking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.BREAKING)

    @property
    def failing(self) -> tuple[Finding, ...]:
        """Findings at or above `fail_on`: the ones that make the exit code 1."""
        limit = SEVERITY_ORDER[self.fail_on]
        return tuple(f for f in self.findings if SEVERITY_ORDER[f.severity] <= limit)

    @property
    def exit_code(self) -> int:
        return 1 if self.failing or (self.strict and self.unused) or self.incomplete else 0
