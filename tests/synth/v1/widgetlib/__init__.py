"""widgetlib: an invented library used to test drift's probe (version 1)."""

from typing import TYPE_CHECKING

from widgetlib.runner import Runner
from .compat import *  # noqa: F401,F403
from .core import Widget, make_widget
from .models import Settings as Config

if TYPE_CHECKING:
    from .sub.helpers import Helper

__all__ = ["Widget", "make_widget", "Config", "Runner"]
VERSION = "1.0"
