"""The in-memory mailbox: messages, threads, labels, drafts. One lock guards all of it."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import Message
from email.utils import formatdate, getaddresses, parsedate_to_datetime
from typing import Any

from . import payload as pl
from .errors import ApiError, invalid, not_found
from .query import EvalContext, SearchDoc, evaluate, mentions_spam_or_trash, parse

DEFAULT_EMAIL = "me@example.com"
DEFAULT_NAME = "Mia Example"

FORMATS = ("full", "metadata", "minimal", "raw")
MAX_PAGE = 500
DEFAULT_PAGE = 100
HIDDEN = frozenset({"SPAM", "TRASH"})

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


class Mailbox:
    """Gmail-like store. Public helpers for tests: ``add_message``, ``get_raw``,
    ``sent_messages_with_header``, ``messages_with_header``, ``label_ids``, ``thread_id``,
    ``message_ids``, ``find_by_subject``, ``draft_ids``, ``label_id``."""

    def __init__(
        self,
        email_address: str = DEFAULT_EMAIL,
        display_name: str = DEFAULT_NAME,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.email_address = email_address
        self.display_name = display_name
        self._clock = clock
        self.lock = threading.RLock()
        self._messages: dict[str, StoredMessage] = {}
        self._threads: dict[str, list[str]] = {}
        self._by_msgid: dict[str, list[str]] = {}
        self._labels: dict[str, Label] = {lid: Label(lid, lid, "system", None, None) for lid in SYSTEM_LABELS}
        self._drafts: dict[str, Draft] = {}
        self._seq = 0
        self._label_seq = 0
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
            extra.append(f"From: {self.display_name} <{self.email_address}>".encode())
        if not _has_header(parsed, "Date"):
            extra.append(b"Date: " + formatdate(self._clock()).encode())
        if not _has_header(parsed, "Message-ID"):
            extra.append(f"Message-ID: <{uuid.uuid4().hex.upper()}@mail.gmail.com>".encode())
        return b"".join(line + eol for line in extra) + raw if extra else raw

    # ----- public helpers for tests / seeding -------------------------------------------------
    def add_message(
        self,
        raw: bytes,
        label_ids: Iterable[str] = ("INBOX", "UNREAD"),
        thread_id: str | None = None,
        internal_date_ms: int | None = None,
    ) -> str:
        """Plant a message. ``internal_date_ms`` defaults to the Date header, else now."""
        with self.lock:
            if internal_date_ms is None:
                date = pl.get_header(pl.parse_message(raw), "Date")
                try:
                    internal_date_ms = int(parsedate_to_datetime(date).timestamp() * 1000) if date else None
                except (TypeError, ValueError, IndexError):
                    internal_date_ms = None
            return self._store(raw, label_ids, thread_id, internal_date_ms).id

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
        labels = [lab for lab in stored.labels if lab not in remove]
        labels += [lab for lab in add if lab not in labels]
        stored.labels = labels
        stored.history_id = self._bump()

    def modify(self, message_id: str, add: list[str], remove: list[str]) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            self._check_labels(add + remove)
            self._apply_labels(stored, add, remove)
            return self._ref(stored, with_labels=True)

    def batch_modify(self, ids: list[str], add: list[str], remove: list[str]) -> None:
        with self.lock:
            if len(ids) > 1000:
                raise invalid("Too many ids: at most 1000 are allowed", location="ids")
            self._check_labels(add + remove)
            targets = [self._get(mid) for mid in ids]
            for stored in targets:
                self._apply_labels(stored, add, remove)

    def trash(self, message_id: str) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            if "TRASH" not in stored.labels:
                stored.had_inbox_before_trash = "INBOX" in stored.labels
                self._apply_labels(stored, ["TRASH"], ["INBOX", "SPAM"])
            return self._ref(stored, with_labels=True)

    def untrash(self, message_id: str) -> dict[str, Any]:
        with self.lock:
            stored = self._get(message_id)
            if "TRASH" in stored.labels:
                add = ["INBOX"] if stored.had_inbox_before_trash else []
                self._apply_labels(stored, add, ["TRASH"])
            return self._ref(stored, with_labels=True)

    def send(self, raw: bytes, thread_id: str | None = None) -> dict[str, Any]:
        with self.lock:
            completed = self._complete_for_sending(raw)
            stored = self._store(completed, ["SENT"], thread_id)
            return self._ref(stored, with_labels=True)

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

    def _create_label(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        name = (name or "").strip()
        if not name:
            raise invalid("Invalid label name", location="name")
        if name.upper() in SYSTEM_LABELS or any(
            lab.name.casefold() == name.casefold() for lab in self._labels.values()
        ):
            raise ApiError(409, "duplicate", "Label name exists or conflicts")
        self._label_seq += 1
        label = Label(
            id=f"Label_{self._label_seq}",
            name=name,
            message_list_visibility=fields.get("messageListVisibility", "show"),
            label_list_visibility=fields.get("labelListVisibility", "labelShow"),
            color=fields.get("color"),
        )
        self._labels[label.id] = label
        self._bump()
        return self._label_resource(label)

    def create_label_resource(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            return self._create_label(str(body.get("name") or ""), body)

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
            completed = self._complete_for_sending(stored.raw)
            if completed != stored.raw:
                stored.raw = completed
                stored.parsed = pl.parse_message(completed)
                stored.doc = self._make_doc(stored.parsed, completed, stored.internal_ms)
                header_id = pl.get_header(stored.parsed, "Message-ID")
                self._by_msgid.setdefault(normalize_msgid(header_id), []).append(stored.id)
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

    # ----- profile ----------------------------------------------------------------------------
    def profile(self) -> dict[str, Any]:
        with self.lock:
            return {
                "emailAddress": self.email_address,
                "messagesTotal": len(self._messages),
                "threadsTotal": len(self._threads),
                "historyId": str(self._history),
            }
