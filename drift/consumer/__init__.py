"""The consumer: which of its files use the target and how, what it says it needs.

`usage` (the probe's usage read, run here), `load` (a consumer from a PyPI spec, wheel, tree or
another interpreter: `Consumer`), `baseline` (the vLLM its metadata pins), `guards` (which uses
sit on branches taken only for another target version). Imports: model/ and below.
"""
