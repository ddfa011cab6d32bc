"""Ready-made prompts (slash commands in Claude Code): `daily_review` and `summarize_note`.

Each validates its arguments as the tools would (a bad date is `parse_error`, `field: date`; a path
that may not be read is `not_found`) and answers one user message that says what to look at and
which tools to use. The model does the reading, through the tools, when it acts on the prompt.

A `summarize_note` path that names no note is not refused at once: Claude Code passes a slash
command's arguments only up to the first space (2.1.332: `/mcp__obsidian__summarize_note Projects/
Meeting Notes` sends `Projects/Meeting`), so a path with a space could never be given. The prompt
then names the notes whose paths match it best (path completion's ranking) and asks the model to
take the one meant, or to ask; only a path that matches no note at all is `not_found`.

Both take an optional `vault` (a name; default: the default vault): the note is looked for in that
vault, and every tool call the prompt suggests names it (`vault="work"`), so the model stays there.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field

from obsidian_mcp.index import lookup
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused

CANDIDATES = 5  # notes offered for a path that names none
PromptVaultArg = Annotated[str | None, Field(description="vault name; default: the default vault")]


def _in_vault(vault: str | None) -> tuple[str, str]:
    """What the prompt's text says of the vault asked for: words after "my Obsidian vault", and the
    argument every suggested tool call then carries."""
    if vault is None:
        return "", ""
    return f' "{vault}"', f', vault="{vault}"'


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.prompt(title="Review a day in the vault")
    def daily_review(
        date: Annotated[
            str | None, Field(description="ISO date YYYY-MM-DD of the day to review; default today")
        ] = None,
        vault: PromptVaultArg = None,
    ) -> str:
        """Review one day: its daily note, the tasks still open, and the notes changed that day."""
        from obsidian_mcp.vault.daily import parse_date  # with the daily-note tools: not at start-up (~15 ms)

        day = parse_date(date, dt.date.today()).isoformat()
        spaces.get(vault)  # an unknown vault is not_found
        named, arg = _in_vault(vault)
        return (
            f"Review my day {day} in my Obsidian vault{named}, using the obsidian tools.\n\n"
            f'1. Read the daily note: daily_note(date="{day}", create=false{arg}). If it does not exist, say so '
            "and go on with the rest.\n"
            f'2. Find what changed that day: query_notes(query="LIST WHERE file.mday = date({day})"{arg}), and '
            "read the notes that matter with read_note.\n"
            f'3. Find the tasks still open: query_notes(query="TASK WHERE !completed AND file.mday = date({day})"'
            f'{arg}) for the notes touched that day, and query_notes(query="TASK WHERE !completed AND due AND '
            f'due <= date({day})"{arg}) for those due by then.\n'
            f"4. get_backlinks(path=<the daily note's path>{arg}) shows the notes that refer to that day.\n\n"
            "Then write the review: what got done, what is still open (each task with its note and line), what "
            "needs a follow-up, and what I could do next. Change no note unless I ask; if I do, "
            f'update_task(path, line, expected_text, status="x"{arg}) ticks a task off and append_to_note adds to '
            "the daily note."
        )

    @server.prompt(title="Summarize a note")
    def summarize_note(
        path: Annotated[str, Field(description="vault-relative path of the note, '.md' optional")],
        vault: PromptVaultArg = None,
    ) -> str:
        """Summarize one note and how it connects to the rest of the vault."""
        space = spaces.get(vault)
        named, arg = _in_vault(vault)
        try:
            found = space.vault.resolve(path)
            return f'Summarize the note "{found.rel}" of my Obsidian vault{named}.' + _summary_steps(
                f'"{found.rel}"', arg
            )
        except PathRefused as refused:  # as for its resource: a note that may not be read does not exist
            raise NoteNotFound(refused.path) from None
        except NoteNotFound:
            closest = lookup.matching_paths(space.index, path, CANDIDATES).paths
            if not closest:
                raise
        names = ", ".join(f'"{candidate}"' for candidate in closest)
        return (
            f'No note is at "{path}" in my Obsidian vault{named} (the path may have been cut at its first space). '
            f"The notes whose paths match it best: {names}. Take the one I most likely meant and summarize it; "
            "if that is not clear, ask me which." + _summary_steps("<its path>", arg)
        )


def _summary_steps(path: str, arg: str = "") -> str:
    """What `summarize_note` asks the model to do with the note at `path` (quoted, or a placeholder)."""
    return (
        " Use the obsidian tools.\n\n"
        f"1. Read it: read_note(path={path}{arg}). If the answer says truncated, read on from next_offset until you "
        "have all of it.\n"
        f"2. See how it connects: get_backlinks(path={path}{arg}) lists the notes that link to it; read the ones that "
        "matter, and the notes it links to ([[links]] in its links list), with read_note. "
        f"similar_notes(path={path}{arg}) finds notes about the same things.\n\n"
        "Then answer with: a summary in three to five sentences; the key points as a list; open tasks "
        "(unchecked - [ ] items) and decisions; and the related notes by path. Do not change the note."
    )
