"""The model of a package: its facts and the one resolver over them.

`facts` (typed views over the probe's records, probes/SCHEMA.md), `store` (facts kept per
package digest, loaded module by module), `demand` (a package directory read on first access;
class outlines), `outline` (the probe's outline reader, shared), `index` (`PackageIndex`:
re-exports, aliases, inheritance, constructors, whole-package queries), `ahead` (questions
answered in a forked worker while the rules run), `host_modules` (a host's demand-driven
package), `targets` (a target spec -> facts: PyPI, wheel, tree, snapshot or interpreter).
Imports: sources/ and remote/ below it; nothing above.
"""
