"""drift: read a vLLM install without importing it, and tell what breaks your code."""

import os as _os

__version__ = "0.1.0"

# The repository keeps probes/ and reports/ beside drift/ (the layout of the design card); an
# installed distribution holds them as drift.probes and drift.reports (setup.py's package_dir),
# so only `drift` is ever on the import path. From a checkout the same names resolve here.
_repo = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(__path__[0], "probes")) and _os.path.isfile(
        _os.path.join(_repo, "probes", "__init__.py")):
    __path__.append(_repo)
del _os, _repo
