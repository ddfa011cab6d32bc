"""Reading the mailbox: search, messages, threads, attachments. Knows Gmail, not MCP."""

from __future__ import annotations

import base64
import contextlib
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable
from gmail_mcp.files import atomic_write
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.filenames import reserve_unique_path, safe_filename
from gmail_mcp.mail.parse import ParsedEmail, parse_full, summarize

SUMMARY_HEADERS = ["From", "To", "Subject", "Date"]
_LABELS_KEY = "__labels__"


def _get_metadata(users: Any, message_id: str) -> Any:
    return users.messages().get(userId="me", id=message_id, format="metadata", metadataHeaders=SUMMARY_HEADERS)


def _list_labels(users: Any) -> Any:
    return users.labels().list(userId="me")


def _get_label(users: Any, label_id: str) -> Any:
    return users.labels().get(userId="me", id=label_id)


class MailReader:
    def __init__(self, client: GmailClient, labels: LabelDirectory, download_dir: Path) -> None:
        self.client = client
        self.labels = labels
        self.download_dir = download_dir

    def reload_labels(self) -> dict[str, Any]:
        """Fetch the label list now, refresh the id → name cache with it, and return it."""
        listed = self.client.read(_list_labels, "label")
        self.labels.load(listed)
        return listed

    def label_names(self) -> dict[str, str]:
        if not self.labels.fresh():
            self.reload_labels()
        return self.labels.names()

    def labels_with_counts(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every label with its counts (labels.list, then one batch of labels.get); also refreshes the cache.

        Returns (labels, ids of labels whose counts could not be fetched — shown without counts).
        """
        listed = self.reload_labels().get("labels", [])
        details = self.client.batch(
            [(str(item["id"]), functools.partial(_get_label, label_id=str(item["id"]))) for item in listed], "label"
        )
        rows, missing = [], []
        for item in listed:
            got = details.get(item["id"])
            if not isinstance(got, dict):
                missing.append(item["id"])
                got = {}
            rows.append(
                {
                    "id": item["id"],
                    "name": item.get("name", item["id"]),
                    "type": item.get("type", "user"),
                    "messages_unread": got.get("messagesUnread"),
                    "messages_total": got.get("messagesTotal"),
                }
            )
        rows.sort(key=lambda row: (row["type"] != "system", str(row["name"]).lower()))
        return rows, missing

    def search(
        self, query: str, max_results: int, page_token: str | None, include_spam_trash: bool
    ) -> tuple[list[dict[str, Any]], list[str], str | None, int]:
        """Matching message summaries in two round trips: messages.list, then one batch of metadata gets.

        Returns (summaries, ids whose metadata could not be fetched, next page token, size estimate).
        The label list rides in the same batch when the cache is cold.
        """
        listed = self.client.read(
            lambda users: users.messages().list(
                userId="me",
                q=query,
                maxResults=max_results,
                pageToken=page_token or None,
                includeSpamTrash=include_spam_trash,
            ),
            "message",
            arguments={"q": "query", "pageToken": "page_token"},
        )
        ids = [str(item["id"]) for item in listed.get("messages", [])]
        requests: list[tuple[str, Callable[[Any], Any]]] = [
            (i, functools.partial(_get_metadata, message_id=i)) for i in ids
        ]
        if ids and not self.labels.fresh():
            requests.append((_LABELS_KEY, _list_labels))
        got = self.client.batch(requests, "message") if requests else {}
        if isinstance(got.get(_LABELS_KEY), dict):
            self.labels.load(got[_LABELS_KEY])
        names = self.labels.names()
        summaries, failed = [], []
        for message_id in ids:
            resource = got.get(message_id)
            if isinstance(resource, dict):
                mime = str((resource.get("payload") or {}).get("mimeType", ""))
                summaries.append(summarize(resource, names, has_attachments_hint=mime == "multipart/mixed"))
            else:
                failed.append(message_id)
        return summaries, failed, listed.get("nextPageToken"), int(listed.get("resultSizeEstimate", len(ids)))

    def message(self, message_id: str) -> ParsedEmail:
        resource = self.client.read(
            lambda users: users.messages().get(userId="me", id=message_id, format="full"), "message", message_id
        )
        return parse_full(resource, self.label_names())

    def thread(self, thread_id: str) -> list[ParsedEmail]:
        resource = self.client.read(
            lambda users: users.threads().get(userId="me", id=thread_id, format="full"), "thread", thread_id
        )
        names = self.label_names()
        return [parse_full(message, names) for message in resource.get("messages", [])]

    def download(self, message_id: str, attachment_id: str) -> dict[str, Any]:
        """Save one attachment under the download folder: sanitised name, never overwriting, atomic."""
        parsed = self.message(message_id)
        data = self.client.read(
            lambda users: users.messages().attachments().get(userId="me", messageId=message_id, id=attachment_id),
            "attachment",
            attachment_id,
        )
        content = _decode(data.get("data"))
        # Gmail may hand out a different attachmentId on each read; fall back to the part of the same size.
        parts = [a for a in parsed.attachments if a.attachment_id == attachment_id] or [
            a for a in parsed.attachments if a.size == len(content)
        ]
        if len(parts) != 1:
            raise ApiNotFound("attachment", attachment_id)
        part = parts[0]
        target = self._save(safe_filename(part.filename), content)
        return {"path": str(target), "filename": target.name, "size": len(content), "mime_type": part.mime_type}

    def _save(self, filename: str, content: bytes) -> Path:
        self.download_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = reserve_unique_path(self.download_dir, filename)
        try:
            atomic_write(target, content, mode=0o600)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)  # give the reserved name back
            raise
        return target


def _decode(data: object) -> bytes:
    if not isinstance(data, str):
        raise ApiUnavailable("Gmail sent an attachment without data")
    try:
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except ValueError:
        raise ApiUnavailable("Gmail sent attachment data that is not base64") from None
