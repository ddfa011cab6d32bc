"""A Gmail message as typed data: what `api.views` parses Gmail's JSON into once, and what the rest of
`mail` reads (`parse`, `mime`). Every field Gmail may leave out, or send malformed, is None (or empty)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .headers import HeaderMap


@dataclass(frozen=True, kw_only=True)
class PartBody:
    """A MIME part's body (MessagePartBody): its bytes inline as base64url (`data`), or an attachment id."""

    data: str | None = None  # as Gmail sent it: "" is an empty inline body, None no inline body at all
    attachment_id: str | None = None  # "" kept as Gmail sent it (the readers treat it as none)
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class Part:
    """One node of a message's MIME tree (MessagePart); values raw as Gmail sent them, typed."""

    part_id: str | None = None
    mime_type: str | None = None
    filename: str | None = None
    headers: HeaderMap = field(default_factory=lambda: HeaderMap(None))
    body: PartBody = field(default_factory=PartBody)
    parts: tuple[Part, ...] | None = None  # None: Gmail gave no list of child parts


@dataclass(frozen=True, kw_only=True)
class Message:
    """A message resource (users.messages.get, or a draft's or thread's message), in any format."""

    id: str | None = None  # None: not a message resource at all
    thread_id: str | None = None
    label_ids: tuple[str, ...] = ()
    snippet: str | None = None
    internal_date: str | int | None = None  # epoch milliseconds, as Gmail sent it
    payload: Part | None = None  # format=full or metadata
    raw: bytes | None = None  # format=raw: the RFC 822 bytes (None when absent or not base64url)

    @property
    def headers(self) -> HeaderMap:
        """The top-level headers (empty without a payload)."""
        return self.payload.headers if self.payload is not None else HeaderMap(None)
