"""A message as one text: its headers, a blank line, its body, then notes in brackets. What the
`gmail://message/{id}` resource gives and what an attached message reads as (read_attachment)."""

from __future__ import annotations

from collections.abc import Sequence

from .mime import Attachment
from .parse import ParsedEmail


def message_text(headers: Sequence[tuple[str, str | None]], body: str, notes: Sequence[str] = ()) -> str:
    """`Name: value` for each header that has a value, a blank line, the body, then each note bracketed."""
    lines = [f"{name}: {value}" for name, value in headers if value]
    tail = ["", *(f"[{note}]" for note in notes)] if notes else []
    return "\n".join([*lines, "", body.rstrip("\n"), *tail]) + "\n"


def attachment_list(attachments: Sequence[Attachment], ids: Sequence[str] | None = None) -> str:
    """`name (type, N bytes)` for each, comma-separated; with `ids`, each followed by its id to read it by."""
    shown = []
    for index, attachment in enumerate(attachments):
        label = f"{attachment.filename or '(no name)'} ({attachment.mime_type}, {attachment.size} bytes"
        if ids is not None:
            label += f", attachment_id {ids[index]}"
        shown.append(label + ")")
    return ", ".join(shown)


def attached_message_text(parsed: ParsedEmail, ids: Sequence[str] | None) -> str:
    """An attached message as get_email reads a message: its headers (with its attachments, and the ids to read
    them by when Gmail gave them), a blank line, its body; an incomplete body is noted at the end."""
    headers = [
        ("Subject", parsed.subject),
        ("From", parsed.from_),
        ("To", parsed.to),
        ("Cc", parsed.cc),
        ("Date", parsed.date),
        ("Attachments", attachment_list(parsed.attachments, ids)),
    ]
    notes = [f"CONTENT_DROPPED: parts of the body could not be decoded ({', '.join(parsed.problems[:10])})"]
    return message_text(headers, parsed.body, notes if parsed.body_incomplete else ())
