"""Shared fixtures. Fixture modules live beside this file and are loaded as plugins."""

import importlib.util

pytest_plugins = [
    name
    for name in ("tests.corpus_fixtures", "tests.sshd_fixtures")
    if importlib.util.find_spec(name) is not None
]
