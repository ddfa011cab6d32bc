"""The vault's search index: SQLite FTS5 in the user cache dir, never inside the vault.

Modules: `store` (location, schema, recovery), `extract` (what is stored per note), `sync`
(change detection and writes), `vault_index` (fresh-before-use, one lock, the recovery ladder),
`changes` (notes this server wrote), `watch` (notes other programs changed: inotify on Linux),
`text` / `query` (tokens, snippets and safe MATCH expressions), `filters` (folder and tag
conditions), `graph` (the stored links to a name), `progress` (how long work reports progress),
`vectors` (the index of meanings, `semantic`, kept in step with the notes), `search` (by words
and by meaning, similar notes), `tags`, `backlinks`, `check` (unresolved links, orphans,
ambiguous links), `move` (which links a move rewrites, and how; the files themselves are
`vault.notes`'), `retag` (which notes a tag rename rewrites), and `results` (the typed result of
each operation). Knows nothing of MCP.
"""
