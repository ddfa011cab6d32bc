"""Gmail's JSON answers as small typed views, parsed once here: nothing outside `api/` sees Gmail's JSON.

Parsing is tolerant, as Gmail's answers are not trusted to be well formed: a field of the wrong type is
absent (None, or empty), an item without the id that makes it one is left out, and nothing raises. A
message is `mail.message.Message` (what `mail.parse` reads); the other resources are defined here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from gmail_mcp.api.errors import GmailFailure
from gmail_mcp.mail.headers import HeaderMap
from gmail_mcp.mail.message import Message, Part, PartBody
from gmail_mcp.mail.text import decode_base64url

__all__ = [
    "Batch",
    "Draft",
    "DraftPage",
    "Filter",
    "FilterAction",
    "FilterCriteria",
    "Label",
    "LabelChange",
    "LabelColor",
    "Message",
    "MessagePage",
    "Part",
    "PartBody",
    "Profile",
    "SendAs",
    "Thread",
]

T = TypeVar("T")
# Deeper than any reader of a MIME tree goes (mail.mime.MAX_MIME_DEPTH is 32): below it children are dropped,
# so a hostile nesting cannot exhaust the stack.
MAX_PARSE_DEPTH = 64


def _object(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _items(value: object) -> list[Mapping[str, object]]:
    """The objects of a JSON list (anything else in it, or a value that is no list, left out)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _strs(value: object) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


@dataclass(frozen=True)
class Batch(Generic[T]):
    """What a batch request got, key by key: every key asked for is in exactly one of the two, in the order asked."""

    succeeded: dict[str, T]
    failed: dict[str, GmailFailure]  # the part's failure, after the retries transient failures get


# --- messages, threads, drafts --------------------------------------------------------------------------


def part(value: object, depth: int = 0) -> Part:
    raw = _object(value)
    body = _object(raw.get("body"))
    children = raw.get("parts")
    parts = None
    if isinstance(children, list):
        parts = tuple(part(c, depth + 1) for c in _items(children)) if depth < MAX_PARSE_DEPTH else ()
    return Part(
        part_id=_str(raw.get("partId")),
        mime_type=_str(raw.get("mimeType")),
        filename=_str(raw.get("filename")),
        headers=HeaderMap(raw.get("headers")),
        body=PartBody(
            data=_str(body.get("data")), attachment_id=_str(body.get("attachmentId")), size=_int(body.get("size"))
        ),
        parts=parts,
    )


def message(value: object) -> Message:
    """A message resource (any format); something that is not one has no id."""
    raw = _object(value)
    payload = raw.get("payload")
    encoded = raw.get("raw")
    internal_date = raw.get("internalDate")
    return Message(
        id=_str(raw.get("id")),
        thread_id=_str(raw.get("threadId")),
        label_ids=_strs(raw.get("labelIds")),
        snippet=_str(raw.get("snippet")),
        internal_date=internal_date if isinstance(internal_date, str | int) else None,
        payload=part(payload) if isinstance(payload, dict) and payload else None,  # {} carries nothing
        raw=decode_base64url(encoded) if isinstance(encoded, str) else None,
    )


@dataclass(frozen=True, kw_only=True)
class MessagePage:
    """One page of messages.list: the ids, newest first, and where the next page starts."""

    ids: tuple[str, ...] = ()
    next_page_token: str | None = None
    result_size_estimate: int | None = None

    @classmethod
    def parse(cls, value: object) -> MessagePage:
        raw = _object(value)
        ids = (_str(item.get("id")) for item in _items(raw.get("messages")))
        return cls(
            ids=tuple(i for i in ids if i is not None),
            next_page_token=_str(raw.get("nextPageToken")),
            result_size_estimate=_int(raw.get("resultSizeEstimate")),
        )


@dataclass(frozen=True, kw_only=True)
class Thread:
    id: str | None = None
    messages: tuple[Message, ...] = ()  # oldest first; an item that is not a message has no id

    @classmethod
    def parse(cls, value: object) -> Thread:
        raw = _object(value)
        items = raw.get("messages")
        return cls(id=_str(raw.get("id")), messages=tuple(message(m) for m in items) if isinstance(items, list) else ())


@dataclass(frozen=True, kw_only=True)
class Draft:
    """A draft: its id and its message (a message without id when Gmail gave none)."""

    id: str | None = None
    message: Message = field(default_factory=Message)

    @classmethod
    def parse(cls, value: object) -> Draft:
        raw = _object(value)
        return cls(id=_str(raw.get("id")), message=message(raw.get("message")))


@dataclass(frozen=True, kw_only=True)
class DraftPage:
    """One page of drafts.list: drafts with an id (each with its message's id), and the next page's token."""

    drafts: tuple[Draft, ...] = ()
    next_page_token: str | None = None

    @classmethod
    def parse(cls, value: object) -> DraftPage:
        raw = _object(value)
        drafts = (Draft.parse(item) for item in _items(raw.get("drafts")))
        return cls(drafts=tuple(d for d in drafts if d.id is not None), next_page_token=_str(raw.get("nextPageToken")))


