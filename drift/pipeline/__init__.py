"""The pipeline every command calls: consumer -> baseline -> facts -> findings.

`run` (`run`, `run_check`, `check`: the analysis step, `analyse`, `resolve_baseline`), `scan`
(the same for what a host has installed, in one round trip), `gate` (one consumer against
several targets), `preflight` (the scan `drift launch` runs first), `lowprio` (a cold scan's
head start in a low-priority child). Imports every stage below; only commands/ import it.
"""
