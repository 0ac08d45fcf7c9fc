"""The consumer: which of its files use the target and how, what it says it needs.

`usage` (the probe's usage read, run here), `load` (a consumer from a PyPI spec, wheel, tree or
another interpreter: `Consumer`), `baseline` (the vLLM its metadata pins), `guards` (which uses
sit on branches taken only for another target version), `infer` (the fixpoint over the
consumer's IR, probes/ir.py: what its names, fields and parameters may hold) and `solved` (that
solution, cached by the IR's digest). Imports: model/ and below.
"""
