"""How long-running index work reports how far it got (a first build of a large vault).

Index operations take an optional `ProgressFn`; the tool layer supplies one that turns each call
into an MCP progress notification (`tools.worker`).
"""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[int, int], None]
"""Called with (notes done, notes to do) while many notes are (re)indexed."""
