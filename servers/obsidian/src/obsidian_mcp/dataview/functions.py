"""The function table: every function the engine implements, and those it knowingly lacks."""

from __future__ import annotations

from obsidian_mcp.dataview import functions_lists, functions_numbers, functions_text, functions_values
from obsidian_mcp.dataview.function_builder import Builtin

FUNCTIONS: dict[str, Builtin] = {
    **functions_values.FUNCTIONS,
    **functions_numbers.FUNCTIONS,
    **functions_lists.FUNCTIONS,
    **functions_text.FUNCTIONS,
}

# Dataview functions this engine does not implement: a query using one is refused.
UNSUPPORTED: dict[str, str] = {
    "durationformat": "durationformat() is not supported",
    "currencyformat": "currencyformat() is not supported",
    "hash": "hash() is not supported",
    "elink": "elink() (external links) is not supported",
}