# --- labels, filters, the account -------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Label:
    id: str
    name: str | None = None
    type: str | None = None  # "system" or "user"
    messages_unread: int | None = None  # only from labels.get
    messages_total: int | None = None

    @classmethod
    def parse(cls, value: object, default_id: str | None = None) -> Label | None:
        """The label, or None when it has no id (and no `default_id` stands for it)."""
        raw = _object(value)
        label_id = _str(raw.get("id")) or default_id
        if label_id is None:
            return None
        return cls(
            id=label_id,
            name=_str(raw.get("name")),
            type=_str(raw.get("type")),
            messages_unread=_int(raw.get("messagesUnread")),
            messages_total=_int(raw.get("messagesTotal")),
        )

    @classmethod
    def listed(cls, value: object) -> tuple[Label, ...]:
        """The labels of a labels.list answer."""
        labels = (cls.parse(item) for item in _items(_object(value).get("labels")))
        return tuple(label for label in labels if label is not None)


@dataclass(frozen=True, kw_only=True)
class LabelColor:
    text: str  # Gmail's palette, lower-case hex
    background: str


@dataclass(frozen=True, kw_only=True)
class LabelChange:
    """What labels.create or labels.patch asks for: a name, a colour (None: not asked, kept as it is)."""

    name: str | None = None
    color: LabelColor | None = None

    def body(self) -> dict[str, object]:
        """The JSON of the request."""
        body: dict[str, object] = {} if self.name is None else {"name": self.name}
        if self.color is not None:
            body["color"] = {"textColor": self.color.text, "backgroundColor": self.color.background}
        return body


@dataclass(frozen=True, kw_only=True)
class FilterCriteria:
    """Gmail's FilterCriteria; every field is optional."""

    from_: str | None = None
    to: str | None = None
    subject: str | None = None
    query: str | None = None
    negated_query: str | None = None
    has_attachment: bool | None = None
    exclude_chats: bool | None = None
    size: int | None = None
    size_comparison: str | None = None  # "larger" or "smaller"

    @classmethod
    def parse(cls, value: object) -> FilterCriteria:
        raw = _object(value)
        has, chats = raw.get("hasAttachment"), raw.get("excludeChats")
        return cls(
            from_=_str(raw.get("from")),
            to=_str(raw.get("to")),
            subject=_str(raw.get("subject")),
            query=_str(raw.get("query")),
            negated_query=_str(raw.get("negatedQuery")),
            has_attachment=has if isinstance(has, bool) else None,
            exclude_chats=chats if isinstance(chats, bool) else None,
            size=_int(raw.get("size")),
            size_comparison=_str(raw.get("sizeComparison")),
        )

    def body(self) -> dict[str, object]:
        """The JSON of a filters.create request (fields not given left out)."""
        fields = {
            "from": self.from_, "to": self.to, "subject": self.subject, "query": self.query,
            "negatedQuery": self.negated_query, "hasAttachment": self.has_attachment,
            "excludeChats": self.exclude_chats, "size": self.size, "sizeComparison": self.size_comparison,
        }  # fmt: skip
        return {key: value for key, value in fields.items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class FilterAction:
    add_label_ids: tuple[str, ...] = ()
    remove_label_ids: tuple[str, ...] = ()
    forward: str | None = None  # never set by this server; shown when set elsewhere

    @classmethod
    def parse(cls, value: object) -> FilterAction:
        raw = _object(value)
        return cls(
            add_label_ids=_strs(raw.get("addLabelIds")),
            remove_label_ids=_strs(raw.get("removeLabelIds")),
            forward=_str(raw.get("forward")),
        )

    def body(self) -> dict[str, object]:
        """The JSON of a filters.create request (empty lists left out; never a forward)."""
        fields = {"addLabelIds": list(self.add_label_ids), "removeLabelIds": list(self.remove_label_ids)}
        return {key: value for key, value in fields.items() if value}


@dataclass(frozen=True, kw_only=True)
class Filter:
    id: str
    criteria: FilterCriteria = field(default_factory=FilterCriteria)
    action: FilterAction = field(default_factory=FilterAction)

    @classmethod
    def parse(cls, value: object) -> Filter | None:
        raw = _object(value)
        filter_id = _str(raw.get("id"))
        if filter_id is None:
            return None
        criteria, action = FilterCriteria.parse(raw.get("criteria")), FilterAction.parse(raw.get("action"))
        return cls(id=filter_id, criteria=criteria, action=action)


@dataclass(frozen=True, kw_only=True)
class SendAs:
    """A send-as address (settings.sendAs): Google leaves empty fields out, so each is optional."""

    email: str
    display_name: str | None = None
    signature: str | None = None  # HTML
    is_primary: bool = False
    is_default: bool = False
    verification_status: str | None = None

    @classmethod
    def parse(cls, value: object) -> SendAs | None:
        raw = _object(value)
        email = _str(raw.get("sendAsEmail"))
        if email is None:
            return None
        return cls(
            email=email,
            display_name=_str(raw.get("displayName")),
            signature=_str(raw.get("signature")),
            is_primary=raw.get("isPrimary") is True,
            is_default=raw.get("isDefault") is True,
            verification_status=_str(raw.get("verificationStatus")),
        )


@dataclass(frozen=True, kw_only=True)
class Profile:
    """users.getProfile: the account's address."""

    email_address: str | None = None

    @classmethod
    def parse(cls, value: object) -> Profile:
        return cls(email_address=_str(_object(value).get("emailAddress")))
