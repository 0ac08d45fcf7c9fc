"""One module per CLI command: parse the arguments, call the pipeline (or fixes/, jobs/), render
with reports/. `drift/cli.py` dispatches; nothing here computes a finding.
"""
