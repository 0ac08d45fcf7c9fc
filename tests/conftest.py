"""Shared fixtures. Fixture modules live beside this file and are loaded as plugins."""

import importlib.util
import signal

import pytest

pytest_plugins = [
    name
    for name in ("tests.corpus_fixtures", "tests.sshd_fixtures")
    if importlib.util.find_spec(name) is not None
]


@pytest.fixture(autouse=True)
def _sigint_left_as_found():
    """A test that leaves SIGINT ignored in this process would make every later test's
    subprocesses (drift's CLI among them) ignore Ctrl-C too: an ignored signal survives exec."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left SIGINT handled by {after!r} (it was {before!r})")
