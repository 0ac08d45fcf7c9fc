"""drift.model.outline is probes/outline.py (the class outline of a module from its text): one
implementation, which the probe also runs on a host to answer a family asked ahead with
outlines (drift/pipeline/scan.py). The module object itself is shared, not copied, so its compiled
patterns and caches are too."""

import sys

from drift.probes import outline as _outline

sys.modules[__name__] = _outline
