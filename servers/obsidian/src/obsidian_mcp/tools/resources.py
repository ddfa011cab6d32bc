"""Notes as MCP resources: `obsidian://note/{path}` (the note's text, `text/markdown`), the 50 most
recently modified notes in `resources/list`, and completion of the template's `path` (and of the
`summarize_note` prompt's) from the index.

A note is read as `read_note` reads it: the same path checks, straight from the disk. A path that
may not be read (hidden, outside the vault, through a symlink leading out) names no resource: it
is `not_found`, like a missing note, never `permission_denied` (interface.md §5). Failures reach the
client through `ContractServer` as JSON-RPC errors carrying the contract object.
"""

from __future__ import annotations

import sys
from urllib.parse import quote

import anyio.to_thread
import mcp_types

from obsidian_mcp.index import lookup
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault

NOTE_TEMPLATE = "obsidian://note/{path}"
NOTE_PREFIX = NOTE_TEMPLATE.removesuffix("{path}")
MARKDOWN = "text/markdown"
RECENT_NOTES = 50
COMPLETIONS = 50
# What completes a note path: the template's `path`, and the prompt that takes a note's path.
PATH_ARGUMENTS = {("ref/resource", NOTE_TEMPLATE, "path"), ("ref/prompt", "summarize_note", "path")}


def note_uri(path: str) -> str:
    """The resource URI of a vault-relative note path: '/' kept, anything else unsafe percent-encoded."""
    return NOTE_PREFIX + quote(path, safe="/")


def register(server: ContractServer, vault: Vault, index: VaultIndex) -> None:
    @server.resource(
        NOTE_TEMPLATE,
        name="note",
        title="Obsidian note",
        description="A note by its vault-relative path ('.md' optional), e.g. obsidian://note/Projects/Alpha.md: "
        "its whole text, as read_note reads it.",
        mime_type=MARKDOWN,
        spans_slashes=True,
    )
    def note(path: str) -> str:
        try:
            return notes.read_note(vault, path, max_chars=sys.maxsize, strict_frontmatter=False).content
        except PathRefused as refused:  # hidden, outside, a symlink out: no such resource
            raise NoteNotFound(refused.path) from None

    @server.resource_list
    def recent() -> list[mcp_types.Resource]:
        return [
            mcp_types.Resource(
                uri=note_uri(entry.path),
                name=entry.path,
                title=entry.title,
                description=f"{entry.title} (modified {notes.iso_utc(entry.mtime)})",
                mime_type=MARKDOWN,
                size=entry.size,
                annotations=mcp_types.Annotations(last_modified=notes.iso_utc(entry.mtime)),
            )
            for entry in lookup.recent_notes(index, RECENT_NOTES)
        ]

    @server.completion()
    async def complete(
        ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
        argument: mcp_types.CompletionArgument,
        context: mcp_types.CompletionContext | None,
    ) -> mcp_types.Completion | None:
        target = ref.uri if isinstance(ref, mcp_types.ResourceTemplateReference) else ref.name
        if (ref.type, target, argument.name) not in PATH_ARGUMENTS:
            return None
        found = await anyio.to_thread.run_sync(lookup.matching_paths, index, argument.value, COMPLETIONS)
        return mcp_types.Completion(values=found.paths, total=found.total, has_more=found.total > len(found.paths))
