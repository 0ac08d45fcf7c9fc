"""Why a release could not be had; each carries the exit code the CLI should leave with.

The lookup failures are told apart because they send the user to different fixes: an index that
did not answer (network, proxy, credentials), a project name that exists nowhere (a typo), and a
project without the asked-for release (a version that was never published, or was yanked).
"""

from __future__ import annotations

from drift import exitcodes


class FetchError(Exception):
    """A release could not be fetched or read; the message is for the user."""

    exit_code = exitcodes.USAGE


class IndexUnreachable(FetchError):
    """An index did not answer, or refused the credentials, and no other index had the project."""

    exit_code = exitcodes.UNREACHABLE


class ProjectNotFound(FetchError):
    """Every index answered, and none knows the project."""


class NoMatchingRelease(FetchError):
    """The project exists, but no release of it satisfies the requirement here."""


class Cancelled(FetchError):
    """The prefetch was closed before this release was needed."""
