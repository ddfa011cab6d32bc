"""The in-memory mailbox of one account: messages, threads, labels, drafts, filters, send-as
aliases and forwarding addresses. One lock guards all of it.

Label rules (sources): system labels cannot be modified or deleted ("System labels are internally
created and cannot be added, modified, or deleted", discovery document, ``Label.type``); users
"cannot apply or remove the DRAFTS or SENT labels" (same place) and Gmail answers
``400 invalidArgument "Invalid label: SENT"`` (googleapis/google-api-php-client#1254); a modify
with nothing to add or remove is ``400 "No label add or removes specified"``
(googleapis/google-api-nodejs-client#312); adding more than one of INBOX, SPAM and TRASH in one
modify is ``400 "Can only add one of: INBOX, SPAM, TRASH"`` (gauteh/lieer#26); INBOX, SPAM, TRASH
and the other system labels except SENT/DRAFT "can be manually applied"
(https://developers.google.com/workspace/gmail/api/guides/labels). A label name that exists or
names a system label is ``409 "Label name exists or conflicts"``.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import Message
from email.utils import formataddr, formatdate, getaddresses, parsedate_to_datetime
from typing import Any

from . import filters as flt
from . import payload as pl
from .errors import ApiError, invalid, not_found
from .query import And, EvalContext, SearchDoc, evaluate, mentions_spam_or_trash, parse
from .settings import VERIFICATION_STATUSES, SendAs, forwarding_resource

DEFAULT_EMAIL = "me@example.com"
DEFAULT_NAME = "Mia Example"
DEFAULT_MAILBOX = "default"

FORMATS = ("full", "metadata", "minimal", "raw")
MAX_PAGE = 500
DEFAULT_PAGE = 100
HIDDEN = frozenset({"SPAM", "TRASH"})
MAX_BATCH_IDS = 1000  # BatchModifyMessagesRequest.ids: "There is a limit of 1000 ids per request."
MAX_LABEL_CHANGES = 100  # Modify*Request: "You can add up to 100 labels with each update."
UNMODIFIABLE_LABELS = frozenset({"SENT", "DRAFT"})
EXCLUSIVE_LABELS = ("INBOX", "SPAM", "TRASH")
MESSAGE_LIST_VISIBILITY = ("show", "hide")
LABEL_LIST_VISIBILITY = ("labelShow", "labelShowIfUnread", "labelHide")
# LabelColor: "Only the following predefined set of color values are allowed" (discovery document).
_PALETTE = """
    #000000 #434343 #666666 #999999 #cccccc #efefef #f3f3f3 #ffffff #fb4c2f #ffad47 #fad165 #16a766
    #43d692 #4a86e8 #a479e2 #f691b3 #f6c5be #ffe6c7 #fef1d1 #b9e4d0 #c6f3de #c9daf8 #e4d7f5 #fcdee8
    #efa093 #ffd6a2 #fce8b3 #89d3b2 #a0eac9 #a4c2f4 #d0bcf1 #fbc8d9 #e66550 #ffbc6b #fcda83 #44b984
    #68dfa9 #6d9eeb #b694e8 #f7a7c0 #cc3a21 #eaa041 #f2c960 #149e60 #3dc789 #3c78d8 #8e63ce #e07798
    #ac2b16 #cf8933 #d5ae49 #0b804b #2a9c68 #285bac #653e9b #b65775 #822111 #a46a21 #aa8831 #076239
    #1a764d #1c4587 #41236d #83334c #464646 #e7e7e7 #0d3472 #b6cff5 #0d3b44 #98d7e4 #3d188e #e3d7ff
    #711a36 #fbd3e0 #8a1c0a #f2b2a8 #7a2e0b #ffc8af #7a4706 #ffdeb5 #594c05 #fbe983 #684e07 #fdedc1
    #0b4f30 #b3efd3 #04502e #a2dcc1 #c2c2c2 #4986e7 #2da2bb #b99aff #994a64 #f691b2 #ff7537 #ffad46
    #662e37 #ebdbde #cca6ac #094228 #42d692 #16a765 #757575 #1e53b8 #007286 #7858c3 #c2185b #d93025
    #54240e #633e04 #521d28 #202124 #083018
