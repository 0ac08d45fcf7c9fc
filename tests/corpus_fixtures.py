"""Real releases from PyPI, fetched at test time into the user cache (never into the repo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift.sources.fetch import fetch_sources


@pytest.fixture(scope="session")
def corpus_src():
    """`corpus_src("vllm==0.16.0") -> Path` of the extracted release (package dirs + dist-info)."""
    seen: dict[str, Path] = {}

    def get(spec: str) -> Path:
        if spec not in seen:
            seen[spec] = fetch_sources(spec).root
        return seen[spec]

    return get
