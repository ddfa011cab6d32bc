"""Notes as MCP resources: `obsidian://note/{path}` (a note of the default vault: its text,
`text/markdown`) and `obsidian://{vault}/note/{path}` (a note of any vault), the 50 most recently
modified notes of the default vault in `resources/list`, and completion: of a `vault` argument from
the vaults' names, of a `path` (the templates', the `summarize_note` prompt's) from the index of the
vault chosen in the completion's context (the default vault without one).

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
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import EVERY_VAULT, Spaces
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused, UnknownVault
from obsidian_mcp.vault.paths import Vault

NOTE_TEMPLATE = "obsidian://note/{path}"
VAULT_NOTE_TEMPLATE = "obsidian://{vault}/note/{path}"
NOTE_PREFIX = NOTE_TEMPLATE.removesuffix("{path}")
MARKDOWN = "text/markdown"
RECENT_NOTES = 50
COMPLETIONS = 50
# What completes a note path: the templates' `path`, and the prompt that takes a note's path.
PATH_ARGUMENTS = {
    ("ref/resource", NOTE_TEMPLATE, "path"),
    ("ref/resource", VAULT_NOTE_TEMPLATE, "path"),
    ("ref/prompt", "summarize_note", "path"),
}
# What completes a vault's name: the template's `vault`, and the prompts'.
VAULT_ARGUMENTS = {
    ("ref/resource", VAULT_NOTE_TEMPLATE, "vault"),
    ("ref/prompt", "summarize_note", "vault"),
    ("ref/prompt", "daily_review", "vault"),
}


def note_uri(path: str) -> str:
    """The resource URI of a vault-relative note path: '/' kept, anything else unsafe percent-encoded."""
    return NOTE_PREFIX + quote(path, safe="/")


def _read(vault: Vault, path: str) -> str:
    """A note's whole text, as read_note reads it; a path that may not be read names no resource."""
    try:
        return notes.read_note(vault, path, max_chars=sys.maxsize, strict_frontmatter=False).content
    except PathRefused as refused:  # hidden, outside, a symlink out: no such resource
        raise NoteNotFound(refused.path) from None


def register(server: ContractServer, spaces: Spaces) -> None:
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
        return _read(spaces.get(None).vault, path)

    @server.resource(
        VAULT_NOTE_TEMPLATE,
        name="vault_note",
        title="Obsidian note of a vault",
        description="A note of the vault named (list_vaults), e.g. obsidian://work/note/Projects/Alpha.md.",
        mime_type=MARKDOWN,
        spans_slashes=True,
    )
    def vault_note(vault: str, path: str) -> str:
        if vault == EVERY_VAULT:  # names no vault here: no such resource
            raise UnknownVault(vault, spaces.names)
        return _read(spaces.get(vault).vault, path)

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
            for entry in lookup.recent_notes(spaces.default.index, RECENT_NOTES)
        ]

    @server.completion()
    async def complete(
        ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
        argument: mcp_types.CompletionArgument,
        context: mcp_types.CompletionContext | None,
    ) -> mcp_types.Completion | None:
        target = ref.uri if isinstance(ref, mcp_types.ResourceTemplateReference) else ref.name
        asked = (ref.type, target, argument.name)
        if asked in VAULT_ARGUMENTS:
            typed = argument.value.casefold()
            names = [name for name in spaces.names if name.casefold().startswith(typed)]
            return mcp_types.Completion(values=names, total=len(names), has_more=False)
        if asked not in PATH_ARGUMENTS:
            return None
        chosen = (context.arguments or {}).get("vault") if context is not None else None
        if chosen is not None and chosen not in spaces.names:  # no such vault: nothing to offer
            return mcp_types.Completion(values=[], total=0, has_more=False)
        index = (await anyio.to_thread.run_sync(spaces.get, chosen or None)).index
        found = await anyio.to_thread.run_sync(lookup.matching_paths, index, argument.value, COMPLETIONS)
        return mcp_types.Completion(values=found.paths, total=found.total, has_more=found.total > len(found.paths))