"""
LABEL_COLORS = frozenset(_PALETTE.split())

# id -> extra fields Gmail lists for the system label (besides id/name/type).
SYSTEM_LABELS: dict[str, dict[str, str]] = {
    "CHAT": {"messageListVisibility": "hide", "labelListVisibility": "labelHide"},
    "SENT": {},
    "INBOX": {},
    "IMPORTANT": {"messageListVisibility": "hide", "labelListVisibility": "labelShow"},
    "TRASH": {"messageListVisibility": "hide", "labelListVisibility": "labelHide"},
    "DRAFT": {},
    "SPAM": {"messageListVisibility": "hide", "labelListVisibility": "labelHide"},
    "CATEGORY_FORUMS": {},
    "CATEGORY_UPDATES": {},
    "CATEGORY_PERSONAL": {},
    "CATEGORY_PROMOTIONS": {},
    "CATEGORY_SOCIAL": {},
    "STARRED": {},
    "UNREAD": {},
}


@dataclass
class StoredMessage:
    id: str
    thread_id: str
    raw: bytes
    labels: list[str]
    internal_ms: int
    history_id: int
    seq: int
    parsed: Message
    doc: SearchDoc
    snippet: str
    had_inbox_before_trash: bool = False


@dataclass
class Label:
    id: str
    name: str
    type: str = "user"
    message_list_visibility: str | None = "show"
    label_list_visibility: str | None = "labelShow"
    color: dict[str, str] | None = None


@dataclass
class Draft:
    id: str
    message_id: str


@dataclass
class StoredFilter:
    id: str
    criteria: dict[str, Any]
    action: dict[str, Any]
    query: str
    ast: And

    def resource(self) -> dict[str, Any]:
        return {"id": self.id, "criteria": dict(self.criteria), "action": dict(self.action)}


@dataclass
class Forwarded:
    """A message a filter forwarded (``action.forward``)."""

    message_id: str
    to: str
    filter_id: str


# Called with (forwarding address, raw message) after a filter forwarded a message.
ForwardHook = Callable[[str, bytes], None]


@dataclass
class _Page:
    items: list[Any]
    next_token: str | None
    total: int


@dataclass
class ListParams:
    q: str = ""
    label_ids: list[str] = field(default_factory=list)
    include_spam_trash: bool = False
    max_results: int = DEFAULT_PAGE
    page_token: str | None = None


def normalize_msgid(value: str) -> str:
    return value.strip().strip("<>").strip().casefold()


def _paginate(items: list[Any], max_results: int, page_token: str | None) -> _Page:
    start = 0
    if page_token:
        if not page_token.isdigit():
            raise invalid("Invalid pageToken", location="pageToken")
        start = int(page_token)
    end = start + max_results
    next_token = f"{end:020d}" if end < len(items) else None
    return _Page(items[start:end], next_token, len(items))


def _crlf(raw: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in raw[:4096] else b"\n"


def _has_header(msg: Message, name: str) -> bool:
    return any(k.lower() == name.lower() for k in msg)


def _split_head(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """(header block with its last line end, the rest from the blank line on, line end)."""
    eol = _crlf(raw)
    idx = raw.find(eol + eol)
    if idx < 0:
        return raw, b"", eol
    return raw[: idx + len(eol)], raw[idx + len(eol) :], eol


def _drop_header(head: bytes, name: str) -> bytes:
    """The header block without every ``name:`` field (folded continuation lines included)."""
    out: list[bytes] = []
    skipping = False
    wanted = name.lower().encode()
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                out.append(line)
            continue
        field_name, colon, _rest = line.partition(b":")
        skipping = bool(colon) and field_name.strip().lower() == wanted
        if not skipping:
            out.append(line)
    return b"".join(out)


def _check_color(color: Any) -> dict[str, str] | None:
    """Validate ``Label.color`` (both colours required, from Gmail's palette); {} / None: no colour."""
    if color is None or color == {}:
        return None
    if not isinstance(color, dict):
        raise invalid('Invalid value for "color"', location="color")
    text, background = color.get("textColor"), color.get("backgroundColor")
    if not isinstance(text, str) or not isinstance(background, str):
        raise invalid("Label color needs both textColor and backgroundColor")
    for value in (text, background):
        if value.lower() not in LABEL_COLORS:
            raise invalid(f"Label color {value} is not on the allowed color palette")
    return {"textColor": text, "backgroundColor": background}


def _check_visibility(fields: dict[str, Any]) -> None:
    mlv, llv = fields.get("messageListVisibility"), fields.get("labelListVisibility")
    if mlv is not None and mlv not in MESSAGE_LIST_VISIBILITY:
        raise invalid(f"Invalid value at 'label.message_list_visibility' ({mlv})")
    if llv is not None and llv not in LABEL_LIST_VISIBILITY:
        raise invalid(f"Invalid value at 'label.label_list_visibility' ({llv})")


class Mailbox:
    """Gmail-like store of one account. Public helpers for tests: ``add_message``, ``get_raw``,
    ``sent_messages_with_header``, ``messages_with_header``, ``label_ids``, ``thread_id``,
    ``message_ids``, ``find_by_subject``, ``draft_ids``, ``label_id``, ``search``,
    ``filter_resources``, ``add_filter``, ``set_send_as``, ``add_forwarding_address``,
    ``forwarded``.

    ``rewrite_message_id``: messages.send / drafts.send replace the client's ``Message-ID`` with
    a Gmail one and keep the original in ``X-Google-Original-Message-ID`` (see ``_outgoing``).
    ``forward_hook``: called (outside the lock) for every message a filter forwards.
    """

    def __init__(
        self,
        email_address: str = DEFAULT_EMAIL,
        display_name: str = DEFAULT_NAME,
        clock: Callable[[], float] = time.time,
        name: str = DEFAULT_MAILBOX,
    ) -> None:
        self.name = name
        self.email_address = email_address
        self.display_name = display_name
        self._clock = clock
        self.lock = threading.RLock()
        self._messages: dict[str, StoredMessage] = {}
        self._threads: dict[str, list[str]] = {}
        self._by_msgid: dict[str, list[str]] = {}
        self._labels: dict[str, Label] = {lid: Label(lid, lid, "system", None, None) for lid in SYSTEM_LABELS}
        self._drafts: dict[str, Draft] = {}
        self._filters: dict[str, StoredFilter] = {}
        self._send_as: dict[str, SendAs] = {
            email_address.casefold(): SendAs(email_address, display_name, is_primary=True, is_default=True)
        }
        self._forwarding: dict[str, tuple[str, str]] = {}  # casefolded -> (address, status)
        self.forwarded: list[Forwarded] = []
        self.forward_hook: ForwardHook | None = None
        self.rewrite_message_id = False
        self.keep_original_message_id = True
        # Message ids differ between mailboxes (as Gmail's do), so using one account's id on
        # another account fails instead of hitting a look-alike; the default mailbox starts at 0.
        self._seq = 0 if name == DEFAULT_MAILBOX else (zlib.crc32(name.encode()) & 0xFFF) << 8
        self._label_seq = 0
        self._filter_seq = 0
        self._history = 1000

    # ----- helpers ---------------------------------------------------------------------------
    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _bump(self) -> int:
        self._history += 1
        return self._history

    def _next_id(self, internal_ms: int) -> tuple[str, int]:
        self._seq += 1
        return f"{((internal_ms << 20) | (self._seq & 0xFFFFF)) & 0xFFFFFFFFFFFFFFFF:016x}", self._seq

    def _get(self, message_id: str) -> StoredMessage:
        msg = self._messages.get(message_id)
        if msg is None:
            raise not_found()
        return msg

    def _check_labels(self, label_ids: Iterable[str]) -> None:
        for lid in label_ids:
            if lid not in self._labels:
                raise invalid(f"Invalid label: {lid}")

    def _check_change(self, add: list[str], remove: list[str]) -> None:
        """The rules messages.modify / batchModify / threads.modify enforce (see module doc)."""
        self._check_labels(add + remove)
        for lid in add + remove:
            if lid in UNMODIFIABLE_LABELS:
                raise invalid(f"Invalid label: {lid}")
        if not add and not remove:
            raise invalid("No label add or removes specified")
        if len(add) > MAX_LABEL_CHANGES or len(remove) > MAX_LABEL_CHANGES:
            raise invalid(f"Too many labels: at most {MAX_LABEL_CHANGES} may be added or removed at once")
        if len(set(add) & set(EXCLUSIVE_LABELS)) > 1:
            raise invalid("Can only add one of: INBOX, SPAM, TRASH")
        both = [lid for lid in dict.fromkeys(add) if lid in remove]
        if both:
            raise invalid(f"Label {both[0]} cannot be both added and removed")

    def _eval_ctx(self) -> EvalContext:
        return EvalContext(
            label_names={lid: lab.name for lid, lab in self._labels.items()},
            now_ms=self.now_ms(),
            me=self.email_address,
        )

    def _make_doc(self, parsed: Message, raw: bytes, internal_ms: int) -> SearchDoc:
        return SearchDoc(
            subject=pl.get_header(parsed, "Subject"),
            from_=pl.get_header(parsed, "From"),
            to=", ".join(pl.get_headers(parsed, "To")),
            cc=", ".join(pl.get_headers(parsed, "Cc")),
            bcc=", ".join(pl.get_headers(parsed, "Bcc")),
            delivered_to=", ".join(pl.get_headers(parsed, "Delivered-To")),
            list_id=pl.get_header(parsed, "List-Id"),
            body=pl.body_text(parsed),
            filenames=pl.attachment_filenames(parsed),
            message_id=pl.get_header(parsed, "Message-ID"),
            internal_ms=internal_ms,
            size=len(raw),
            has_attachment=any(pl.is_attachment(p) for _pid, p in pl.iter_parts(parsed)),
        )

    def _thread_for(self, parsed: Message, thread_id: str | None) -> str | None:
        if thread_id:
            if thread_id not in self._threads:
                raise not_found()
            return thread_id
        refs = pl.get_header(parsed, "In-Reply-To") + " " + " ".join(pl.get_headers(parsed, "References"))
        for ref in reversed(re.findall(r"<[^<>]+>", refs)):
            for mid in self._by_msgid.get(normalize_msgid(ref), []):
                stored = self._messages.get(mid)
                if stored is not None:
                    return stored.thread_id
        return None

    def _store(
        self,
        raw: bytes,
        labels: Iterable[str],
        thread_id: str | None = None,
        internal_ms: int | None = None,
    ) -> StoredMessage:
        parsed = pl.parse_message(raw)
        if internal_ms is None:
            internal_ms = self.now_ms()
        tid = self._thread_for(parsed, thread_id)
        mid, seq = self._next_id(internal_ms)
        label_list = list(dict.fromkeys(labels))
        self._check_labels(label_list)
        stored = StoredMessage(
            id=mid,
            thread_id=tid or mid,
            raw=raw,
            labels=label_list,
            internal_ms=internal_ms,
            history_id=self._bump(),
            seq=seq,
            parsed=parsed,
            doc=self._make_doc(parsed, raw, internal_ms),
            snippet=pl.snippet(parsed),
        )
        self._messages[mid] = stored
        self._threads.setdefault(stored.thread_id, []).append(mid)
        header_id = pl.get_header(parsed, "Message-ID")
        if header_id:
            self._by_msgid.setdefault(normalize_msgid(header_id), []).append(mid)
        return stored

    def _remove(self, message_id: str) -> None:
        stored = self._messages.pop(message_id)
        ids = self._threads.get(stored.thread_id, [])
        if message_id in ids:
            ids.remove(message_id)
        if not ids:
            self._threads.pop(stored.thread_id, None)
        header_id = normalize_msgid(pl.get_header(stored.parsed, "Message-ID"))
        if header_id in self._by_msgid and message_id in self._by_msgid[header_id]:
            self._by_msgid[header_id].remove(message_id)
        self._bump()

    def _complete_for_sending(self, raw: bytes) -> bytes:
        """Add From/Date/Message-ID when missing, as Gmail does on send; check recipients."""
        parsed = pl.parse_message(raw)
        recipients = getaddresses(
            pl.get_headers(parsed, "To") + pl.get_headers(parsed, "Cc") + pl.get_headers(parsed, "Bcc")
        )
        if not any(addr for _name, addr in recipients):
            raise invalid("Recipient address required")
        eol = _crlf(raw)
        extra: list[bytes] = []
        if not _has_header(parsed, "From"):
            default = self._default_send_as()
            extra.append(b"From: " + formataddr((default.display_name, default.send_as_email)).encode())
        if not _has_header(parsed, "Date"):
            extra.append(b"Date: " + formatdate(self._clock()).encode())
        if not _has_header(parsed, "Message-ID"):
            extra.append(f"Message-ID: <{uuid.uuid4().hex.upper()}@mail.gmail.com>".encode())
        return b"".join(line + eol for line in extra) + raw if extra else raw

    def _gmail_message_id(self) -> str:
        return f"<CA{secrets.token_urlsafe(33)}@mail.gmail.com>"

    def _outgoing(self, raw: bytes) -> bytes:
        """What Gmail stores for a message it sends: missing headers added and, with
        ``rewrite_message_id``, the client's Message-ID replaced by a new ``<...@mail.gmail.com>``
        one, the original kept in ``X-Google-Original-Message-ID``.

        Sources: sending through the API "creates new" Message-IDs (gauteh/lieer#198, which is why
        replies chained on the client's IDs break threads); Gmail keeps the client's value in
        ``X-Google-Original-Message-ID`` (xhit/go-simple-mail#47) - or, as reported later
        (FlowCrypt/flowcrypt-browser#4273), not even that: ``keep_original_message_id=False``.
        Search (``rfc822msgid:``) and threading then only know the new ID."""
        had_id = _has_header(pl.parse_message(raw), "Message-ID")
        completed = self._complete_for_sending(raw)
        if not (self.rewrite_message_id and had_id):
            return completed
        original = pl.get_header(pl.parse_message(completed), "Message-ID")
        head, rest, eol = _split_head(completed)
        extra = [b"Message-ID: " + self._gmail_message_id().encode()]
        if self.keep_original_message_id and original:
            extra.append(b"X-Google-Original-Message-ID: " + original.encode("utf-8", "replace"))
        return b"".join(line + eol for line in extra) + _drop_header(head, "Message-ID") + rest

    def _replace_raw(self, stored: StoredMessage, raw: bytes) -> None:
        """Swap a stored message's bytes (re-parse, re-index its Message-ID)."""
        old_id = normalize_msgid(pl.get_header(stored.parsed, "Message-ID"))
        if old_id in self._by_msgid and stored.id in self._by_msgid[old_id]:
            self._by_msgid[old_id].remove(stored.id)
        stored.raw = raw
        stored.parsed = pl.parse_message(raw)
        stored.doc = self._make_doc(stored.parsed, raw, stored.internal_ms)
        stored.snippet = pl.snippet(stored.parsed)
        header_id = pl.get_header(stored.parsed, "Message-ID")
        if header_id:
            self._by_msgid.setdefault(normalize_msgid(header_id), []).append(stored.id)

    def _default_send_as(self) -> SendAs:
        return next(
            (sa for sa in self._send_as.values() if sa.is_default), self._send_as[self.email_address.casefold()]
        )

    # ----- public helpers for tests / seeding -------------------------------------------------
    @staticmethod
    def _date_header_ms(raw: bytes) -> int | None:
        date = pl.get_header(pl.parse_message(raw), "Date")
        try:
            return int(parsedate_to_datetime(date).timestamp() * 1000) if date else None
        except (TypeError, ValueError, IndexError):
            return None

    def add_message(
        self,
        raw: bytes,
        label_ids: Iterable[str] = ("INBOX", "UNREAD"),
        thread_id: str | None = None,
        internal_date_ms: int | None = None,
        *,
        apply_filters: bool = True,
        allow_forward: bool = True,
    ) -> str:
        """Deliver a message, as if it arrived by SMTP: the mailbox's filters run on it (unless
        ``apply_filters`` is false; ``allow_forward=False`` suppresses their ``forward`` action,
        used for mail that itself arrived by forwarding). ``internal_date_ms`` defaults to the
        Date header, else now."""
        with self.lock:
            if internal_date_ms is None:
                internal_date_ms = self._date_header_ms(raw)
            stored = self._store(raw, label_ids, thread_id, internal_date_ms)
            forwards = self._run_filters(stored, allow_forward) if apply_filters else []
            message_id = stored.id
        self._deliver_forwards(forwards)
        return message_id

    def add_draft(self, raw: bytes, thread_id: str | None = None, internal_date_ms: int | None = None) -> str:
        with self.lock:
            stored = self._store(raw, ["DRAFT"], thread_id, internal_date_ms)
            return self._new_draft(stored.id)

    def create_label(self, name: str, **fields: Any) -> str:
        with self.lock:
            return self._create_label(name, fields)["id"]  # type: ignore[no-any-return]

    def get_raw(self, message_id: str) -> bytes:
        with self.lock:
            if message_id not in self._messages:
                raise KeyError(message_id)
            return self._messages[message_id].raw

    def messages_with_header(self, name: str, value: str, label_id: str | None = None) -> list[str]:
        wanted = value.strip()
        with self.lock:
            out = []
            for stored in self._ordered(self._messages.values()):
                if label_id is not None and label_id not in stored.labels:
                    continue
                for v in pl.get_headers(stored.parsed, name):
                    if v.strip() == wanted or normalize_msgid(v) == normalize_msgid(wanted):
                        out.append(stored.id)
                        break
            return out

    def sent_messages_with_header(self, name: str, value: str) -> list[str]:
        return self.messages_with_header(name, value, label_id="SENT")

    def label_ids(self, message_id: str) -> list[str]:
        with self.lock:
            if message_id not in self._messages:
                raise KeyError(message_id)
            return list(self._messages[message_id].labels)

    def thread_id(self, message_id: str) -> str:
        with self.lock:
            if message_id not in self._messages:
                raise KeyError(message_id)
            return self._messages[message_id].thread_id

    def message_ids(self, label_id: str | None = None) -> list[str]:
        with self.lock:
            return [m.id for m in self._ordered(self._messages.values()) if label_id is None or label_id in m.labels]

    def thread_message_ids(self, thread_id: str) -> list[str]:
        with self.lock:
            return [m.id for m in self._thread_messages(thread_id)]

    def search(self, q: str, include_spam_trash: bool = False, label_ids: Iterable[str] = ()) -> list[str]:
        """Ids ``messages.list`` would answer for ``q`` (all pages, newest first)."""
        with self.lock:
            params = ListParams(q=q, label_ids=list(label_ids), include_spam_trash=include_spam_trash)
            return [m.id for m in self._filter(params)]

    def find_by_subject(self, subject: str) -> list[str]:
        with self.lock:
            return [m.id for m in self._ordered(self._messages.values()) if m.doc.subject == subject]

    def draft_ids(self) -> dict[str, str]:
        with self.lock:
            return {d.id: d.message_id for d in self._drafts.values()}

    def label_id(self, name: str) -> str | None:
        with self.lock:
            for label in self._labels.values():
                if label.name.casefold() == name.casefold():
                    return label.id
            return None

    def __len__(self) -> int:
        with self.lock:
            return len(self._messages)

    # ----- resource rendering -----------------------------------------------------------------
    @staticmethod
    def _ordered(messages: Iterable[StoredMessage]) -> list[StoredMessage]:
        return sorted(messages, key=lambda m: (m.internal_ms, m.seq), reverse=True)

    def _thread_messages(self, thread_id: str) -> list[StoredMessage]:
        msgs = [self._messages[mid] for mid in self._threads.get(thread_id, []) if mid in self._messages]
        return sorted(msgs, key=lambda m: (m.internal_ms, m.seq))

    @staticmethod
    def _ref(stored: StoredMessage, with_labels: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": stored.id, "threadId": stored.thread_id}
        if with_labels and stored.labels:
            out["labelIds"] = list(stored.labels)
        return out

    def _resource(self, stored: StoredMessage, fmt: str, metadata_headers: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": stored.id, "threadId": stored.thread_id}
        if stored.labels:
            out["labelIds"] = list(stored.labels)
        out["snippet"] = stored.snippet
        if fmt == "full":
            out["payload"] = pl.build_payload(stored.parsed, stored.id)
        elif fmt == "metadata":
            out["payload"] = pl.metadata_payload(stored.parsed, metadata_headers)
        out["sizeEstimate"] = len(stored.raw)
        if fmt == "raw":
            out["raw"] = pl.b64url(stored.raw)
        out["historyId"] = str(stored.history_id)
        out["internalDate"] = str(stored.internal_ms)
        return out

    # ----- messages ---------------------------------------------------------------------------
    def _filter(self, params: ListParams) -> list[StoredMessage]:
        ast = parse(params.q)
        hide = (
            not params.include_spam_trash
            and not mentions_spam_or_trash(ast)
            and not HIDDEN.intersection(params.label_ids)
        )
        ctx = self._eval_ctx()
        out = []
        for stored in self._messages.values():
            labels = set(stored.labels)
            if hide and labels & HIDDEN:
                continue
            if not all(lid in labels for lid in params.label_ids):
                continue
            if params.q and not evaluate(ast, stored.doc, labels, ctx):
                continue
            out.append(stored)
        return self._ordered(out)

    def list_messages(self, params: ListParams) -> dict[str, Any]:
        with self.lock:
            page = _paginate(self._filter(params), params.max_results, params.page_token)
            out: dict[str, Any] = {}
            if page.items:
                out["messages"] = [self._ref(m) for m in page.items]
            if page.next_token:
                out["nextPageToken"] = page.next_token
            out["resultSizeEstimate"] = page.total
            return out

    def get_message(
        self, message_id: str, fmt: str = "full", metadata_headers: list[str] | None = None
    ) -> dict[str, Any]:
        with self.lock:
            return self._resource(self._get(message_id), fmt, metadata_headers or [])

    def get_attachment(self, message_id: str, attachment_id: str) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            decoded = pl.parse_attachment_id(attachment_id)
            if decoded is None or decoded[0] != message_id:
                raise not_found()
            part = pl.find_part(stored.parsed, decoded[1])
            if part is None or part.is_multipart():
                raise not_found()
            data = pl.part_bytes(part)
            return {"attachmentId": attachment_id, "size": len(data), "data": pl.b64url(data)}

    def _apply_labels(self, stored: StoredMessage, add: list[str], remove: list[str]) -> None:
        """Change labels. A message is in at most one of All Mail, Spam and Trash, so adding
        TRASH drops SPAM and adding SPAM drops TRASH; INBOX is left as asked (a message may carry
        INBOX and TRASH, gauteh/lieer#27). Whether INBOX was there is remembered for untrash."""
        remove = list(remove)
        if "TRASH" in add and "TRASH" not in stored.labels:
            stored.had_inbox_before_trash = "INBOX" in stored.labels
            remove.append("SPAM")
        if "SPAM" in add:
            remove.append("TRASH")
        labels = [lab for lab in stored.labels if lab not in remove]
        labels += [lab for lab in add if lab not in labels]
        stored.labels = labels
        stored.history_id = self._bump()

    def modify(self, message_id: str, add: list[str], remove: list[str]) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            self._check_change(add, remove)
            self._apply_labels(stored, add, remove)
            return self._ref(stored, with_labels=True)

    def batch_modify(self, ids: list[str], add: list[str], remove: list[str]) -> None:
        """All or nothing: any unknown id (404) or bad label (400) changes nothing.

        TRASH may be added here (and in modify) with gmail.modify: that is how a client can move
        many messages to the Trash at once (list the query's ids, then batchModify them in chunks
        of 1000 with ``addLabelIds: ["TRASH"]``, usually with ``removeLabelIds: ["INBOX"]``).
        Unlike messages.trash it removes INBOX only when asked to."""
        with self.lock:
            if len(ids) > MAX_BATCH_IDS:
                raise invalid(f"Too many ids: at most {MAX_BATCH_IDS} are allowed", location="ids")
            self._check_change(add, remove)
            targets = [self._get(mid) for mid in dict.fromkeys(ids)]
            for stored in targets:
                self._apply_labels(stored, add, remove)

    def _trash(self, stored: StoredMessage) -> None:
        if "TRASH" not in stored.labels:
            self._apply_labels(stored, ["TRASH"], ["INBOX", "SPAM"])

    def _untrash(self, stored: StoredMessage) -> None:
        if "TRASH" in stored.labels:
            add = ["INBOX"] if stored.had_inbox_before_trash else []
            self._apply_labels(stored, add, ["TRASH"])

    def trash(self, message_id: str) -> dict[str, Any]:
        """messages.trash: to the Trash, out of Inbox and Spam (untrash puts INBOX back)."""
        with self.lock:
            stored = self._get(message_id)
            self._trash(stored)
            return self._ref(stored, with_labels=True)

    def untrash(self, message_id: str) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            self._untrash(stored)
            return self._ref(stored, with_labels=True)

    def send(self, raw: bytes, thread_id: str | None = None) -> dict[str, Any]:
        with self.lock:
            stored = self._store(self._outgoing(raw), ["SENT"], thread_id)
            return self._ref(stored, with_labels=True)

    def insert(
        self,
        raw: bytes,
        label_ids: list[str],
        thread_id: str | None,
        internal_date_source: str,
        *,
        apply_filters: bool,
    ) -> dict[str, Any]:
        """messages.insert (``apply_filters=False``: "bypassing most scanning and classification",
        like IMAP APPEND) and messages.import (``apply_filters=True``: "standard email delivery
        scanning and classification similar to receiving via SMTP"). Labels are the ones given
        (SENT may be set here); none means the message is only in All Mail."""
        if internal_date_source not in ("receivedTime", "dateHeader"):
            raise invalid(f"Invalid value at 'internal_date_source' ({internal_date_source})")
        with self.lock:
            self._check_labels(label_ids)
            internal_ms = self._date_header_ms(raw) if internal_date_source == "dateHeader" else None
            stored = self._store(raw, label_ids, thread_id, internal_ms)
            forwards = self._run_filters(stored, True) if apply_filters else []
            out = self._ref(stored, with_labels=True)
        self._deliver_forwards(forwards)
        return out

    # ----- threads ----------------------------------------------------------------------------
    def list_threads(self, params: ListParams) -> dict[str, Any]:
        with self.lock:
            latest: dict[str, StoredMessage] = {}
            for stored in self._filter(params):  # newest first
                latest.setdefault(stored.thread_id, stored)
            threads = list(latest.values())
            page = _paginate(threads, params.max_results, params.page_token)
            out: dict[str, Any] = {}
            if page.items:
                out["threads"] = [
                    {
                        "id": m.thread_id,
                        "snippet": m.snippet,
                        "historyId": str(max(x.history_id for x in self._thread_messages(m.thread_id))),
                    }
                    for m in page.items
                ]
            if page.next_token:
                out["nextPageToken"] = page.next_token
            out["resultSizeEstimate"] = page.total
            return out

    def get_thread(
        self, thread_id: str, fmt: str = "full", metadata_headers: list[str] | None = None
    ) -> dict[str, Any]:
        with self.lock:
            msgs = self._thread_messages(thread_id)
            if not msgs:
                raise not_found()
            if fmt == "raw":
                raise invalid("Invalid format: raw is not supported for threads", location="format")
            return {
                "id": thread_id,
                "historyId": str(max(m.history_id for m in msgs)),
                "messages": [self._resource(m, fmt, metadata_headers or []) for m in msgs],
            }

    def _thread_or_404(self, thread_id: str) -> list[StoredMessage]:
        msgs = self._thread_messages(thread_id)
        if not msgs:
            raise not_found()
        return msgs

    def _thread_ref(self, thread_id: str) -> dict[str, Any]:
        msgs = self._thread_messages(thread_id)
        return {
            "id": thread_id,
            "historyId": str(max(m.history_id for m in msgs)),
            "messages": [self._ref(m, with_labels=True) for m in msgs],
        }

    def modify_thread(self, thread_id: str, add: list[str], remove: list[str]) -> dict[str, Any]:
        """threads.modify: the label change applies to every message of the thread."""
        with self.lock:
            msgs = self._thread_or_404(thread_id)
            self._check_change(add, remove)
            for stored in msgs:
                self._apply_labels(stored, add, remove)
            return self._thread_ref(thread_id)

    def trash_thread(self, thread_id: str) -> dict[str, Any]:
        with self.lock:
            for stored in self._thread_or_404(thread_id):
                self._trash(stored)
            return self._thread_ref(thread_id)

    def untrash_thread(self, thread_id: str) -> dict[str, Any]:
        with self.lock:
            for stored in self._thread_or_404(thread_id):
                self._untrash(stored)
            return self._thread_ref(thread_id)

    # ----- labels -----------------------------------------------------------------------------
    @staticmethod
    def _label_resource(label: Label) -> dict[str, Any]:
        out: dict[str, Any] = {"id": label.id, "name": label.name}
        if label.type == "system":
            out.update(SYSTEM_LABELS.get(label.id, {}))
        else:
            if label.message_list_visibility:
                out["messageListVisibility"] = label.message_list_visibility
            if label.label_list_visibility:
                out["labelListVisibility"] = label.label_list_visibility
        out["type"] = label.type
        if label.color:
            out["color"] = dict(label.color)
        return out

    def list_labels(self) -> dict[str, Any]:
        with self.lock:
            return {"labels": [self._label_resource(lab) for lab in self._labels.values()]}

    def get_label(self, label_id: str) -> dict[str, Any]:
        with self.lock:
            label = self._labels.get(label_id)
            if label is None:
                raise not_found()
            out = self._label_resource(label)
            with_label = [m for m in self._messages.values() if label_id in m.labels]
            unread = [m for m in with_label if "UNREAD" in m.labels]
            out["messagesTotal"] = len(with_label)
            out["messagesUnread"] = len(unread)
            out["threadsTotal"] = len({m.thread_id for m in with_label})
            out["threadsUnread"] = len({m.thread_id for m in unread})
            return out

    def _check_label_name(self, name: Any, own_id: str | None = None) -> str:
        """A usable new name: not empty, not a system label's, not another label's (case-insensitive)."""
        text = name.strip() if isinstance(name, str) else ""
        if not text:
            raise invalid("Invalid label name", location="name")
        if text.upper() in SYSTEM_LABELS or any(
            lab.name.casefold() == text.casefold() and lab.id != own_id for lab in self._labels.values()
        ):
            raise ApiError(409, "duplicate", "Label name exists or conflicts")
        return text

    def _create_label(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        name = self._check_label_name(name)
        _check_visibility(fields)
        color = _check_color(fields.get("color"))
        self._label_seq += 1
        label = Label(
            id=f"Label_{self._label_seq}",
            name=name,
            message_list_visibility=fields.get("messageListVisibility") or "show",
            label_list_visibility=fields.get("labelListVisibility") or "labelShow",
            color=color,
        )
        self._labels[label.id] = label
        self._bump()
        return self._label_resource(label)

    def create_label_resource(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            return self._create_label(str(body.get("name") or ""), body)

    def _user_label(self, label_id: str, verb: str) -> Label:
        label = self._labels.get(label_id)
        if label is None:
            raise not_found()
        if label.type == "system":
            raise invalid(f"Invalid {verb} request: {label_id} is a system label")
        return label

    def patch_label(self, label_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """labels.patch: change the fields given (name, visibilities, color; ``color: {}`` clears)."""
        with self.lock:
            label = self._user_label(label_id, "update")
            name = self._check_label_name(body["name"], label.id) if "name" in body else label.name
            _check_visibility(body)
            color = _check_color(body["color"]) if "color" in body else label.color
            label.name = name
            label.message_list_visibility = body.get("messageListVisibility") or label.message_list_visibility
            label.label_list_visibility = body.get("labelListVisibility") or label.label_list_visibility
            label.color = color
            self._bump()
            return self._label_resource(label)

    def update_label(self, label_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """labels.update (PUT): replace the label; ``name`` is required, absent fields reset."""
        with self.lock:
            label = self._user_label(label_id, "update")
            name = self._check_label_name(body.get("name"), label.id)
            _check_visibility(body)
            color = _check_color(body.get("color"))
            label.name = name
            label.message_list_visibility = body.get("messageListVisibility") or "show"
            label.label_list_visibility = body.get("labelListVisibility") or "labelShow"
            label.color = color
            self._bump()
            return self._label_resource(label)

    def delete_label(self, label_id: str) -> None:
        """labels.delete: the label goes, and off every message; no message is deleted. Filters
        that add it keep their action (they then skip the missing label)."""
        with self.lock:
            self._user_label(label_id, "delete")
            for stored in self._messages.values():
                if label_id in stored.labels:
                    stored.labels = [lab for lab in stored.labels if lab != label_id]
                    stored.history_id = self._bump()
            del self._labels[label_id]
            self._bump()

    # ----- drafts -----------------------------------------------------------------------------
    def _new_draft(self, message_id: str) -> str:
        self._seq += 1
        draft_id = f"r{5_000_000_000_000_000_000 + self._seq * 7919}"
        self._drafts[draft_id] = Draft(draft_id, message_id)
        return draft_id

    def _get_draft(self, draft_id: str) -> Draft:
        draft = self._drafts.get(draft_id)
        if draft is None:
            raise not_found()
        return draft

    def create_draft(self, raw: bytes, thread_id: str | None) -> dict[str, Any]:
        with self.lock:
            stored = self._store(raw, ["DRAFT"], thread_id)
            draft_id = self._new_draft(stored.id)
            return {"id": draft_id, "message": self._ref(stored, with_labels=True)}

    def update_draft(self, draft_id: str, raw: bytes, thread_id: str | None) -> dict[str, Any]:
        with self.lock:
            draft = self._get_draft(draft_id)
            old = self._messages[draft.message_id]
            parsed = pl.parse_message(raw)
            tid = thread_id or self._thread_for(parsed, None) or old.thread_id
            self._remove(old.id)
            keep_thread = tid if tid in self._threads else None
            stored = self._store(raw, ["DRAFT"], keep_thread)
            draft.message_id = stored.id
            return {"id": draft.id, "message": self._ref(stored, with_labels=True)}

    def send_draft(self, draft_id: str, raw: bytes | None, thread_id: str | None) -> dict[str, Any]:
        with self.lock:
            draft = self._get_draft(draft_id)
            if raw is not None:
                self.update_draft(draft_id, raw, thread_id)
            stored = self._messages[draft.message_id]
            completed = self._outgoing(stored.raw)
            if completed != stored.raw:
                self._replace_raw(stored, completed)
            stored.internal_ms = self.now_ms()
            stored.doc.internal_ms = stored.internal_ms
            self._apply_labels(stored, ["SENT"], ["DRAFT"])
            del self._drafts[draft_id]
            return self._ref(stored, with_labels=True)

    def delete_draft(self, draft_id: str) -> None:
        with self.lock:
            draft = self._get_draft(draft_id)
            self._remove(draft.message_id)
            del self._drafts[draft_id]

    def _draft_resource(self, draft: Draft, fmt: str | None) -> dict[str, Any]:
        stored = self._messages[draft.message_id]
        message = self._resource(stored, fmt, []) if fmt else self._ref(stored)
        return {"id": draft.id, "message": message}

    def get_draft(self, draft_id: str, fmt: str = "full") -> dict[str, Any]:
        with self.lock:
            return self._draft_resource(self._get_draft(draft_id), fmt)

    def list_drafts(self, params: ListParams) -> dict[str, Any]:
        with self.lock:
            by_message = {d.message_id: d for d in self._drafts.values()}
            matching = {m.id for m in self._filter(params)} if params.q else set(by_message)
            drafts = [
                by_message[m.id]
                for m in self._ordered(self._messages[mid] for mid in by_message)
                if m.id in matching and (params.include_spam_trash or not HIDDEN.intersection(m.labels))
            ]
            page = _paginate(drafts, params.max_results, params.page_token)
            out: dict[str, Any] = {}
            if page.items:
                out["drafts"] = [self._draft_resource(d, None) for d in page.items]
            if page.next_token:
                out["nextPageToken"] = page.next_token
            out["resultSizeEstimate"] = page.total
            return out

    # ----- filters (users.settings.filters; see gmail_emulator.filters) ------------------------
    def _label_types(self) -> dict[str, str]:
        return {lid: lab.type for lid, lab in self._labels.items()}

    def _forwarding_status(self) -> dict[str, str]:
        return {key: status for key, (_addr, status) in self._forwarding.items()}

    def create_filter(self, body: dict[str, Any]) -> dict[str, Any]:
        """settings.filters.create: validate like Gmail (400 for empty criteria/action, unknown
        labels, unverified forward; 400 failedPrecondition "Filter already exists")."""
        criteria = flt.normalize_criteria(body.get("criteria"))
        action = flt.normalize_action(body.get("action"))
        with self.lock:
            flt.check_action(action, self._label_types(), self._forwarding_status())
            key = flt.filter_key(criteria, action)
            if any(flt.filter_key(f.criteria, f.action) == key for f in self._filters.values()):
                raise flt.duplicate_error()
            self._filter_seq += 1
            query = flt.criteria_to_query(criteria)
            stored = StoredFilter(f"ANe1Bmj{self._filter_seq:09d}", criteria, action, query, parse(query))
            self._filters[stored.id] = stored
            return stored.resource()

    def add_filter(self, criteria: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        """Test helper: ``create_filter`` with the same validation."""
        return self.create_filter({"criteria": criteria, "action": action})

    def get_filter(self, filter_id: str) -> dict[str, Any]:
        with self.lock:
            stored = self._filters.get(filter_id)
            if stored is None:
                raise not_found()
            return stored.resource()

    def list_filters(self) -> dict[str, Any]:
        with self.lock:
            items = [f.resource() for f in self._filters.values()]
            return {"filter": items} if items else {}

    def filter_resources(self) -> list[dict[str, Any]]:
        with self.lock:
            return [f.resource() for f in self._filters.values()]

    def delete_filter(self, filter_id: str) -> None:
        with self.lock:
            if self._filters.pop(filter_id, None) is None:
                raise not_found()

    def _run_filters(self, stored: StoredMessage, allow_forward: bool) -> list[tuple[str, bytes]]:
        """Apply every matching filter to a newly arrived message (matching is decided on the
        message as it arrived). Mail arriving in Trash is left alone; mail arriving in Spam is
        only touched by filters that take it out of Spam ("never send it to Spam").
        Returns the forwards to deliver once the lock is released."""
        if not self._filters or "TRASH" in stored.labels:
            return []
        labels = set(stored.labels)
        ctx = self._eval_ctx()
        matching = [f for f in self._filters.values() if evaluate(f.ast, stored.doc, labels, ctx)]
        if "SPAM" in labels:
            matching = [f for f in matching if "SPAM" in f.action.get("removeLabelIds", [])]
        forwards: list[tuple[str, bytes]] = []
        for f in matching:
            add = [lid for lid in f.action.get("addLabelIds", []) if lid in self._labels]
            remove = [lid for lid in f.action.get("removeLabelIds", []) if lid in self._labels]
            if "TRASH" in add:  # "Delete it": to the Trash, like messages.trash
                self._trash(stored)
                add = [lid for lid in add if lid != "TRASH"]
            if add or remove:
                self._apply_labels(stored, add, remove)
            forward = f.action.get("forward")
            if forward and allow_forward:
                self.forwarded.append(Forwarded(stored.id, str(forward), f.id))
                forwards.append((str(forward), stored.raw))
        return forwards

    def _deliver_forwards(self, forwards: list[tuple[str, bytes]]) -> None:
        hook = self.forward_hook
        if hook is None:
            return
        for address, raw in forwards:
            hook(address, raw)

    # ----- send-as aliases and forwarding addresses (see gmail_emulator.settings) -------------
    def list_send_as(self) -> dict[str, Any]:
        with self.lock:
            return {"sendAs": [sa.resource() for sa in self._send_as.values()]}

    def get_send_as(self, send_as_email: str) -> dict[str, Any]:
        with self.lock:
            sa = self._send_as.get(send_as_email.casefold())
            if sa is None:
                raise not_found()
            return sa.resource()

    def set_send_as(
        self,
        send_as_email: str,
        *,
        display_name: str | None = None,
        reply_to_address: str | None = None,
        signature: str | None = None,
        is_default: bool | None = None,
        treat_as_alias: bool | None = None,
        verification_status: str | None = None,
    ) -> dict[str, Any]:
        """Add an alias or change one (the primary address included); None leaves a field as is.
        Making one address the default makes every other one not the default."""
        if verification_status is not None and verification_status not in VERIFICATION_STATUSES:
            raise ValueError(f"verification_status must be one of {VERIFICATION_STATUSES}")
        with self.lock:
            key = send_as_email.casefold()
            sa = self._send_as.get(key)
            if sa is None:
                sa = self._send_as[key] = SendAs(send_as_email)
            if display_name is not None:
                sa.display_name = display_name
            if reply_to_address is not None:
                sa.reply_to_address = reply_to_address
            if signature is not None:
                sa.signature = signature
            if treat_as_alias is not None and not sa.is_primary:
                sa.treat_as_alias = treat_as_alias
            if verification_status is not None and not sa.is_primary:
                sa.verification_status = verification_status
            if is_default:
                for other in self._send_as.values():
                    other.is_default = other is sa
            elif is_default is False and sa.is_default:
                raise ValueError("a mailbox needs a default send-as address: make another one the default")
            return sa.resource()

    def remove_send_as(self, send_as_email: str) -> None:
        with self.lock:
            sa = self._send_as.get(send_as_email.casefold())
            if sa is None:
                raise KeyError(send_as_email)
            if sa.is_primary:
                raise ValueError("the primary address cannot be removed")
            del self._send_as[send_as_email.casefold()]
            if sa.is_default:
                self._send_as[self.email_address.casefold()].is_default = True

    def add_forwarding_address(self, email: str, verification_status: str = "accepted") -> dict[str, str]:
        if verification_status not in VERIFICATION_STATUSES:
            raise ValueError(f"verification_status must be one of {VERIFICATION_STATUSES}")
        with self.lock:
            self._forwarding[email.casefold()] = (email, verification_status)
            return forwarding_resource(email, verification_status)

    def list_forwarding_addresses(self) -> dict[str, Any]:
        with self.lock:
            items = [forwarding_resource(addr, status) for addr, status in self._forwarding.values()]
            return {"forwardingAddresses": items} if items else {}

    def get_forwarding_address(self, email: str) -> dict[str, str]:
        with self.lock:
            entry = self._forwarding.get(email.casefold())
            if entry is None:
                raise not_found()
            return forwarding_resource(*entry)

    # ----- profile ----------------------------------------------------------------------------
    def profile(self) -> dict[str, Any]:
        with self.lock:
            return {
                "emailAddress": self.email_address,
                "messagesTotal": len(self._messages),
                "threadsTotal": len(self._threads),
                "historyId": str(self._history),
            }
