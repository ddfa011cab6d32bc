"""Dataview over the vault: the engine of `obsidian_mcp.dataview` run on the index's notes.

Modules: `vault_pages` (`VaultPages`: one `dataview.Page` per indexed note, kept in step with the
index), `page_notes` (what the pages keep of one note), `dql` (`query_notes`: a query run on the
pages with the freshness of search), `query_limits` (bounds shared with the tool's schema) and
`results` (the typed answer). Unlike the engine beside it, which is pure, this package reads the
index (`index.metadata` and the other table modules of `index`).
"""
