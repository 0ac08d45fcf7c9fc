"""The refinements: passes over every finding the rules made, each dropping or downgrading some.

Why one registry: a rule answers one question at a site; some answers need the whole consumer
(a `try` around the site, a module that never loads, a store the consumer makes itself, a more
specific finding on the same line). Those are asked once, after all the rules, over all their
findings, each by one pass with one job and its reason in the finding it changes. The engine
runs them in this order, in one loop, as it runs the rules; add a pass here, with its place.

Order matters only where one pass reads what another decides: dropping comes first (a finding
that goes needs no downgrade), and the downgrades each look at breaking findings only, so a
finding keeps the first reason that made it risky.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from drift.analysis.caught import downgrade_caught
from drift.analysis.chosen_callees import downgrade_chosen_callees
from drift.analysis.consumer_set import downgrade_consumer_set
from drift.analysis.layer_calls import downgrade_layer_calls
from drift.analysis.masked_ops import downgrade_masked_ops
from drift.analysis.context import CheckContext
from drift.analysis.orphaned import downgrade_orphaned
from drift.analysis.signature_tests import drop_dead_signature_sides
from drift.analysis.subsumed import drop_subsumed
from drift.analysis.swapped_imports import downgrade_swapped_imports
from drift.analysis.tested_names import drop_gone_where_tested
from drift.analysis.uncalled_methods import downgrade_uncalled_methods
from drift.analysis.unloaded import downgrade_unloaded
from drift.findings import Finding

RefineFunc = Callable[[CheckContext, list[Finding]], list[Finding]]


@dataclass(frozen=True)
class Refinement:
    name: str
    apply: RefineFunc
    why: str  # one line: what the pass does to which findings


REFINEMENTS: tuple[Refinement, ...] = (
    Refinement("dead_signature_sides", drop_dead_signature_sides,
               "drops findings on the side of `\"p\" in signature(C)` / `hasattr` the target never takes"),
    Refinement("gone_where_tested", drop_gone_where_tested,
               "drops a gone name's finding in a body that runs only where `hasattr` found the name"),
    Refinement("subsumed", drop_subsumed,
               "drops a general rule's finding a specific one at the same line says more of"),
    Refinement("unloaded", downgrade_unloaded, "risky: a module that never loads on the target"),
    Refinement("uncalled_methods", downgrade_uncalled_methods,
               "risky: a private method whose one call the package commented out, and the target never calls"),
    Refinement("caught", downgrade_caught, "risky: a handler that names the error swallows it"),
    Refinement("swapped_imports", downgrade_swapped_imports, "risky: the consumer's import hook answers the import"),
    Refinement("orphaned", downgrade_orphaned, "risky: a gone method's use in an override nothing calls any more"),
    Refinement("consumer_set", downgrade_consumer_set, "risky: a gone attribute the consumer sets itself on that object"),
    Refinement("chosen_callees", downgrade_chosen_callees,
               "risky: a callee a helper may choose among the consumer's own"),
    Refinement("masked_ops", downgrade_masked_ops, "risky: a custom op's use under a test that already fails"),
    Refinement("layer_calls", downgrade_layer_calls,
               "risky: a binding finding on a layer call, whose forward may be a per-platform replacement"),
)
