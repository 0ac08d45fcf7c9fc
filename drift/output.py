"""Writing what drift produces (reports, accepted-findings files, diffs, snapshots) to the path
the user named, and making text that came from outside safe for the sink it goes to: one
writer and one escaping function per sink, below the renderers and the commands that call them.

Why one place: a consumer's file name, a pyproject's name or version, a wheel's METADATA, a
snapshot, a job log, a runner's reply and an inventory's host names are all written by someone
else. Each is data. Rendered raw, a newline in a file name starts a `::add-mask::` line a CI
runner obeys, an ESC retitles or clears the user's terminal, a `<img>` renders in a step
summary and a control character makes JUnit XML ill-formed. Each sink has its own rules, so
each has its own function here, and every renderer calls the one for its sink.

The same boundary inward (what drift reads that someone else wrote) is `drift/inputs.py`.
"""

from __future__ import annotations

import os
import pathlib
import re
import stat
import sys
import tempfile
from typing import Any

from drift import exitcodes

# C0 (newline and tab included: outside text is rendered on one line), DEL, C1, the Unicode line
# and paragraph separators and the bidirectional overrides (text that reads one way, runs another)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class OutputError(ValueError):
    """The path named for output cannot take a document (a directory, say); the message says
    what and where, `reason` only why (for a caller that names the document itself)."""

    exit_code = exitcodes.USAGE

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


def _is_a_directory(path: pathlib.Path) -> OutputError:
    return OutputError(f"cannot write {visible(str(path))}: Is a directory (name a file to write to)",
                       reason="Is a directory (name a file to write to)")


def write_text(path: pathlib.Path, text: str) -> None:
    """Write `text` to `path`: a regular file (or a new one) atomically, temp-then-rename, so a
    reader never sees half a report; anything else (a device such as /dev/null or /dev/stdout, a
    FIFO, a terminal) is written through, never replaced; `-` is stdout; a directory is an
    OutputError, not a traceback."""
    if str(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"cannot write {visible(str(path))}: {exc.strerror or exc}", reason=exc.strerror) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _is_a_directory(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_through(path, text)
        return
    try:
        _replace(path, text, st)
    except IsADirectoryError:
        raise _is_a_directory(path) from None


def _write_through(path: pathlib.Path, text: str) -> None:
    """A device or FIFO: open it for writing as it is (O_TRUNC means nothing to one)."""
    if is_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names drift's own stdout (`-`, /dev/stdout, or the same file), so the text
    goes through sys.stdout and keeps its order with what is already buffered there."""
    if str(path) in ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError, TypeError):
        return False


def _replace(path: pathlib.Path, text: str, st: os.stat_result | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        # mkstemp makes 0600; a report is meant to be read (CI uploads, web servers)
        os.chmod(tmp, st.st_mode & 0o777 if st is not None else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


# --- one escaping function per sink -------------------------------------------------------------

def visible(text: Any) -> str:
    """`text` on one line with every control shown, not obeyed: `\\x1b`, `\\x0a`, `\\u202e`.

    The base of every sink below; on its own it is the terminal's (and a log line's) escaping.
    """
    text = text if isinstance(text, str) else str(text)
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100 else "\\u%04x" % ord(m.group()), text)


def terminal(text: Any) -> str:
    """For the terminal (and stderr): controls shown escaped. Strings printed through rich as
    markup go through `markup` instead."""
    return visible(text)


def markup(text: Any) -> str:
    """For a rich markup string: controls shown and `[...]` escaped, so a host named
    `[link=file:///etc]x` is printed as those characters, not read as markup."""
    from rich.markup import escape

    return escape(visible(text))


# what Markdown or HTML acts on mid-line (a data string never starts a line: `visible` keeps it on
# one); `_` only where it could open or close emphasis, so `kv_cache_utils.py` reads as written
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~&])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown(text: Any) -> str:
    """For Markdown prose (a bold name, a note, a table cell): one line, and every character
    Markdown or HTML would act on backslash-escaped, so no `<img>`, link or heading can start."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(), visible(text))


def markdown_code(text: Any, *, in_table: bool = False) -> str:
    """For Markdown code (`` `path:line` ``): one line, a fence longer than any backtick run in
    the text; in a table cell `|` is escaped (GitHub splits cells on it even inside code)."""
    body = visible(text)
    if in_table:
        body = body.replace("|", "\\|")
    run = max((len(m) for m in re.findall("`+", body)), default=0)
    fence = "`" * (run + 1)
    pad = " " if run or body.startswith(" ") or body.endswith(" ") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


_UNSAFE_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def html(text: Any) -> str:
    """For HTML text and attribute values: `html.escape` (so no tag or attribute can start) after
    every control but newline and tab is shown escaped (a newline in HTML is only whitespace, and
    drift's own tooltips use it)."""
    from html import escape

    text = text if isinstance(text, str) else str(text)
    return escape(_UNSAFE_KEEP_LINES.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100
                                         else "\\u%04x" % ord(m.group()), text))


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml(text: Any, *, multiline: bool = False) -> str:
    """For XML text and attributes (JUnit): characters XML 1.0 cannot hold (most C0 controls)
    shown as `\\xNN`, so the document stays well-formed. Outside data is also put on one line
    (`visible`); drift's own multi-line text keeps its newlines with `multiline=True`."""
    text = text if isinstance(text, str) else str(text)
    if not multiline:
        return visible(text)
    return _XML_INVALID.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100 else "\\u%04x" % ord(m.group()), text)


def workflow_data(text: Any) -> str:
    """For a GitHub workflow command's message: GitHub's own escaping (`%`, CR and LF as `%25`,
    `%0D`, `%0A`: a break inside one annotation, never a new log line), every other control shown."""
    text = text if isinstance(text, str) else str(text)
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def workflow_property(text: Any) -> str:
    """For a GitHub workflow command's property value (`file=`, `title=`): also `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_text(text: str) -> str:
    """For a JSON document (JSON, SARIF) written with ensure_ascii=False: the characters JSON
    leaves raw that a terminal or an editor acts on (C1 controls such as the 8-bit CSI, line
    separators, bidirectional overrides) written as `\\uXXXX` escapes. The data is unchanged
    (a parser reads the same string back); only its spelling is safe to `cat`. C0 controls
    are already escaped by `json.dumps`. Outside strings JSON is ASCII, so this only ever
    touches string contents."""
    return _JSON_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


_COMMAND_LINE = re.compile(r"^(\s*)(::)", re.MULTILINE)


def workflow_guard(text: str) -> str:
    """A document printed where a GitHub runner reads the log (GITHUB_ACTIONS=true) that is not
    itself workflow commands: a line that would start with `::` gets a zero-width space first,
    so the runner (which trims whitespace, not U+200B) never takes it for a command."""
    if "::" not in text:
        return text
    return _COMMAND_LINE.sub("\\1\u200b\\2", text)


def in_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"
