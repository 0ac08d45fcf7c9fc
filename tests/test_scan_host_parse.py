"""`drift scan --host-parse`: the host parses what the consumer reaches (default) or the whole
package in one exchange; the flag decides which probe request the scan sends."""

from __future__ import annotations

import pytest

from drift.cli import build_parser
from drift.commands import scan as scan_cmd
from drift.jobs.connect import settings_from_args


def _settings(*argv: str):
    args = build_parser("scan").parse_args(["scan", "root@127.0.0.1", *argv])
    return scan_cmd._settings(args, settings_from_args(args, host="root@127.0.0.1"), None)


def test_default_parses_what_the_consumer_reaches():
    assert _settings().demand is True


def test_all_parses_the_whole_package():
    assert _settings("--host-parse", "all").demand is False


def test_an_unknown_choice_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        _settings("--host-parse", "some")
    assert exc.value.code == 2
    assert "--host-parse" in capsys.readouterr().err
