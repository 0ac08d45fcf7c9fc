from . import helpers
from ..core import Widget as BaseWidget
