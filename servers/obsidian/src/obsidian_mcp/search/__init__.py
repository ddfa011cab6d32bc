"""Finding notes: by their words, by their meaning, and both fused; and the notes closest to one.

Modules: `query` (what a user typed → a safe FTS5 MATCH expression), `by_words` (the keyword
ranking, with the one fallback when FTS5 refuses a query: a scan of the stored text, in `scan`),
`locate` (a hit's best line, heading and snippet), `meaning` (the vectors' state and the no-noise
rule: a note found by meaning alone is shown only when it is close enough and the query has words
the model knows), `hybrid` (the fusion of the keyword and meaning rankings), `similar`
(`similar_notes`), `notes` (`search_notes`: the arguments checked, then one of the above) and
`results` (the typed answers). Every SQL statement they need is a query function of `index`.
"""

from obsidian_mcp.search.notes import MAX_LIMIT, MODES, Mode, search_every_vault, search_notes
from obsidian_mcp.search.similar import similar_notes

__all__ = ["MAX_LIMIT", "MODES", "Mode", "search_every_vault", "search_notes", "similar_notes"]
