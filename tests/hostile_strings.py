"""One table of hostile strings, shared by every test that renders text from outside.

Each is something a consumer's file name, a pyproject's name or version, a wheel's METADATA, a
snapshot, a job log, a runner's reply or an inventory could hold, and each aims at one sink:
a CI runner's workflow commands, the terminal, Markdown/HTML, XML. A renderer passes when the
string is shown (as data, escaped) and never obeyed. File names cannot hold `/` or NUL, so no
entry does; every entry is short enough to be a file name (with `.py`) on any filesystem.
"""

from __future__ import annotations

import re

HOSTILE: dict[str, str] = {
    # a newline then workflow commands: the runner obeys any log line that starts with `::`
    "workflow_commands": "n\n::add-mask::X\n::warning file=x::owned",
    "carriage_return": "r\r::error::cr",
    "starts_with_command": "::error::first",
    # terminal control: clear screen, retitle (OSC ... BEL), an 8-bit CSI (C1), a bidi override
    "ansi_clear": "clear\x1b[2J\x1b[H",
    "osc_title": "title\x1b]0;owned\x07",
    "c1_csi": "csi\x9b31m",
    "bidi_override": "bidi\u202eyp.txt",
    # markup: rich's, Markdown's (a heading after a newline, an image), HTML's
    "rich_markup": "[bold red]rich[blink][link=file:x]y",  # no closing tag: it would hold a `/`
    "markdown_heading": "h\n## injected heading",
    "html_image": "<img src=x onerror=alert(1)>",
    "markdown_link": "[click](mailto:x@example.invalid)",
    # characters XML 1.0 cannot hold at all
    "xml_controls": "x\x01\x0b\x1f",
}

# raw characters no rendered output may carry from those strings (JSON writes C0 as \u escapes)
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def workflow_command_lines(text: str) -> list[str]:
    """Lines a GitHub runner would take for workflow commands (it trims leading whitespace)."""
    return [line for line in re.split(r"\r\n|\r|\n", text) if line.lstrip().startswith("::")]
