"""Where target and consumer code comes from: index lookup, range reads of wheels, sdists,
trees, environments and snapshot files.

`fetch` is the front door (the choice of path, joining a prefetch in flight); the modules here
each do one part of it and never import it back: `cache` (the layout a release is extracted
into, `Sources`), `pipconfig` (the user's pip settings), `index` (which file a requirement
names), `fetchers` (range read, `pip download`, a local file or an sdist), `rangezip` (only
the wanted members of a remote wheel), `wheels` (extracting members, top-level packages), `pip`
(the fallback download and its errors), `sdist` (the .py files of a source archive, never
built), `pack` (one file per release), `prefetch` (releases fetched side by side), `snapshot`
(a `drift snapshot` file as a target), `errors`, `progress` (step and byte messages).
"""
