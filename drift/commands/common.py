"""Pieces every command shares: progress on stderr, error printing, report output options."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Callable, Iterator

from drift import reports
from drift.findings import Report

if TYPE_CHECKING:
    from rich.console import Console


def stderr_console() -> "Console":
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _may_be_terminal() -> bool:
    """Whether rich could call stderr a terminal: a tty, or the variables it honours
    (TTY_COMPATIBLE, FORCE_COLOR). Why: rich's import is ~15 ms of every piped command (a CI
    job, a script), which never draws a status line."""
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def progress(enabled: bool = True, *, verbose: bool = False) -> Iterator[Callable[[str], None]]:
    """A status line on stderr while long work runs (fetching, parsing).

    Piped, a redrawn line would be noise, so only a fetch's steps (`drift.sources.progress.Step`)
    print, one line each; byte counts show only on a terminal. With `verbose`, the note of which
    way a release was fetched (`Note`) stays on screen, terminal or not.
    """
    if not enabled:
        yield lambda _msg: None
        return
    from drift.output import terminal
    from drift.sources.progress import Note, Step

    console = stderr_console() if _may_be_terminal() else None
    if console is None or not console.is_terminal:
        def say_piped(msg: str) -> None:
            if isinstance(msg, Step) or (verbose and isinstance(msg, Note)):
                print(f"drift: {terminal(msg)}", file=sys.stderr, flush=True)

        yield say_piped
        return
    from rich.text import Text

    with console.status("starting…") as status:
        def say(msg: str) -> None:
            if verbose and isinstance(msg, Note):
                console.print(f"drift: {terminal(msg)}", markup=False, highlight=False)
            status.update(Text(terminal(msg)))  # a host or spec name is text, never rich markup

        yield say


def fail(message: str, code: int, *, hint: str | None = None) -> int:
    """The one error shape: `drift: error: …`, then `  hint: …` when there is one; never a traceback."""
    from drift.output import terminal

    # the message often quotes a path, a host or a reply: shown, never obeyed by the terminal
    print(f"drift: error: {terminal(message)}", file=sys.stderr)
    if hint:
        print(f"  hint: {terminal(hint)}", file=sys.stderr)
    return code


def fail_connector(exc) -> int:
    """A ConnectorError (host down, auth refused, bad spec) in the one error shape."""
    from drift import exitcodes

    return fail(str(exc), exitcodes.USAGE if exc.category == "usage" else exitcodes.UNREACHABLE,
                hint=getattr(exc, "hint", None))


def add_output_options(parser, *, default: str = "terminal", formats=None, repeatable: bool = False) -> None:
    """`repeatable`: --format and -o may be given several times, paired in order (as gate):
    one check writes SARIF for code scanning and Markdown for the summary."""
    if repeatable:
        parser.add_argument("--format", action="append", choices=formats or reports.FORMAT_NAMES, default=None,
                            help=f"report format (repeatable, pairs with -o in order; default: {default})")
        parser.add_argument("-o", "--output", action="append", default=None,
                            help="file for the matching --format ('-' = stdout; default: stdout)")
    else:
        parser.add_argument("--format", choices=formats or reports.FORMAT_NAMES, default=None,
                            help=f"report format (default: {default})")
        parser.add_argument("-o", "--output", default=None, help="write the report to this file instead of stdout")
    parser.add_argument("--json", action="store_true", help="shorthand for --format json")
    parser.add_argument("-v", "--verbose", action="store_true", help="show every evidence line")
    add_statistics_option(parser)


def add_statistics_option(parser) -> None:
    parser.add_argument("--statistics", action="store_true",
                        help="print counts per rule and per shared cause instead of the findings (as ruff); "
                             "JSON with --format json; the exit code is the same")


def statistics_document(report_or_reports, fmt: str) -> str:
    """`--statistics` in place of the report: ruff's table, or its JSON with --format json."""
    import json

    from drift.reports.groups import statistics, statistics_text

    many = [report_or_reports] if isinstance(report_or_reports, Report) else list(report_or_reports)
    if fmt == "json":
        return json.dumps(statistics(many), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return statistics_text(many)


def add_consumer_options(parser, *, positional: bool = False, default_help: str, selection: bool = False) -> None:
    """The consumer means one thing everywhere: the code that uses vLLM (spec, wheel, tree,
    python:PATH, or a name = as installed where the target is), plus its import name."""
    if positional:
        parser.add_argument("consumer_pos", nargs="?", metavar="CONSUMER", default=None,
                            help="the code that uses vLLM (same as -c/--consumer)")
    parser.add_argument("-c", "--consumer", default=None, metavar="CONSUMER",
                        help=f"the code that uses vLLM: a PyPI spec (speculators==0.3.0), a wheel, a source tree, "
                             f"python:PATH, or a name (as installed where the target is); {default_help}")
    parser.add_argument("--consumer-package", action="append", default=None, metavar="NAME",
                        help="the consumer's top-level import name (repeatable; default: what its distribution "
                             "provides, or for a source tree every .py file under it)")
    if not selection:  # a consumer read on a host is an installed package: nothing to select
        return
    parser.add_argument("--include", action="append", default=None, metavar="GLOBS",
                        help="a source tree: read only files matching these gitignore-style globs, comma-separated "
                             "(repeatable; added to include in [tool.drift])")
    parser.add_argument("--exclude", action="append", default=None, metavar="GLOBS",
                        help="a source tree: leave out files matching these gitignore-style globs, comma-separated "
                             "(repeatable; added to exclude in [tool.drift]; .gitignore and ruff's defaults apply)")


def consumer_selection(args, config):
    """include/exclude for a source-tree consumer: [tool.drift]'s, then the command line's."""
    from drift.consumer.discover import Selection

    def split(values) -> tuple[str, ...]:
        return tuple(g.strip() for v in values or () for g in v.split(",") if g.strip())

    return Selection(include=tuple(config.include) + split(getattr(args, "include", None)),
                     exclude=tuple(config.exclude) + split(getattr(args, "exclude", None)))


def add_silencing_options(parser, *, config: bool = True) -> None:
    """--select/--ignore, accepted-findings files and --fail-on (docs/config.md)."""
    g = parser.add_argument_group("silencing findings (also [tool.drift] select/ignore/per_file_ignores/accepted)")
    g.add_argument("--select", action="append", default=None, metavar="CODES",
                   help="only these rule ids or prefixes, comma-separated (e.g. DRIFT0,VLLM)")
    g.add_argument("--ignore", action="append", default=None, metavar="CODES",
                   help="leave out these rule ids or prefixes, comma-separated (e.g. DRIFT050)")
    g.add_argument("--accepted", metavar="FILE", default=None,
                   help="report only findings not recorded in this accepted-findings file")
    g.add_argument("--write-accepted", metavar="FILE", default=None,
                   help="record every finding reported now in FILE (then pass --accepted FILE)")
    g.add_argument("--no-inline-ignores", dest="inline_ignores", action="store_false",
                   help="do not honour `# drift: ignore[...]` comments")
    g.add_argument("--fail-on", choices=("breaking", "risky"), default=None,
                   help="exit 1 when a finding this severe or worse remains (default: breaking)")
    g.add_argument("--strict", action="store_true", default=None,
                   help="exit 1 on an unused `# drift: ignore` comment or accepted entry too (default: a warning)")
    if config:
        parser.add_argument("--config", metavar="PATH", help="drift.toml to use instead of searching upwards")
        add_trust_option(parser)


def add_trust_option(parser) -> None:
    parser.add_argument("--trust-config", action="store_true", default=False,
                        help="let the config file run programs: a python:PATH target/baseline/consumer, an "
                             "ssh_config (also DRIFT_TRUST_CONFIG=1)")


def load_settings(args):
    """The config file for this run (ConfigError when unusable)."""
    from drift.config import load_config, require_trust, trust_requested

    return require_trust(load_config(getattr(args, "config", None)), trusted=trust_requested(args))


def settings_checked(args):
    """The run's config with its silencing flags validated before any analysis: (config, None),
    or (None, exit code) once the error has been printed."""
    from drift import exitcodes
    from drift.config import ConfigError
    from drift.suppress import SuppressError

    from drift.analysis.rules.loader import RuleLoadError

    try:
        config = load_settings(args)
        silencing(args, config)  # bad codes or a missing accepted file fail before any analysis
    except (ConfigError, SuppressError, RuleLoadError) as exc:
        return None, fail(str(exc), exitcodes.USAGE)
    return config, None


def known_rule_ids(args) -> frozenset[str]:
    """Every rule id this run can report: drift's packs, plugins, `--rules` files."""
    from drift.analysis.ruledocs import registry

    return frozenset(registry(list(getattr(args, "rules", None) or [])))


def check_codes(args, config, policy) -> None:
    """SuppressError on a code in the flags or the config that names no rule (nor a prefix of one)."""
    from drift.suppress import check_known

    known = known_rule_ids(args)
    where = f"{config.source}: " if config.source else ""
    table = "tool.drift." if config.source and config.source.name == "pyproject.toml" else ""
    check_known(policy.select if args.select else (), known, what="--select")
    check_known(policy.ignore, known, what="--ignore")
    if not args.select:
        check_known(config.select, known, what=f"{where}{table}select")
    check_known(config.ignore, known, what=f"{where}{table}ignore")
    for glob, codes in config.per_file_ignores.items():
        check_known(codes, known, what=f"{where}{table}per_file_ignores.{glob!r}")


def silencing(args, config, *, consumer_root=None):
    """(Policy, fail_on Severity) from the flags and the config; SuppressError on bad codes."""
    from pathlib import Path

    from drift.findings import Severity
    from drift.suppress import Policy, load_accepted_entries, parse_codes

    select = parse_codes(args.select, what="--select") if args.select else tuple(config.select)
    accepted_path = args.accepted
    if accepted_path is None and config.accepted and config.source is not None:
        accepted_path = str(Path(config.source).parent / config.accepted)
    accepted = load_accepted_entries(accepted_path) if accepted_path and not args.write_accepted else {}
    prefixes = []
    if consumer_root is not None:
        root = Path(consumer_root).resolve()
        for base in ([Path(config.source).parent] if config.source else []) + [Path.cwd()]:
            try:
                rel = root.relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
            if rel not in (".", "") and rel not in prefixes:
                prefixes.append(rel)
    policy = Policy(select=select, ignore=parse_codes(args.ignore or (), what="--ignore"),
                    config_ignore=tuple(config.ignore), per_file_ignores=dict(config.per_file_ignores),
                    accepted=frozenset(accepted), accepted_info=accepted, comments=getattr(args, "inline_ignores", True), path_prefixes=tuple(prefixes),
                    strict=bool(getattr(args, "strict", None) or config.strict))
    check_codes(args, config, policy)
    fail_on = Severity(args.fail_on or config.fail_on or "breaking")
    return policy, fail_on


def silence(reports_: list[Report], args, policy, fail_on, sources) -> list[Report]:
    """Apply the policy to each report (`sources[i]` reads its consumer's files), then write
    the accepted-findings file when asked: everything still reported is recorded and silenced."""
    import dataclasses

    from drift.suppress import apply, write_accepted

    out = [apply(r, policy, source=src, fail_on=fail_on) for r, src in zip(reports_, sources)]
    if getattr(args, "write_accepted", None):
        n = write_accepted(args.write_accepted, out)
        print(f"drift: recorded {n} accepted finding{'s' * (n != 1)} in {args.write_accepted}; "
              f"pass --accepted {args.write_accepted} to report only new ones", file=sys.stderr)
        again = dataclasses.replace(policy, accepted=frozenset(f.fingerprint for r in out for f in r.findings))
        out = [apply(r, again, source=src, fail_on=fail_on) for r, src in zip(out, sources)]
        policy = again
    return with_unused(out, args, policy, sources[0] if sources else None)


def with_unused(reports_: list[Report], args, policy, source) -> list[Report]:
    """The reports with the suppressions that silenced nothing attached (SuppressError on an
    unknown code in a comment); each is printed as a `drift: warning:` (an error under strict),
    and under strict it makes the exit code 1 like a finding: the fix is in the consumer's code."""
    import dataclasses

    from drift.suppress import unused_suppressions

    strict = policy.strict
    unused = unused_suppressions(reports_, policy, source=source, known=known_rule_ids(args))
    word = "error" if strict else "warning"
    for u in unused:
        print(f"drift: {word}: {u}", file=sys.stderr)
    if unused and not strict:
        print("  hint: remove them, or pass --strict (strict = true) to fail the run on them", file=sys.stderr)
    return [dataclasses.replace(r, unused=unused, strict=strict) for r in reports_]


# A report cannot be written where -o says (a directory, no permission): exit 2. One class with the
# writer's own (drift.output), so `-o DIR` from the writer and a bad -o pairing are caught alike.
from drift.output import OutputError  # noqa: E402


def output_pairs(args, default: str = "terminal") -> list[tuple[str, str | None]]:
    """(format, output) pairs from --format/-o, single or repeated (then paired in order)."""
    formats, outputs = args.format, args.output
    if not isinstance(formats, list) and not isinstance(outputs, list):
        return [("json" if getattr(args, "json", False) else (formats or default), outputs)]
    formats = list(formats or (["json"] if getattr(args, "json", False) else [default]))
    outputs = list(outputs or [])
    if len(outputs) > len(formats):
        raise OutputError("more -o/--output than --format: give one --format per -o, in order")
    outputs += ["-"] * (len(formats) - len(outputs))
    return [(f, None if o == "-" else o) for f, o in zip(formats, outputs)]


def emit(report_or_reports: Report | list[Report], args, *, default: str = "terminal", title: str | None = None,
         repo_root: str | None = None, consumer_root=None) -> None:
    """Write the report(s) in every requested format; OutputError when a path cannot be written
    (the caller prints it: `drift: error: ...`, exit 2), never a traceback."""
    import os

    options = reports.Options(verbose=getattr(args, "verbose", False), title=title, repo_root=repo_root or os.getcwd(),
                              consumer_root=str(consumer_root) if consumer_root else None)
    for fmt, output in output_pairs(args, default):
        try:
            if getattr(args, "statistics", False):
                write_document(statistics_document(report_or_reports, fmt), output)
            else:
                reports.write(report_or_reports, fmt, output, options=options)
        except (OSError, OutputError) as exc:
            why = exc.reason if isinstance(exc, OutputError) else exc.strerror or exc
            raise OutputError(f"cannot write the {fmt} report to {output}: {why}") from None


def write_document(text: str, output: str | None) -> None:
    """Text to stdout (None or "-") or atomically to a file (drift/output.py)."""
    from pathlib import Path

    from drift.output import write_text

    if output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text(Path(output), text)


def default_target(config, package: str = "vllm", say: Callable[[str], None] = lambda _m: None, *,
                   pre: bool = False) -> str:
    """No -t: the config's target, else the newest release on the user's index (FetchError when
    the index cannot say); never a version frozen into drift. `pre`: dev versions included."""
    if config.target:
        return pinned_target(config.target, pre=pre, say=say)
    from drift.sources.fetch import newest_release

    say(f"asking the index for the newest {package}")
    return f"{package}=={newest_release(package, pre=pre)}"


def target_caveat(given: str | None, resolved: str) -> str | None:
    """The caveat for a target drift chose: the newest release (no -t, none in the config), or
    the newest of a series (`vllm==nightly`, --pre). Why shown in every format: the verdict then
    changes the day vLLM releases, with no change in the consumer."""
    if not given:
        return (f"target {resolved} is the newest release on the index (no -t given): the verdict can change "
                f"with the next release; pin it with -t")
    if given != resolved:
        return f"target {resolved} is the newest for {given}: the verdict can change with the next build"
    return None


def with_caveats(reports_: list[Report], *caveats: str | None) -> list[Report]:
    import dataclasses

    extra = tuple(c for c in caveats if c)
    return [dataclasses.replace(r, caveats=extra + r.caveats) for r in reports_] if extra else reports_


def pinned_target(spec: str, *, pre: bool = False, say: Callable[[str], None] = lambda _m: None) -> str:
    """A PyPI target asking for the newest of a series (`vllm==nightly`, or unpinned under
    `--pre`) pinned to that version (FetchError when the index cannot say); others as given."""
    from drift.model.targets import classify

    if classify(spec) != "pypi" or not (pre or spec.replace(" ", "").lower().endswith("==nightly")):
        return spec
    from drift.sources.fetch import pin_newest

    say(f"asking the index for the newest {spec}")
    return pin_newest(spec, pre=pre)


def add_pre_option(parser) -> None:
    parser.add_argument("--pre", action="store_true",
                        help="an unpinned target (or a range) means its newest version, dev builds and "
                             "pre-releases included (same as NAME==nightly)")
