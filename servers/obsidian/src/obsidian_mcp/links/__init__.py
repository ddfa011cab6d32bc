"""The vault's links and tags as the index holds them, and the operations that follow or rewrite them.

Modules: `backlinks` (`get_backlinks`), `check` (`check_links`: unresolved links, orphans,
ambiguous links), `move` (`move_note`: which links a move rewrites, and how; the files themselves
are `vault.notes`'), `retag` (`rename_tag`: which notes a tag rename rewrites), `tags`
(`list_tags`) and `results` (the typed result of each). They share no code but `index`'s query
functions (`index.links_table`, `index.tags_table`, `index.fts`) and `vault.links`; none imports
another.
"""
