"""The vault's search index: SQLite FTS5 in the user cache dir, never inside the vault. The
machinery that keeps it, and every SQL statement of the server; no operation that asks it
questions (those are `search`, `links` and `dataview.pages`). Knows nothing of MCP.

Keeping it: `store` (location, schema, recovery), `extract` (what is stored per note), `sync`
(change detection and writes), `build` (the first build, in the background), `pool` (worker
processes parsing notes for it), `pending` (the notes a build has still to write, searchable),
`vault_index` (fresh-before-use, one lock, the recovery ladder), `changes` (notes this server
wrote), `watch` (notes other programs changed: inotify on Linux), `progress` (how long work
reports progress), `at_exit` (background workers stopped at exit), `vectors` (the index of
meanings kept in step with the notes) and `vector_store` (its vectors, in memory and in the
database).

Asking it: one module of query functions per table group, each answering typed rows —
`notes_table` (`notes`), `fts` (`content` and its FTS5 index: ranking, the stored text),
`links_table` (`links`), `tags_table` (`tags`), `metadata` (Dataview's `fields` and `list_items`),
`vector_table` (the `semantic_*` tables) — with `filters` (the folder and tag conditions), `text`
(tokens and snippets as FTS5 sees them) and `lookup` (recent notes, path completion).
"""
