"""The structure of a note as CommonMark reads it, with Obsidian's comments on top: which lines
are prose, code or comment, where inline code and comments sit on a line, and the headings.

One reading for every part of the server that must tell prose from code — tags, links, section
edits, tag renames, the search index, Dataview fields and tasks, chunks for search by meaning —
so they all agree. `read_body` is the entry point; it imports nothing else of the package.
"""

from obsidian_mcp.structure.body import BodyStructure, read_body
from obsidian_mcp.structure.lines import (
    Heading,
    LineKind,
    SourceLine,
    Span,
    atx_heading,
    line_end,
    mask_inline_code,
)

__all__ = [
    "BodyStructure",
    "Heading",
    "LineKind",
    "SourceLine",
    "Span",
    "atx_heading",
    "line_end",
    "mask_inline_code",
    "read_body",
]
