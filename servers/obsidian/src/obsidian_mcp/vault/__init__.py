"""The vault domain: safe paths, note parsing, precise edits, atomic storage. Knows nothing of MCP.

Modules: `paths` (Vault, resolve), `markdown` (parse_note), `edits` (pure text edits),
`yaml_roundtrip` (ruamel frontmatter editing), `storage` (atomic writes and moves, locks, trash),
`notes` (the operations the tools call, and the file side of moving a note), `links` (Obsidian
link resolution and rewriting), `moment` (moment.js dates and weeks), `config` (Obsidian's
settings files), `templates` (filling templates), `daily` (daily and periodic notes),
`tag_rename` (renaming a tag in a note's text), `results` (the typed result of each operation),
`errors` (the domain exceptions).
"""
