"""Bounds of a Dataview query, shared by the tool's schema and the engine's wrapper (which loads lazily)."""

MAX_QUERY_CHARS = 10_000
MAX_LIMIT = 1000
