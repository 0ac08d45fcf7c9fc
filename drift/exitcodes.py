"""Exit codes shared by every command (see DESIGN.md: Conventions)."""

CLEAN = 0  # nothing breaking
DRIFT = 1  # breaking drift found (or a job failed, for `drift watch`)
USAGE = 2  # usage or input error: bad spec, missing path, not a package, file changed
UNREACHABLE = 3  # host down, auth refused, host key unknown or changed
