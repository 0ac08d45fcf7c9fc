"""Where target and consumer code comes from: index lookup, range reads of wheels, sdists.

`drift.sources.fetch` is the front door (cache layout, choice of path); the modules here each do one
part of it: `pipconfig` (the user's pip settings), `index` (which file a requirement names),
`rangezip` (only the wanted members of a remote wheel), `sdist` (the .py files of a source
archive, never built), `progress` (step and byte messages for the CLI).
"""
