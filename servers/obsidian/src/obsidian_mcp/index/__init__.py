"""The vault's search index: SQLite FTS5 in the user cache dir, never inside the vault.

Modules: `store` (location, schema, recovery), `extract` (what is stored per note), `sync`
(change detection and writes), `vault_index` (fresh-before-use, one lock, the recovery ladder),
`changes` (notes this server wrote), `watch` (notes other programs changed: inotify on Linux),
`text` / `query` (tokens and safe MATCH expressions), `filters` (folder and tag conditions),
`search`, `tags`, `backlinks`, and `move` (moving a note while keeping links intact, which needs
the link graph). Knows nothing of MCP.
"""
