"""How many hits a search may ask for."""

from __future__ import annotations

from obsidian_mcp.vault.errors import InvalidArgument

MAX_LIMIT = 100
CANDIDATES = 50  # notes taken from each ranking before fusing them (at least `limit`)


def check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument("limit", "out_of_range", f"'limit' must be between 1 and {MAX_LIMIT}")
