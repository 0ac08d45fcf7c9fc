"""Packages of the distribution (the rest of the metadata is in pyproject.toml).

The repository keeps `probes/` and `reports/` beside `drift/`; installed, they live under
`drift` (drift.probes, drift.reports), so the distribution puts only `drift` on the import path
and never collides with another project's top-level `probes` or `reports`.
"""

from setuptools import find_packages, setup

MAPPED = {"drift.probes": "probes", "drift.reports": "reports"}
# the rule pages (docs/rules/*.md) ship as data: an installed drift's SARIF links each rule to
# its page (helpUri) with no checkout and no published site
DATA = {"drift.rule_pages": "docs/rules"}

packages = find_packages(include=["drift", "drift.*"])
for name, where in MAPPED.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(where=where)]
packages += list(DATA)

setup(packages=packages, package_dir={**MAPPED, **DATA})
